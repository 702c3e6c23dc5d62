#!/usr/bin/env bash
# trace-import.sh: peak RSS of profd and samples per second while it
# imports a generated Perfetto trace of SIZE bytes (default 1 GiB).
#   bench/trace-import.sh [BUILD_DIR] [SIZE]
# Prints one line per figure; the trace and the store live in a temp dir.
set -euo pipefail
b=$(cd "${1:-build}" && pwd)
size=${2:-1073741824}
t=$(mktemp -d "${TMPDIR:-/tmp}/profd-bench.XXXXXX")
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$t"' EXIT

"$b/gen-trace" "$t/trace.pftrace" "$size" 2>"$t/gen.txt"
samples=$(sed -n 's/.* \([0-9]*\) samples$/\1/p' "$t/gen.txt")

/usr/bin/time -v "$b/profd" --foreground --socket "$t/s.sock" --db "$t/db" \
    --max-upload 64G 2>"$t/time.txt" &
pid=$!
for _ in $(seq 100); do [ -S "$t/s.sock" ] && break; sleep 0.05; done
start=$(date +%s.%N)
"$b/profctl" --socket "$t/s.sock" push "$t/trace.pftrace" --scope bench \
    >"$t/push.txt"
end=$(date +%s.%N)
# The profd process under time(1) is its child; stop it to get the figures.
kill -TERM "$(pgrep -P "$pid" profd || echo "$pid")" 2>/dev/null || true
wait "$pid" || true
rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$t/time.txt")
python3 - "$size" "$samples" "$start" "$end" "$rss" <<'PY'
import sys
size, samples, start, end, rss = sys.argv[1:]
secs = float(end) - float(start)
print("trace bytes        %d" % int(size))
print("samples            %d" % int(samples))
print("push+import time   %.1f s" % secs)
print("samples per second %.0f" % (int(samples) / secs))
print("MB per second      %.1f" % (int(size) / secs / 1e6))
print("profd peak RSS     %.1f MiB" % (int(rss) / 1024))
PY
cat "$t/push.txt"
