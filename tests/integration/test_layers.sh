#!/usr/bin/env bash
# test_layers.sh: the shape docs/ARCHITECTURE.md describes holds: no two
# files of the daemon call each other both ways (from the symbols of the
# built objects), and no source file (.c, .cc, .js) of daemon/, client/
# or web/ is over 800 lines.
# (That a layer includes no header of a layer above it is checked by the
# build itself: each layer's include path holds only what it may use.)
. "$(dirname "$0")/lib.sh"
: "${BUILD_DIR:?BUILD_DIR must name the build directory}"
command -v nm >/dev/null || { echo "skip: nm (binutils) is missing"; exit 77; }

python3 "$TESTS_DIR/tools/twoway.py" "$BUILD_DIR" ||
	fail "files that call each other both ways (above)"
ok "no two files of the daemon call each other both ways"

src=$(cd "$TESTS_DIR/.." && pwd)
long=$(find "$src/daemon" "$src/client" "$src/web" -type f \
    \( -name '*.c' -o -name '*.cc' -o -name '*.js' \) -exec wc -l {} + |
    awk '$2 != "total" && $1 > 800')
[ -z "$long" ] || fail "source files over 800 lines: $long"
ok "no .c, .cc or .js file in daemon/, client/ or web/ is over 800 lines"
