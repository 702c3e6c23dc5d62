// Command bench-gen writes the real Go profiles bench/run measures profd
// with: runtime/pprof profiles of a program whose goroutines walk many
// distinct call paths (chosen by a seeded PRNG, so the structure is the
// same on every run; the numbers are not).
//
// Usage:
//
//	bench-gen -mode cpu    -o FILE -cpu-seconds S [-max-seconds W]
//	bench-gen -mode series -o DIR  -n N [-slice D | -slice-cpu C]
//	bench-gen -mode heap   -o FILE -mb M
//	bench-gen -mode minutes -o DIR -n N [-step D] [-end UNIX] [-samples S]
//	bench-gen -mode retime -o DIR -n N -in FILE|DIR [-step D] [-end UNIX]
//	bench-gen -mode heaps  -o DIR -n N [-every D]
//	bench-gen -mode stats  -o FILE -in FILE|DIR [-min-stacks K]
//
// cpu writes one CPU profile that lasts until the process used S seconds
// of CPU (at most W seconds of wall time): its sample count then depends
// little on what else the machine runs.  series writes DIR/0001.pb.gz
// ... DIR/N.pb.gz, CPU profiles of consecutive slices of D of one
// continuing program, as a continuous profiler pushes them; with
// -slice-cpu C, each lasts until the process used C of CPU instead, so
// that its samples (C at the rate) do not depend on the machine's load.  Every batch of
// requests runs under pprof labels (worker, endpoint), so sample records
// are per batch, as in a service that labels its requests.
//
// minutes and retime (minutes.go) write profiles whose times are given
// rather than taken: a long series of 1-minute CPU profiles, and copies of
// one profile (or of a recorded series, cyclically) at successive times.
//
// heaps (heaps.go) writes N heap profiles of the running program, -every
// D apart, as a service's heap snapshots; stats (stats.go) counts each
// profile's samples, sample records and distinct stacks.
//
// heap writes a heap profile of about M MB (10^6 bytes) once inflated,
// with MemProfileRate = 1: every allocation is recorded, and the profile
// has one record (four values and a "bytes" label) per distinct allocation
// stack, so walking tens of thousands of distinct call paths once each
// makes it large.  A CPU profile cannot get that large here: CPU profiling
// signals come from the kernel's CPU-time timers, which fire at most once
// per tick (CONFIG_HZ, 250 on Debian) on each busy CPU, whatever rate is
// asked.  A first heap profile after a few thousand paths tells how many
// paths give M MB.
//
// The CPU sampling rate (-hz, default 1000) is set with
// runtime.SetCPUProfileRate before pprof.StartCPUProfile, which then
// prints a harmless "cannot set cpu profile rate" warning on stderr; the
// kernel's tick may cap it lower.  Run with GODEBUG=asyncpreemptoff=1:
// otherwise, with the signals aligned on the tick, many samples land in
// runtime.asyncPreempt.  Standard library only.
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	mode := flag.String("mode", "cpu", "cpu, series, heap, minutes or retime")
	out := flag.String("o", "", "output file (cpu, heap) or directory (series)")
	cpuSeconds := flag.Float64("cpu-seconds", 20, "cpu: CPU time to profile")
	maxSeconds := flag.Float64("max-seconds", 300, "cpu: wall time to profile at most")
	n := flag.Int("n", 100, "series: how many profiles")
	slice := flag.Duration("slice", 100*time.Millisecond, "series: time covered by each profile")
	sliceCPU := flag.Duration("slice-cpu", 0, "series: instead of -slice, end each profile once the process used this much CPU (at most -max-seconds of wall time)")
	mb := flag.Float64("mb", 50, "heap: inflated size wanted, in 10^6 bytes")
	hz := flag.Int("hz", 1000, "CPU sampling rate asked for")
	workers := flag.Int("workers", runtime.NumCPU(), "goroutines running the workload")
	npaths := flag.Int("paths", 0, "distinct call paths (default: 500; heap: 400000)")
	depth := flag.Int("depth", 0, "deepest call path, in frames (default: 24; heap: 16)")
	seed := flag.Uint64("seed", 1, "PRNG seed of the call paths")
	flag.Parse()
	if *out == "" || flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	if run, ok := timedModes[*mode]; ok {
		run(*out, *n, *seed)
		return
	}
	if *mode == "heap" {
		// Before anything allocates.
		runtime.MemProfileRate = 1
		writeFile(*out, heapProfile(orDefault(*npaths, 400000),
			orDefault(*depth, 16), *seed, *mb))
		return
	}

	g := newWorkload(orDefault(*npaths, 500), orDefault(*depth, 24), *seed)
	g.start(*workers)
	switch *mode {
	case "cpu":
		writeFile(*out, cpuProfileFor(*hz, secs(*cpuSeconds),
			secs(*maxSeconds)))
	case "series":
		if err := os.MkdirAll(*out, 0o755); err != nil {
			fatalf("%v", err)
		}
		for i := 1; i <= *n; i++ {
			name := filepath.Join(*out, fmt.Sprintf("%04d.pb.gz", i))
			if *sliceCPU > 0 {
				writeFile(name, cpuProfileFor(*hz, *sliceCPU,
					secs(*maxSeconds)))
				continue
			}
			writeFile(name, cpuProfile(*hz, *slice))
		}
	default:
		fatalf("unknown mode %q", *mode)
	}
	g.stop()
}

func orDefault(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func fatalf(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "bench-gen: "+format+"\n", args...)
	os.Exit(1)
}

// cpuProfile returns a gzipped CPU profile of d of the running workload.
func cpuProfile(hz int, d time.Duration) []byte {
	var b bytes.Buffer

	runtime.SetCPUProfileRate(hz)
	if err := pprof.StartCPUProfile(&b); err != nil {
		fatalf("StartCPUProfile: %v", err)
	}
	time.Sleep(d)
	pprof.StopCPUProfile()
	return b.Bytes()
}

// cpuProfileFor returns a gzipped CPU profile of the running workload
// that lasts until the process used cpu of CPU time, or max of wall time.
func cpuProfileFor(hz int, cpu, max time.Duration) []byte {
	var b bytes.Buffer

	runtime.SetCPUProfileRate(hz)
	if err := pprof.StartCPUProfile(&b); err != nil {
		fatalf("StartCPUProfile: %v", err)
	}
	start, used := time.Now(), processCPU()
	for processCPU()-used < cpu && time.Since(start) < max {
		time.Sleep(50 * time.Millisecond)
	}
	pprof.StopCPUProfile()
	return b.Bytes()
}

// processCPU is the CPU time (user and system) the process used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage

	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// heapProfile walks the paths once each, in order, until the heap profile
// is about mb MB inflated, and returns it gzipped.  The size grows a little
// less than linearly with the paths walked (short paths repeat): each step
// extrapolates from the last two snapshots.
func heapProfile(n, depth int, seed uint64, mb float64) []byte {
	g := newWorkload(n, depth, seed)
	c := newCall()
	target := mb * 1e6
	done, next := 0, 2000
	var size, last, lastSize int64
	var b []byte
	for step := 0; step < 6; step++ {
		for ; done < next && done < n; done++ {
			serve(c, &g.paths[done])
		}
		b = heapSnapshot()
		size = inflated(b)
		if float64(size) > 0.98*target || done == n {
			break
		}
		next = 2 * done
		if step > 0 {
			if size <= lastSize {
				fatalf("the heap profile does not grow with the paths walked")
			}
			slope := float64(size-lastSize) / float64(int64(done)-last)
			next = done + int((target-float64(size))/slope*1.02) + 1
		}
		last, lastSize = int64(done), size
	}
	if done == n && float64(size) < 0.98*target {
		fmt.Fprintf(os.Stderr, "bench-gen: all %d paths give only %d "+
			"bytes\n", n, size)
	}
	return b
}

func heapSnapshot() []byte {
	var b bytes.Buffer

	runtime.GC() // the heap profile is as of the last GC
	if err := pprof.Lookup("heap").WriteTo(&b, 0); err != nil {
		fatalf("heap profile: %v", err)
	}
	return b.Bytes()
}

func inflated(gz []byte) int64 {
	r, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		fatalf("gunzip: %v", err)
	}
	n, err := io.Copy(io.Discard, r)
	if err != nil {
		fatalf("gunzip: %v", err)
	}
	return n
}

func writeFile(name string, b []byte) {
	if err := os.WriteFile(name, b, 0o644); err != nil {
		fatalf("%v", err)
	}
}

// ---------------------------------------------------------------------------
// The workload: requests that each walk one call path of frame functions
// down to a leaf.  A path is a root (one of four entry points), a sequence
// of frames drawn with replacement (so there is recursion) and a leaf.

type path struct {
	frames []uint8
	leaf   uint8
	work   int
}

type workload struct {
	paths []path
	keep  bool // -mode heaps: requests keep some of what they allocate
	quit  int32
	wg    sync.WaitGroup
}

// xorshift64*, deterministic for a seed.
type prng uint64

func (r *prng) next() uint64 {
	x := uint64(*r)
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	*r = prng(x)
	return x * 0x2545f4914f6cdd1d
}

func (r *prng) intn(n int) int { return int(r.next() % uint64(n)) }

func newWorkload(n, depth int, seed uint64) *workload {
	r := prng(seed*0x9e3779b97f4a7c15 | 1)
	g := &workload{paths: make([]path, n)}
	for i := range g.paths {
		d := 1 + r.intn(depth)
		p := path{frames: make([]uint8, d), leaf: uint8(r.intn(len(leaves))),
			work: 50 + r.intn(400)}
		p.frames[0] = uint8(r.intn(nroots))
		for j := 1; j < d; j++ {
			p.frames[j] = uint8(nroots + r.intn(len(frames)-nroots))
		}
		g.paths[i] = p
	}
	return g
}

var endpoints = []string{"/api/users", "/api/orders", "/api/search",
	"/api/cart", "/api/login", "/api/report", "/internal/sync", "/metrics"}

func (g *workload) start(n int) {
	for i := 0; i < n; i++ {
		g.wg.Add(1)
		go g.run(i)
	}
}

func (g *workload) stop() {
	atomic.StoreInt32(&g.quit, 1)
	g.wg.Wait()
}

// run serves batches of requests, each batch under its pprof labels.
func (g *workload) run(id int) {
	defer g.wg.Done()
	r := prng(uint64(id+1) * 0x51afd7ed558ccd)
	c := newCall()
	if g.keep {
		c.ring = newRing(id)
	}
	worker := strconv.Itoa(id)
	for atomic.LoadInt32(&g.quit) == 0 {
		ep := endpoints[r.intn(len(endpoints))]
		labels := pprof.Labels("worker", worker, "endpoint", ep)
		pprof.Do(context.Background(), labels, func(context.Context) {
			for i := 0; i < 64; i++ {
				// Skewed towards the first paths: a few hot paths and a
				// long tail, as in a real service.
				u := float64(r.next()>>11) / (1 << 53)
				serve(c, &g.paths[int(u*u*u*float64(len(g.paths)))])
			}
		})
	}
}

//go:noinline
func serve(c *call, p *path) {
	c.path, c.leaf, c.work = p.frames, p.leaf, p.work
	c.h ^= frames[p.frames[0]](c, 1)
}

type call struct {
	path []uint8
	leaf uint8
	work int
	h    uint64
	buf  []byte
	ints []int
	ring *ring // -mode heaps: what requests keep (heaps.go)
}

func newCall() *call { return &call{buf: make([]byte, 256), ints: make([]int, 64)} }

// ---------------------------------------------------------------------------
// Frame functions: each does some work of its own (so samples land at every
// depth), then calls the next frame of the path or, at its end, the leaf.
// The body is repeated rather than shared so that no inlined helper shows
// up between the frames.

const nroots = 4

var frames []func(*call, int) uint64

var leaves = []func(*call) uint64{leafHash, leafSort, leafFormat, leafMap,
	leafJSON, leafMatrix}

func init() {
	frames = []func(*call, int) uint64{serveHTTP, consumeQueue, runJob,
		tick, handleRequest, route, authorize, parseHeader, parseBody,
		decodeJSON, validate, loadUser, loadSession, queryDB, buildQuery,
		scanRows, applyRules, evalExpr, renderTemplate, formatRow,
		writeResponse, compressBody, cacheLookup, cacheStore, retry,
		withTimeout, logRequest, checkQuota}
}

//go:noinline
func serveHTTP(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 1
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func consumeQueue(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 2
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func runJob(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 3
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func tick(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 4
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func handleRequest(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 5
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func route(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 6
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func authorize(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 7
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func parseHeader(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 8
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func parseBody(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 9
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func decodeJSON(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 10
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func validate(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 11
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func loadUser(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 12
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func loadSession(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 13
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func queryDB(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 14
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func buildQuery(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 15
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func scanRows(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 16
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func applyRules(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 17
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func evalExpr(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 18
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func renderTemplate(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 19
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func formatRow(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 20
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func writeResponse(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 21
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func compressBody(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 22
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func cacheLookup(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 23
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func cacheStore(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 24
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func retry(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 25
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func withTimeout(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 26
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func logRequest(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 27
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

//go:noinline
func checkQuota(c *call, d int) uint64 {
	for i := 0; i < c.work; i++ {
		c.h = c.h*0x9e3779b97f4a7c15 + 28
	}
	if d < len(c.path) {
		return frames[c.path[d]](c, d+1)
	}
	return leaves[c.leaf](c)
}

// ---------------------------------------------------------------------------
// Leaves: standard library work, so that runtime and library frames (hashing,
// sorting, allocation, maps, reflection) end the stacks as in real programs.

//go:noinline
func leafHash(c *call) uint64 {
	if c.ring != nil {
		c.keep()
	}
	c.buf[0] = byte(c.h)
	var s [32]byte
	for i := 0; i < 8; i++ {
		s = sha256.Sum256(c.buf)
		c.buf[i] ^= s[i]
	}
	return uint64(s[0])
}

//go:noinline
func leafSort(c *call) uint64 {
	if c.ring != nil {
		c.keep()
	}
	x := c.h | 1
	for i := range c.ints {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		c.ints[i] = int(x >> 1)
	}
	sort.Ints(c.ints)
	return uint64(c.ints[0])
}

//go:noinline
func leafFormat(c *call) uint64 {
	if c.ring != nil {
		c.keep()
	}
	var s string
	for i := 0; i < 16; i++ {
		s += strconv.FormatUint(c.h+uint64(i), 16) + ","
	}
	return uint64(len(s))
}

//go:noinline
func leafMap(c *call) uint64 {
	if c.ring != nil {
		c.keep()
	}
	m := make(map[uint64]int, 32)
	for i := 0; i < 64; i++ {
		m[(c.h+uint64(i))%97]++
	}
	return uint64(len(m))
}

type record struct {
	ID    uint64            `json:"id"`
	Name  string            `json:"name"`
	Tags  []string          `json:"tags"`
	Attrs map[string]string `json:"attrs"`
}

//go:noinline
func leafJSON(c *call) uint64 {
	if c.ring != nil {
		c.keep()
	}
	r := record{ID: c.h, Name: "item", Tags: []string{"a", "b", "c"},
		Attrs: map[string]string{"k": "v", "x": "y"}}
	b, err := json.Marshal(&r)
	if err != nil {
		fatalf("%v", err)
	}
	var back record
	if err := json.Unmarshal(b, &back); err != nil {
		fatalf("%v", err)
	}
	return back.ID
}

//go:noinline
func leafMatrix(c *call) uint64 {
	if c.ring != nil {
		c.keep()
	}
	var a, b, m [8][8]float64
	for i := 0; i < 8; i++ {
		for j := 0; j < 8; j++ {
			a[i][j] = float64((c.h>>uint(i+j))&7) + 1
			b[j][i] = a[i][j] / 3
		}
	}
	for k := 0; k < 4; k++ {
		for i := 0; i < 8; i++ {
			for j := 0; j < 8; j++ {
				s := 0.0
				for l := 0; l < 8; l++ {
					s += a[i][l] * b[l][j]
				}
				m[i][j] = s
			}
		}
		a = m
	}
	return uint64(m[3][5])
}
