// heap-series: a Go program that allocates at a steady rate and contends
// on a mutex, and writes its own heap and mutex profiles to files every
// interval: the cumulative series a cron job or a spool delivers
// (test_time_series.sh).  Every allocation is recorded (MemProfileRate
// 1) and every contention (SetMutexProfileFraction 1), so the values are
// exact, and `go tool pprof -base` of two files is what happened between
// them.  Standard library only: the tests build it without a module proxy.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"
)

var (
	sink [64][]byte
	mu   sync.Mutex
	held int
)

//go:noinline
func allocSmall(i int) { sink[i%64] = make([]byte, 512) }

//go:noinline
func allocLarge(i int) { sink[(i+32)%64] = make([]byte, 16384) }

// churn allocates about the same every millisecond, keeping at most 64
// buffers alive: a flat allocation rate and a steady in-use size.
func churn(stop <-chan struct{}) {
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		allocSmall(i)
		if i%4 == 0 {
			allocLarge(i)
		}
		time.Sleep(time.Millisecond)
	}
}

//go:noinline
func contend(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		mu.Lock()
		held++
		time.Sleep(200 * time.Microsecond)
		mu.Unlock()
	}
}

func write(dir, name string, n int) {
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s.%d.pprof", name, n)))
	if err != nil {
		panic(err)
	}
	if err := pprof.Lookup(name).WriteTo(f, 0); err != nil {
		panic(err)
	}
	if err := f.Close(); err != nil {
		panic(err)
	}
}

func main() {
	out := flag.String("out", ".", "directory for heap.N.pprof and mutex.N.pprof")
	n := flag.Int("n", 6, "profiles of each kind")
	every := flag.Duration("interval", 1100*time.Millisecond, "time between profiles")
	flag.Parse()
	runtime.MemProfileRate = 1
	runtime.SetMutexProfileFraction(1)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); churn(stop) }()
	for i := 0; i < 2; i++ {
		go func() { defer wg.Done(); contend(stop) }()
	}
	for i := 1; i <= *n; i++ {
		time.Sleep(*every)
		// The heap profile is as of the last GC: one now makes it
		// as of this moment.
		runtime.GC()
		write(*out, "heap", i)
		write(*out, "mutex", i)
	}
	close(stop)
	wg.Wait()
}
