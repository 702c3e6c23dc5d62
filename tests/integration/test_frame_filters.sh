# focus, ignore, hide and show, and the line and file granularities, give
# the same top as go tool pprof's flags
# of the same names on the real CPU and heap fixtures: every row's flat and
# cum, their order, the (inline) marks and the total.  Needs go.
. "$(dirname "$0")/lib.sh"
command -v go >/dev/null 2>&1 || { echo "SKIP: go not installed"; exit 77; }
start_profd
"$PROFCTL" push "$FIXTURES/cpu.pprof" --scope cpu >/dev/null
"$PROFCTL" push "$FIXTURES/heap.pprof" --scope heap >/dev/null

compare() {	# scope profile metric unit name=regex...
	local scope=$1 prof=$2 metric=$3 unit=$4 q="" flags=() kv
	shift 4
	for kv in "$@"; do
		case "$kv" in
		granularity=*)	# pprof's -lines / -files
			q="$q&$kv"
			[ "${kv#*=}" = function ] || flags+=("-${kv#*=}s")
			continue ;;
		esac
		q="$q&$(python3 -c 'import sys,urllib.parse as u; k,v=sys.argv[1].split("=",1); print(k+"="+u.quote(v))' "$kv")"
		flags+=("-${kv%%=*}=${kv#*=}")
	done
	body_of "$(api GET "/v1/top?scope=$scope&metric=$metric$q")" >"$T/got.json"
	TZ=UTC go tool pprof -symbolize=none -top -nodefraction=0 -nodecount=100000 \
	    -sample_index="$metric" -unit="$unit" "${flags[@]}" "$FIXTURES/$prof" \
	    >"$T/want.txt" 2>/dev/null || fail "go tool pprof ${flags[*]}"
	python3 "$TESTS_DIR/tools/pprof_top.py" "$T/want.txt" "$T/got.json" "$unit" ||
	    fail "top with $* differs from pprof ${flags[*]}"
	echo "   $* : $(json 'len(j["rows"])' <"$T/got.json") rows"
}

compare cpu cpu.pprof cpu ns 'focus=main\.fib'
compare cpu cpu.pprof cpu ns 'ignore=sha256|crc32'
compare cpu cpu.pprof cpu ns 'hide=^runtime'
compare cpu cpu.pprof cpu ns 'show=^main\.'
compare cpu cpu.pprof cpu ns 'focus=Phase' 'hide=pprof\.Do'
compare cpu cpu.pprof cpu ns 'hide=main\.mix64'
compare cpu cpu.pprof samples count 'focus=main\.(escapeTime|dot)' 'ignore=fib'
compare heap heap.pprof alloc_space B 'focus=main\.' 'hide=^runtime'
# Go's syntax, which POSIX regcomp refused: flags, Unicode classes, \d.
compare cpu cpu.pprof cpu ns 'focus=(?i)MAIN\.(FIB|DOT)' 'hide=^runtime\.\p{Ll}'
compare cpu cpu.pprof cpu ns 'ignore=\bsort\b' 'show=\Amain\.|fast\d+\z'
ok "focus/ignore/hide/show: the same top as pprof's flags, row for row"

compare cpu cpu.pprof cpu ns granularity=line
compare cpu cpu.pprof cpu ns granularity=file
compare cpu cpu.pprof cpu ns granularity=line 'focus=main\.fib'
compare heap heap.pprof inuse_space B granularity=file
ok "granularity=line and file: the same top as pprof -lines and -files"

r=$(api GET "/v1/top?scope=cpu&focus=%28unclosed")
[ "$(status_of "$r")" = 400 ] || fail "bad regex: $r"
case "$(body_of "$r" | json 'j["detail"]')" in *focus*) ;; *) fail "no parameter in: $r" ;; esac
ok "a regex that does not compile: 400 naming the parameter"
