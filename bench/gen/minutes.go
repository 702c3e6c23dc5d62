package main

// Profiles whose times are given rather than taken, written here as pprof
// protobufs (no runtime profiler: a week of 1-minute profiles cannot be
// recorded in a bench run).
//
// minutes writes DIR/00001.pb.gz ... DIR/N.pb.gz, 1-minute CPU profiles of
// one program, -step apart and the last one ending at -end: the call
// paths of the workload (newWorkload, the frame and leaf functions of
// main.go, with their library frames), a sample landing in any frame of a
// path (each frame does work of its own) or in one of its leaf's library
// frames.  The paths are drawn skewed towards a hot set, as the live
// workload draws them, at -samples samples a profile (100 Hz, cpu
// nanoseconds), and the long tail drifts: every -drift of profiles one
// more tail path comes in and one goes, so that a week has a few thousand
// distinct stacks more than a minute.  Profile i's content depends on the
// seed and i only, so the files are the same on every run but for times.
//
// retime writes N copies of the profile -in, identical but for time_nanos
// (-step apart, the last at -end), so that none of them is a duplicate of
// another: the same stacks and values pushed again and again.  With -in a
// directory, profile i is a copy of its (i mod R)th .pb.gz file (R files,
// name order: a recorded series replayed cyclically) with time_nanos set
// to the start of minute i (-step apart, the last ending at -end) and
// duration_nanos to -step: real profiles as a continuous profiler would
// push them, longer than the recording (with -set-duration=false the
// file's own duration_nanos kept: heap snapshots, which have none, stay
// gauges; docs/TIME.md).

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"
)

var (
	timedStep    = flag.Duration("step", time.Minute, "minutes, retime: time between profiles")
	timedEnd     = flag.Int64("end", 0, "minutes, retime: time of the last profile's end, Unix seconds (default: now)")
	timedSamples = flag.Int("samples", 1500, "minutes: samples per profile")
	timedDrift   = flag.Int("drift", 60, "minutes: profiles between two tail paths changing")
	timedIn      = flag.String("in", "", "retime: the profile to copy, or a directory of profiles to copy cyclically")
	timedSetDur  = flag.Bool("set-duration", true, "retime -in DIR: set each copy's duration_nanos to -step (false: keep the file's, as a heap snapshot's 0)")
)

var timedModes = map[string]func(out string, n int, seed uint64){
	"minutes": minutesMode,
	"retime":  retimeMode,
}

func timedEndNanos() int64 {
	if *timedEnd != 0 {
		return *timedEnd * 1e9
	}
	return time.Now().Truncate(time.Minute).UnixNano()
}

func timedName(dir string, i int) string {
	return filepath.Join(dir, fmt.Sprintf("%05d.pb.gz", i+1))
}

// ---------------------------------------------------------------------------
// minutes

// The program's functions, as the profiler names them: main.go's frames
// and leaves (in their tables' order), what runs below them, and the
// library code the leaves call.
var frameNames = []string{"serveHTTP", "consumeQueue", "runJob", "tick",
	"handleRequest", "route", "authorize", "parseHeader", "parseBody",
	"decodeJSON", "validate", "loadUser", "loadSession", "queryDB",
	"buildQuery", "scanRows", "applyRules", "evalExpr", "renderTemplate",
	"formatRow", "writeResponse", "compressBody", "cacheLookup",
	"cacheStore", "retry", "withTimeout", "logRequest", "checkQuota"}

var leafNames = []string{"leafHash", "leafSort", "leafFormat", "leafMap",
	"leafJSON", "leafMatrix"}

var mainFrameNames, mainLeafNames = prefixed(frameNames), prefixed(leafNames)

func prefixed(names []string) []string {
	p := make([]string, len(names))
	for i, n := range names {
		p[i] = "main." + n
	}
	return p
}

// Under the root frame, outermost first.
var rootFuncs = []string{"runtime.goexit", "main.(*workload).run",
	"runtime/pprof.Do", "main.(*workload).run.func1", "main.serve"}

// Per leaf, the library calls a sample in it may be in, outermost first.
var leafTails = [][][]string{
	{{"crypto/sha256.Sum256", "crypto/sha256.(*digest).checkSum",
		"crypto/sha256.(*digest).Write", "crypto/sha256.block"},
		{"crypto/sha256.Sum256", "crypto/sha256.(*digest).checkSum",
			"crypto/sha256.(*digest).Write", "crypto/sha256.blockAMD64"}},
	{{"sort.Ints", "sort.Sort", "sort.pdqsort", "sort.insertionSort"},
		{"sort.Ints", "sort.Sort", "sort.pdqsort", "sort.choosePivot",
			"sort.median"}},
	{{"strconv.FormatUint", "strconv.formatBits"},
		{"runtime.concatstrings", "runtime.rawstringtmp",
			"runtime.mallocgc"},
		{"runtime.concatstrings", "runtime.memmove"}},
	{{"runtime.makemap", "runtime.mallocgc"},
		{"runtime.mapassign_fast64", "runtime.growWork_fast64"},
		{"runtime.mapassign_fast64"}},
	{{"encoding/json.Marshal", "encoding/json.(*encodeState).marshal",
		"encoding/json.structEncoder.encode",
		"encoding/json.mapEncoder.encode", "sort.Slice"},
		{"encoding/json.Unmarshal", "encoding/json.(*decodeState).unmarshal",
			"encoding/json.(*decodeState).object",
			"encoding/json.(*decodeState).literalStore"},
		{"encoding/json.Unmarshal", "encoding/json.checkValid",
			"encoding/json.stateInString"}},
	{},
}

const (
	minutesPaths = 2000 // the paths the tail drifts through
	minutesLive  = 600  // paths running at one time
	minutesHot   = 120  // of which the first are always the same
)

func minutesMode(out string, n int, seed uint64) {
	g := newWorkload(minutesPaths, 24, seed)
	if err := os.MkdirAll(out, 0o755); err != nil {
		fatalf("%v", err)
	}
	end := timedEndNanos()
	var wg sync.WaitGroup
	var mu sync.Mutex
	all, week := map[stackKey]bool{}, map[stackKey]bool{}
	next := make(chan int, 64)
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var z gzipper
			for i := range next {
				start := end - int64(n-i)*int64(*timedStep)
				p, keys := minuteProfile(g, seed, i, start)
				writeFile(timedName(out, i), z.gzip(p))
				mu.Lock()
				for _, k := range keys {
					all[k] = true
					if i >= n-weekMinutes {
						week[k] = true
					}
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	// For the report: how many distinct stacks the profiles have.
	writeFile(filepath.Join(out, "STACKS"), []byte(fmt.Sprintf(
		"%d distinct stacks in all %d, %d in the last %d\n", len(all), n,
		len(week), min(n, weekMinutes))))
}

const weekMinutes = 7 * 24 * 60

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// A stack: a path, how deep in it the sample is (len(frames) is the leaf)
// and, in the leaf, which library call (0: the leaf's own code).
type stackKey struct {
	path, depth, tail int
}

func minuteProfile(g *workload, seed uint64, i int, start int64) ([]byte, []stackKey) {
	r := prng((seed*0x9e3779b97f4a7c15 ^ uint64(i+1)*0xbf58476d1ce4e5b9) | 1)
	counts := map[stackKey]int64{}
	var order []stackKey
	nsamples := *timedSamples * (90 + r.intn(21)) / 100
	shift := i / *timedDrift
	for s := 0; s < nsamples; s++ {
		u := float64(r.next()>>11) / (1 << 53)
		slot := int(u * u * u * minutesLive)
		path := slot
		if slot >= minutesHot {
			path = minutesHot + (slot-minutesHot+shift)%(minutesPaths-minutesHot)
		}
		p := &g.paths[path]
		k := stackKey{path: path, depth: r.intn(len(p.frames) + 1)}
		if k.depth == len(p.frames) {
			k.tail = r.intn(len(leafTails[p.leaf]) + 1)
		}
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k]++
	}

	w := newProfileWriter()
	for _, k := range order {
		w.sample(w.stack(g, k), counts[k])
	}
	return w.finish(start, int64(time.Minute)), order
}

// profileWriter builds one CPU profile: its own string, function and
// location tables, as runtime/pprof writes them.
type profileWriter struct {
	strings map[string]int64
	strtab  []string
	funcs   map[string]uint64
	locs    map[[2]uint64]uint64 // (function, line) -> location id
	samples bytes.Buffer
	tables  bytes.Buffer
}

func newProfileWriter() *profileWriter {
	w := &profileWriter{strings: map[string]int64{}, funcs: map[string]uint64{},
		locs: map[[2]uint64]uint64{}}
	w.str("")
	return w
}

func (w *profileWriter) str(s string) int64 {
	if id, ok := w.strings[s]; ok {
		return id
	}
	id := int64(len(w.strtab))
	w.strings[s] = id
	w.strtab = append(w.strtab, s)
	return id
}

func funcFile(name string) string {
	switch {
	case len(name) > 5 && name[:5] == "main.":
		return "/home/bench/gen/main.go"
	default:
		pkg := name
		for j := 0; j < len(pkg); j++ {
			if pkg[j] == '.' {
				pkg = pkg[:j]
				break
			}
		}
		return "/usr/lib/go/src/" + pkg + "/" + filepath.Base(pkg) + ".go"
	}
}

// function returns the id of a function, its start line as the second.
func (w *profileWriter) function(name string) (uint64, uint64) {
	id, ok := w.funcs[name]
	start := 40 + uint64(len(name))*17%900
	if !ok {
		id = uint64(len(w.funcs) + 1)
		w.funcs[name] = id
		var f bytes.Buffer
		putVarintField(&f, 1, id)
		putVarintField(&f, 2, uint64(w.str(name)))
		putVarintField(&f, 3, uint64(w.str(name)))
		putVarintField(&f, 4, uint64(w.str(funcFile(name))))
		putVarintField(&f, 5, start)
		putBytesField(&w.tables, 5, f.Bytes())
	}
	return id, start
}

// location: the id of the location of function name at line start+off.
func (w *profileWriter) location(name string, off uint64) uint64 {
	fid, start := w.function(name)
	key := [2]uint64{fid, off}
	if id, ok := w.locs[key]; ok {
		return id
	}
	id := uint64(len(w.locs) + 1)
	w.locs[key] = id
	var line, l bytes.Buffer
	putVarintField(&line, 1, fid)
	putVarintField(&line, 2, start+off)
	putVarintField(&l, 1, id)
	putVarintField(&l, 2, 1)
	putVarintField(&l, 3, funcAddress(name)+off*8)
	putBytesField(&l, 4, line.Bytes())
	putBytesField(&w.tables, 4, l.Bytes())
	return id
}

// funcAddress: where function name's code is, the same in every profile
// (a frame is its address too, not only its function and line).
func funcAddress(name string) uint64 {
	h := uint64(14695981039346656037)
	for j := 0; j < len(name); j++ {
		h = (h ^ uint64(name[j])) * 1099511628211
	}
	return 0x401000 + h%0x3ff00*0x10
}

// stack: the location ids of a stack, innermost first.
func (w *profileWriter) stack(g *workload, k stackKey) []uint64 {
	p := &g.paths[k.path]
	var outer []uint64 // outermost first
	for j, name := range rootFuncs {
		off := uint64(3)
		if j == len(rootFuncs)-1 {
			off = 2 // main.serve, calling the root frame
		}
		outer = append(outer, w.location(name, off))
	}
	for d := 0; d < len(p.frames) && d <= k.depth; d++ {
		off := uint64(2) // its own work
		if d < k.depth {
			off = 5 // calling the next frame
			if d == len(p.frames)-1 {
				off = 7 // calling the leaf
			}
		}
		outer = append(outer, w.location(mainFrameNames[p.frames[d]], off))
	}
	if k.depth == len(p.frames) {
		leaf := mainLeafNames[p.leaf]
		if k.tail == 0 {
			outer = append(outer, w.location(leaf, 3))
		} else {
			outer = append(outer, w.location(leaf, 4))
			tail := leafTails[p.leaf][k.tail-1]
			for j, name := range tail {
				off := uint64(6)
				if j == len(tail)-1 {
					off = 9
				}
				outer = append(outer, w.location(name, off))
			}
		}
	}
	for a, b := 0, len(outer)-1; a < b; a, b = a+1, b-1 {
		outer[a], outer[b] = outer[b], outer[a]
	}
	return outer
}

const cpuPeriod = 10000000 // 100 Hz

func (w *profileWriter) sample(locs []uint64, n int64) {
	var s, packed bytes.Buffer
	for _, id := range locs {
		putVarint(&packed, id)
	}
	putBytesField(&s, 1, packed.Bytes())
	packed.Reset()
	putVarint(&packed, uint64(n))
	putVarint(&packed, uint64(n*cpuPeriod))
	putBytesField(&s, 2, packed.Bytes())
	putBytesField(&w.samples, 2, s.Bytes())
}

func (w *profileWriter) finish(start, duration int64) []byte {
	var p bytes.Buffer
	valueType := func(field int, typ, unit string) {
		var v bytes.Buffer
		putVarintField(&v, 1, uint64(w.str(typ)))
		putVarintField(&v, 2, uint64(w.str(unit)))
		putBytesField(&p, field, v.Bytes())
	}
	valueType(1, "samples", "count")
	valueType(1, "cpu", "nanoseconds")
	p.Write(w.samples.Bytes())
	var m bytes.Buffer
	putVarintField(&m, 1, 1)
	putVarintField(&m, 2, 0x400000)
	putVarintField(&m, 3, 0x800000)
	putVarintField(&m, 5, uint64(w.str("/usr/local/bin/service")))
	putVarintField(&m, 7, 1)
	putBytesField(&p, 3, m.Bytes())
	p.Write(w.tables.Bytes())
	for _, s := range w.strtab {
		putBytesField(&p, 6, []byte(s))
	}
	putVarintField(&p, 9, uint64(start))
	putVarintField(&p, 10, uint64(duration))
	valueType(11, "cpu", "nanoseconds")
	putVarintField(&p, 12, cpuPeriod)
	return p.Bytes()
}

// ---------------------------------------------------------------------------
// retime

func retimeMode(out string, n int, _ uint64) {
	if *timedIn == "" {
		fatalf("retime needs -in")
	}
	if st, err := os.Stat(*timedIn); err == nil && st.IsDir() {
		retimeDir(out, n)
		return
	}
	raw := readProfile(*timedIn)
	if err := os.MkdirAll(out, 0o755); err != nil {
		fatalf("%v", err)
	}
	end := timedEndNanos()
	var z gzipper
	for i := 0; i < n; i++ {
		t := end - int64(n-1-i)*int64(*timedStep)
		writeFile(timedName(out, i), z.gzip(withTime(raw, t, 0)))
	}
}

// retimeDir: -in's profiles replayed cyclically, profile i lasting the
// step that ends (n-1-i) steps before -end.
func retimeDir(out string, n int) {
	names, err := filepath.Glob(filepath.Join(*timedIn, "*.pb.gz"))
	if err != nil || len(names) == 0 {
		fatalf("%s: no .pb.gz files", *timedIn)
	}
	sort.Strings(names)
	raws := make([][]byte, len(names))
	for i, name := range names {
		raws[i] = readProfile(name)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		fatalf("%v", err)
	}
	end := timedEndNanos()
	step := int64(*timedStep)
	d := step
	if !*timedSetDur {
		d = 0
	}
	// A month is 43,200 files to gzip: one writer per CPU.
	var wg sync.WaitGroup
	next := make(chan int, 64)
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var z gzipper
			for i := range next {
				t := end - int64(n-i)*step
				p := withTime(raws[i%len(raws)], t, d)
				writeFile(timedName(out, i), z.gzip(p))
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

// readProfile: a pprof file's protobuf, gunzipped when it is gzipped.
func readProfile(name string) []byte {
	raw, err := os.ReadFile(name)
	if err != nil {
		fatalf("%v", err)
	}
	if len(raw) > 2 && raw[0] == 0x1f && raw[1] == 0x8b {
		r, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			fatalf("%s: %v", name, err)
		}
		if raw, err = io.ReadAll(r); err != nil {
			fatalf("%s: %v", name, err)
		}
	}
	return raw
}

// withTime: the profile with its time_nanos (field 9) set to t and, when
// d is not 0, its duration_nanos (field 10) to d, every other top-level
// field as it was.
func withTime(p []byte, t, d int64) []byte {
	var b bytes.Buffer
	for off := 0; off < len(p); {
		f, _, _, _, n := pbField(p[off:])
		if n == 0 {
			fatalf("%s: a malformed field at byte %d", *timedIn, off)
		}
		if f != 9 && (f != 10 || d == 0) {
			b.Write(p[off : off+n])
		}
		off += n
	}
	putVarintField(&b, 9, uint64(t))
	if d != 0 {
		putVarintField(&b, 10, uint64(d))
	}
	return b.Bytes()
}

// ---------------------------------------------------------------------------
// protobuf and gzip

func putVarint(b *bytes.Buffer, v uint64) {
	var tmp [binary.MaxVarintLen64]byte
	b.Write(tmp[:binary.PutUvarint(tmp[:], v)])
}

func putVarintField(b *bytes.Buffer, field int, v uint64) {
	putVarint(b, uint64(field)<<3)
	putVarint(b, v)
}

func putBytesField(b *bytes.Buffer, field int, v []byte) {
	putVarint(b, uint64(field)<<3|2)
	putVarint(b, uint64(len(v)))
	b.Write(v)
}

// gzipper compresses as runtime/pprof does (gzip.BestSpeed), one writer
// reused (a new one costs more than the compression of a small profile).
type gzipper struct {
	z *gzip.Writer
	b bytes.Buffer
}

func (g *gzipper) gzip(p []byte) []byte {
	g.b.Reset()
	if g.z == nil {
		var err error
		if g.z, err = gzip.NewWriterLevel(&g.b, gzip.BestSpeed); err != nil {
			fatalf("%v", err)
		}
	} else {
		g.z.Reset(&g.b)
	}
	if _, err := g.z.Write(p); err != nil {
		fatalf("%v", err)
	}
	if err := g.z.Close(); err != nil {
		fatalf("%v", err)
	}
	return g.b.Bytes()
}
