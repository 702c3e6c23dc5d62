// Command profd-scrape-target is what test_scrape.sh and
// test_scrape_deltas.sh scrape: a Go program serving net/http/pprof,
// busy in functions of known names.
//
//	profd-scrape-target -listen 127.0.0.1:0 -addr-file F [-unix PATH]
//	    [-burn=false] [-alloc-rate MB/s] [-seconds ok|refuse|ignore]
//	    [-request-log FILE]
//
// It writes the TCP address it listens on to F, then burns CPU in
// scrapeBurnCPU (unless -burn=false), allocates in scrapeAllocate at a
// steady rate (-alloc-rate MB per second of wall time, caught up if the
// program was starved; the last 4 MB kept live, so memory in use is
// steady), contends for a mutex in scrapeContend (four goroutines taking
// turns to hold it for a millisecond: a steady contention and blocking
// delay, every event profiled) and parks 20 goroutines in scrapeParked
// (for the goroutine profile) until killed.
//
// -seconds refuse answers ?seconds=N on allocs, block, mutex, heap,
// goroutine and threadcreate with net/http/pprof's 400, -seconds ignore
// serves them without the parameter, as a Go before 1.15 did (a plain
// profile, at once): targets that cannot give deltas.
//
// -request-log FILE appends two lines a request, as it happens:
//
//	ID begin NS tcp|unix REQUEST-URI
//	ID end NS
//
// NS on the program's monotonic clock, from its start.  begin is when
// the handler is called (after the request came in); end when the answer
// is ready, before any byte of it is sent (it is held until then), so a
// client cannot have had the answer before its end was noted: the tests
// order fetches by these lines.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	allocChunk = 64 << 10
	allocLive  = 64 // chunks kept live: 4 MB
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
	b := make([]byte, allocChunk)
	sinkMu.Lock()
	sink = append(sink, b)
	if len(sink) > allocLive {
		sink = sink[1:]
	}
	sinkMu.Unlock()
}

// allocateSteadily allocates rate bytes per second of wall time, in
// chunks, every 10 ms as many as it owes.
func allocateSteadily(rate float64) {
	start := time.Now()
	var done float64
	for range time.Tick(10 * time.Millisecond) {
		owed := rate * time.Since(start).Seconds()
		for done+allocChunk <= owed {
			scrapeAllocate()
			done += allocChunk
		}
	}
}

var contended sync.Mutex

//go:noinline
func scrapeContend() {
	for {
		contended.Lock()
		time.Sleep(time.Millisecond)
		contended.Unlock()
		runtime.Gosched()
	}
}

//go:noinline
func scrapeParked(c chan struct{}) {
	<-c
}

var deltaProfiles = map[string]bool{
	"allocs": true, "block": true, "mutex": true, "heap": true,
	"goroutine": true, "threadcreate": true,
}

// noDeltas wraps the pprof handlers: ?seconds=N on a profile that
// net/http/pprof would answer with a delta is refused (400) or dropped.
func noDeltas(mode string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/debug/pprof/")
		if !deltaProfiles[name] || r.URL.Query().Get("seconds") == "" {
			next.ServeHTTP(w, r)
			return
		}
		if mode == "refuse" {
			http.Error(w, `"seconds" parameter is not supported for this profile type`,
				http.StatusBadRequest)
			return
		}
		q := r.URL.Query()
		q.Del("seconds")
		r2 := r.Clone(r.Context())
		r2.URL.RawQuery = q.Encode()
		r2.Form = nil
		next.ServeHTTP(w, r2)
	})
}

// held is an answer kept back until it is whole.
type held struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (h *held) Header() http.Header { return h.header }

func (h *held) WriteHeader(code int) {
	if h.code == 0 {
		h.code = code
	}
}

func (h *held) Write(b []byte) (int, error) {
	h.WriteHeader(http.StatusOK)
	return h.body.Write(b)
}

// requestLog notes each request's begin and end (see the top).
type requestLog struct {
	mu    sync.Mutex
	f     *os.File
	next  uint64
	start time.Time
}

func (l *requestLog) note(format string, a ...interface{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := fmt.Fprintf(l.f, format, a...); err != nil {
		log.Fatal(err)
	}
}

func (l *requestLog) wrap(listener string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.next++
		id := l.next
		l.mu.Unlock()
		l.note("%d begin %d %s %s\n", id, time.Since(l.start).Nanoseconds(),
			listener, r.RequestURI)
		h := &held{header: http.Header{}}
		next.ServeHTTP(h, r)
		l.note("%d end %d\n", id, time.Since(l.start).Nanoseconds())
		for k, v := range h.header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", strconv.Itoa(h.body.Len()))
		if h.code == 0 {
			h.code = http.StatusOK
		}
		w.WriteHeader(h.code)
		w.Write(h.body.Bytes())
	})
}

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "TCP address")
	addrFile := flag.String("addr-file", "", "write the address here")
	unix := flag.String("unix", "", "also serve on this Unix socket")
	burn := flag.Bool("burn", true, "burn a CPU in scrapeBurnCPU")
	allocRate := flag.Float64("alloc-rate", 8, "MB allocated per second")
	seconds := flag.String("seconds", "ok", "?seconds=N on allocs, block, mutex...: ok, refuse (400) or ignore")
	requests := flag.String("request-log", "", "note each request's begin and end here")
	flag.Parse()
	runtime.SetMutexProfileFraction(1)
	runtime.SetBlockProfileRate(1000)

	var handler http.Handler = http.DefaultServeMux
	switch *seconds {
	case "ok":
	case "refuse", "ignore":
		handler = noDeltas(*seconds, handler)
	default:
		log.Fatalf("-seconds %q: ok, refuse or ignore", *seconds)
	}
	tcpHandler, unixHandler := handler, handler
	if *requests != "" {
		f, err := os.OpenFile(*requests, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			log.Fatal(err)
		}
		l := &requestLog{f: f, start: time.Now()}
		tcpHandler = l.wrap("tcp", handler)
		unixHandler = l.wrap("unix", handler)
	}
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
		go func() { log.Fatal(http.Serve(ul, unixHandler)) }()
	}
	park := make(chan struct{})
	for i := 0; i < 20; i++ {
		go scrapeParked(park)
	}
	if *burn {
		go func() {
			for {
				scrapeBurnCPU()
			}
		}()
	}
	go allocateSteadily(*allocRate * (1 << 20))
	for i := 0; i < 4; i++ {
		go scrapeContend()
	}
	if *addrFile != "" {
		tmp := *addrFile + ".tmp"
		if err := os.WriteFile(tmp, []byte(ln.Addr().String()), 0o644); err != nil {
			log.Fatal(err)
		}
		os.Rename(tmp, *addrFile)
	}
	log.Fatal(http.Serve(ln, tcpHandler))
}
