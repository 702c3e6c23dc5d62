package main

// stats checks recorded profiles: for each .pb.gz file of -in (a file or
// a directory), its samples (the sum of the first value), sample records
// (pprof's samples: a stack and its labels) and distinct stacks (distinct
// sequences of location ids, labels aside), written to -o as
// tab-separated lines "file samples records stacks", and checked against
// -min-stacks: bench/issue41 records real profiles of at least 700
// distinct stacks each, as a busy service's 1-minute profile has.

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

var statsMinStacks = flag.Int("min-stacks", 0, "stats: fail when a profile has fewer distinct stacks")

func init() { timedModes["stats"] = statsMode }

func statsMode(out string, _ int, _ uint64) {
	if *timedIn == "" {
		fatalf("stats needs -in")
	}
	names := []string{*timedIn}
	if st, err := os.Stat(*timedIn); err == nil && st.IsDir() {
		names, _ = filepath.Glob(filepath.Join(*timedIn, "*.pb.gz"))
		sort.Strings(names)
	}
	if len(names) == 0 {
		fatalf("%s: no .pb.gz files", *timedIn)
	}
	var b strings.Builder
	low := 0
	for _, name := range names {
		samples, records, stacks := profileStats(readProfile(name))
		fmt.Fprintf(&b, "%s\t%d\t%d\t%d\n", filepath.Base(name), samples,
			records, stacks)
		if stacks < *statsMinStacks {
			low++
		}
	}
	writeFile(out, []byte(b.String()))
	if low > 0 {
		fatalf("%d of %d profiles have fewer than %d distinct stacks (%s)",
			low, len(names), *statsMinStacks, out)
	}
}

// profileStats walks a pprof protobuf's samples (field 2: location ids
// 1, values 2, labels 3).
func profileStats(p []byte) (samples int64, records, stacks int) {
	seen := map[string]bool{}
	for off := 0; off < len(p); {
		field, typ, val, body, n := pbField(p[off:])
		if n <= 0 {
			fatalf("%s: bad protobuf at byte %d", *timedIn, off)
		}
		off += n
		_ = val
		if field != 2 || typ != 2 {
			continue
		}
		records++
		var key bytes.Buffer
		first := true
		for o := 0; o < len(body); {
			f, t, v, sub, k := pbField(body[o:])
			if k <= 0 {
				fatalf("%s: bad sample at byte %d", *timedIn, off)
			}
			o += k
			switch {
			case f == 1 && t == 2: // packed location ids
				key.Write(sub)
			case f == 1 && t == 0:
				putVarint(&key, v)
			case f == 2 && t == 2 && first:
				x, _ := binary.Uvarint(sub)
				samples += int64(x)
				first = false
			case f == 2 && t == 0 && first:
				samples += int64(v)
				first = false
			}
		}
		seen[key.String()] = true
	}
	return samples, records, len(seen)
}

// pbField reads one field: its number, wire type, varint value or
// length-delimited body, and its length in bytes (0 when malformed).
func pbField(p []byte) (field uint64, typ uint64, v uint64, body []byte, n int) {
	key, k := binary.Uvarint(p)
	if k <= 0 {
		return 0, 0, 0, nil, 0
	}
	n = k
	field, typ = key>>3, key&7
	switch typ {
	case 0:
		v, k = binary.Uvarint(p[n:])
		if k <= 0 {
			return 0, 0, 0, nil, 0
		}
		n += k
	case 1:
		n += 8
	case 5:
		n += 4
	case 2:
		l, k := binary.Uvarint(p[n:])
		if k <= 0 || l > uint64(len(p)-n-k) {
			return 0, 0, 0, nil, 0
		}
		n += k
		body = p[n : n+int(l)]
		n += int(l)
	default:
		return 0, 0, 0, nil, 0
	}
	if n > len(p) {
		return 0, 0, 0, nil, 0
	}
	return field, typ, v, body, n
}
