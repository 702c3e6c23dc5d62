// Command profd-scrape-target is what test_scrape.sh scrapes: a Go
// program serving net/http/pprof, busy in functions of known names.
//
//	profd-scrape-target -listen 127.0.0.1:0 -addr-file F [-unix PATH]
//
// It writes the TCP address it listens on to F, then burns CPU in
// scrapeBurnCPU, allocates in scrapeAllocate (kept live, for heap) and
// parks 20 goroutines in scrapeParked (for the goroutine profile) until
// killed.
package main

import (
	"flag"
	"log"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"runtime"
	"sync"
	"time"
)

var sink [][]byte
var sinkMu sync.Mutex

//go:noinline
func scrapeBurnCPU() uint64 {
	var x uint64 = 1
	for i := 0; i < 50_000_000; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

//go:noinline
func scrapeAllocate() {
	b := make([]byte, 256<<10)
	sinkMu.Lock()
	sink = append(sink, b)
	if len(sink) > 64 {
		sink = sink[1:]
	}
	sinkMu.Unlock()
}

//go:noinline
func scrapeParked(c chan struct{}) {
	<-c
}

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "TCP address")
	addrFile := flag.String("addr-file", "", "write the address here")
	unix := flag.String("unix", "", "also serve on this Unix socket")
	flag.Parse()
	runtime.SetMutexProfileFraction(5)
	runtime.SetBlockProfileRate(1000)

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	if *unix != "" {
		os.Remove(*unix)
		ul, err := net.Listen("unix", *unix)
		if err != nil {
			log.Fatal(err)
		}
		go func() { log.Fatal(http.Serve(ul, nil)) }()
	}
	park := make(chan struct{})
	for i := 0; i < 20; i++ {
		go scrapeParked(park)
	}
	go func() {
		for {
			scrapeBurnCPU()
		}
	}()
	go func() {
		for {
			scrapeAllocate()
			time.Sleep(time.Millisecond)
		}
	}()
	if *addrFile != "" {
		tmp := *addrFile + ".tmp"
		if err := os.WriteFile(tmp, []byte(ln.Addr().String()), 0o644); err != nil {
			log.Fatal(err)
		}
		os.Rename(tmp, *addrFile)
	}
	log.Fatal(http.Serve(ln, nil))
}
