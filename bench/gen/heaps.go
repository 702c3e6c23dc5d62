package main

// heaps writes DIR/0001.pb.gz ... DIR/N.pb.gz, heap profiles of the
// running workload -every D apart, as a service's heap snapshots
// (runtime/pprof's "heap" profile at the default MemProfileRate, 512 KiB,
// as net/http/pprof serves it).  The workload then allocates and frees as
// a service does: every request's leaf keeps what it made in a ring of
// its worker (a cache, sessions) that drops the oldest, so the in-use
// heap is tens of megabytes spread over the call paths and changes from
// snapshot to snapshot, while the leaves' garbage feeds the alloc_*
// counters.

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"time"
)

var heapsEvery = flag.Duration("every", time.Second, "heaps: time between snapshots")

const (
	ringSlots = 8192 // what one worker keeps: ~17 MB at 2 kB a slot
	ringMax   = 4096 // largest kept allocation, bytes
)

type ring struct {
	slots [][]byte
	r     prng
}

func newRing(id int) *ring {
	return &ring{slots: make([][]byte, ringSlots), r: prng(uint64(id+7)*0x9e3779b97f4a7c15 | 1)}
}

// keep allocates what the request keeps, in the leaf that called it (the
// allocation's stack is the request's path), over a random older slot.
//
//go:noinline
func (c *call) keep() {
	n := 64 + int(c.h%ringMax)
	b := make([]byte, n)
	b[0] = byte(c.h)
	c.ring.slots[c.ring.r.intn(ringSlots)] = b
}

func heapsMode(out string, n int, seed uint64) {
	g := newWorkload(500, 24, seed)
	g.keep = true
	if err := os.MkdirAll(out, 0o755); err != nil {
		fatalf("%v", err)
	}
	g.start(2)
	// The rings fill before the first snapshot.
	time.Sleep(10 * time.Second)
	next := time.Now()
	for i := 1; i <= n; i++ {
		next = next.Add(*heapsEvery)
		time.Sleep(time.Until(next))
		var b bytes.Buffer
		if err := pprof.Lookup("heap").WriteTo(&b, 0); err != nil {
			fatalf("heap profile: %v", err)
		}
		writeFile(filepath.Join(out, fmt.Sprintf("%04d.pb.gz", i)), b.Bytes())
	}
	g.stop()
}

func init() { timedModes["heaps"] = heapsMode }
