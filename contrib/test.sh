#!/usr/bin/env bash
# test.sh: set up (with Go, so the fixture generator is exercised too),
# build with warnings as errors and run every test with ctest.
# Then the fuzz harnesses of tests/fuzz, built with clang's libFuzzer in
# build-fuzz/: each replays every crash input ever found and its corpus,
# then makes a fixed number of mutations from a fixed seed
# (tests/fuzz/runs.txt, about 5 s each), so a commit's result does not
# depend on the machine's speed or luck; tests/fuzz/run-long fuzzes for
# hours.
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
# Each step's time, said at the end (where CI's minutes go).
steps=()
step() {
	local name=$1 t0=$SECONDS
	shift
	"$@"
	steps+=("$name $((SECONDS - t0)) s")
	echo "test.sh: $name took $((SECONDS - t0)) s" >&2
}
# The tests' generated inputs (a 25 MB profile: 20 s of Python) are the
# same in both passes: made once, in the plain build's directory.
export PROFD_TEST_INPUTS=${PROFD_TEST_INPUTS:-$PWD/build/test-inputs}
step "set-up and build ($BUILD_DIR)" env PROFD_WITH_GO=1 contrib/setup.sh "${opts[@]}"
# Three tests at a time on 2 cores: a test waits for its daemons and
# servers about a quarter of its time, and no test depends on having a
# core to itself (tests/tools/under-load).  PROFD_TEST_JOBS says otherwise.
step "ctest ($BUILD_DIR)" bash -c 'cd "$BUILD_DIR" && ctest --output-on-failure -j "${PROFD_TEST_JOBS:-3}" --timeout 600'
# The fuzz run once, with the plain test run (its harnesses carry ASan and
# UBSan already).
if [ "${1:-}" != --sanitize ]; then
	fuzz_build() {
		CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz \
		    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPROFD_WERROR=ON \
		    -DPROFD_FUZZ=ON >/dev/null
		cmake --build build-fuzz -j "$(nproc)" --target fuzzers
	}
	step "fuzz build" fuzz_build
	step "fuzz" bash -c 'cd build-fuzz && ctest --output-on-failure -j 2 -L fuzz'
fi
echo "test.sh: ${steps[*]/%/;}" >&2
