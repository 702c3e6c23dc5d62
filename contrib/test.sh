#!/usr/bin/env bash
# test.sh: set up (with Go, so the fixture generator is exercised too),
# build with warnings as errors and run every test with ctest.
#   contrib/test.sh [--sanitize]
set -euo pipefail
cd "$(dirname "$0")/.."
opts=(-DPROFD_WERROR=ON)
export BUILD_DIR=${BUILD_DIR:-build}
if [ "${1:-}" = --sanitize ]; then
	opts+=(-DPROFD_SANITIZE=ON)
	export BUILD_DIR=build-sanitize
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
	export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
fi
PROFD_WITH_GO=1 contrib/setup.sh "${opts[@]}"
cd "$BUILD_DIR"
ctest --output-on-failure -j 2 --timeout 600
