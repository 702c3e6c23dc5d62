// Command gen-large writes a large real CPU profile for profd's benchmarks:
// runtime/pprof sampling at 2000 Hz (not the default 100) while workers
// recurse through a handful of functions along deterministic, varying
// paths, so the profile has tens of thousands of samples and thousands of
// distinct stacks.  Standard library only.
//
// Usage:
//
//	gen-large [-seconds S] [-workers N] OUT.pprof
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"
)

// The recursion: each level picks the next function and how much work to
// do from a small deterministic generator, so paths repeat (the same stack
// is sampled many times) and vary (thousands of distinct stacks).
type walker struct {
	state uint64
	sink  uint64
}

func (w *walker) next() uint64 {
	w.state ^= w.state << 13
	w.state ^= w.state >> 7
	w.state ^= w.state << 17
	return w.state
}

func (w *walker) work(n int) {
	x := w.sink
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
		x ^= x >> 29
	}
	w.sink = x
}

func (w *walker) step(depth int) {
	if depth == 0 {
		w.work(2000)
		return
	}
	w.work(200)
	switch w.next() % 6 {
	case 0:
		w.alpha(depth - 1)
	case 1:
		w.beta(depth - 1)
	case 2:
		w.gamma(depth - 1)
	case 3:
		w.delta(depth - 1)
	case 4:
		w.epsilon(depth - 1)
	default:
		w.zeta(depth - 1)
	}
}

//go:noinline
func (w *walker) alpha(d int) { w.step(d) }

//go:noinline
func (w *walker) beta(d int) { w.step(d) }

//go:noinline
func (w *walker) gamma(d int) { w.step(d) }

//go:noinline
func (w *walker) delta(d int) { w.work(300); w.step(d) }

//go:noinline
func (w *walker) epsilon(d int) { w.step(d) }

//go:noinline
func (w *walker) zeta(d int) { w.work(100); w.step(d) }

// run repeats a bounded set of paths: the seed cycles through pathSeeds
// values, and the depth (3..14) follows from the seed.
func run(id int, stop <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	const pathSeeds = 2048
	w := &walker{}
	for i := uint64(0); ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		seed := (i*2654435761 + uint64(id)*40503) % pathSeeds
		w.state = seed*0x9e3779b97f4a7c15 | 1
		w.step(3 + int(seed%12))
	}
}

func main() {
	seconds := flag.Float64("seconds", 10, "how long to profile")
	workers := flag.Int("workers", runtime.NumCPU(), "busy goroutines")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: %s [-seconds S] [-workers N] OUT.pprof\n", os.Args[0])
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	f, err := os.Create(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	// Before StartCPUProfile, which then cannot lower it to 100 Hz (it
	// prints a warning saying so).
	runtime.SetCPUProfileRate(2000)
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < *workers; i++ {
		wg.Add(1)
		go run(i, stop, &wg)
	}
	time.Sleep(time.Duration(*seconds * float64(time.Second)))
	close(stop)
	wg.Wait()
	pprof.StopCPUProfile()
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}
