#!/usr/bin/env bash
# setup.sh: install what a fresh Debian 12 machine lacks (as root, with
# apt-get) and build profd and profctl into build/ (or $BUILD_DIR).
#   contrib/setup.sh [extra cmake -D options...]
set -euo pipefail
cd "$(dirname "$0")/.."

# libre2-dev: Go's regular expression syntax (as pprof's filters) in
# linear time with a memory budget, for focus/ignore/hide/show and
# drop_frames (daemon/base/rx.cc; build-essential brings its g++).
# libssl-dev: TLS on listen-tcp and https to ClickHouse, through
# libevent's OpenSSL bufferevents (libevent-dev's libevent_openssl);
# openssl: the command the TLS tests make their certificates with.
pkgs=(build-essential cmake pkg-config curl python3 gzip
      libevent-dev libsqlite3-dev zlib1g-dev libsystemd-dev libjansson-dev
      libre2-dev libssl-dev openssl)
# The tests also use Go (fixture regeneration, pprof comparisons) and a
# real browser for the flame graph (Chromium driven by Node's
# playwright-core, installed into the build directory by the test; so is
# the Pyroscope Node.js client, @pyroscope/nodejs, for test_pyroscope_node,
# and a Connect client for test_querier, whose .proto files protoc, from
# protobuf-compiler, compiles).
# clang-14 and libclang-rt-14-dev build the libFuzzer harnesses of
# tests/fuzz (gcc has no libFuzzer). clickhouse-server and -client: the
# fleet tests start their own ClickHouse as a user process on loopback
# ports (the package's system service is not used).  debhelper (with
# dpkg-dev, from build-essential) and lintian: test_package builds profd's
# Debian package (contrib/package.sh) and checks it.  stress-ng: the CPU
# hogs of tests/tools/under-load, which runs the suite with every core
# busy (a test that passes only on a quiet machine fails there).
# python3-protobuf: test_otlp encodes OpenTelemetry's profiles requests
# with a real protobuf library, from the opentelemetry-proto files
# protoc compiles for it.
# linux-perf: test_perf_script records a C program with perf record -g
# and compares profctl top with perf report.
if [ "${PROFD_WITH_GO:-0}" = 1 ]; then
	pkgs+=(linux-perf)
	pkgs+=(golang-go chromium systemd clang-14 libclang-rt-14-dev
	    clickhouse-server clickhouse-client protobuf-compiler
	    debhelper lintian stress-ng python3-protobuf)
	command -v node >/dev/null || pkgs+=(nodejs)
	command -v npm >/dev/null || pkgs+=(npm)
fi
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
	    missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup: missing packages: ${missing[*]} (run as root to install)" >&2
		exit 1
	fi
	echo "setup: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

build=${BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
