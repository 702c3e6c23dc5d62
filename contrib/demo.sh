#!/usr/bin/env bash
# demo.sh: set up, start profd on its local defaults (unless one already
# answers), push the bundled real CPU profile and print its top functions.
# PROFD_DEMO_SETUP=0 skips the set-up: tests/integration/test_start_modes.sh
# runs the rest as it stands, on the build BUILD_DIR names.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${PROFD_DEMO_SETUP:-1}" = 0 ] || contrib/setup.sh
b=${BUILD_DIR:-build}
if ! "$b/profctl" scopes >/dev/null 2>&1; then
	"$b/profd"		# detaches once its socket listens
fi
"$b/profctl" push tests/fixtures/cpu.pprof --scope demo
"$b/profctl" top --scope demo --limit 15
