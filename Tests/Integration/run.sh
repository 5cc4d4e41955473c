#!/usr/bin/env bash
# Black-box integration tests of the pushlab binary with real clients
# (curl, nghttp, h2load, Python h2, aioapns).
#
#   Tests/Integration/run.sh [--quick] [pytest args...]
#
# --quick: not the long files (LONG_FILES in conftest.py: the client matrix, the cluster, the
# crash soak, the tarball and image, ...), the suite `make test` runs; `make test-all` runs all.
# PUSHLAB_BIN: the binary to test (default: $(swift build --show-bin-path)/pushlab;
# --show-bin-path only prints the path, it builds nothing).
# Installs what is missing first (setup.sh: Debian's curl, openssl and nghttp2-client, the venvs).
# Runs three test files at a time (pytest-xdist); PYTEST_WORKERS=0 runs them one after another.
# Exits with pytest's status.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$ROOT"

QUICK=()
if [[ ${1:-} == --quick ]]; then
    QUICK=(--quick)
    shift
fi
"$HERE/setup.sh" "${QUICK[@]}"
VENV="$HERE/.venv"

# --- The binary under test --------------------------------------------------------
if [ -z "${PUSHLAB_BIN:-}" ]; then
    bin_path="$(swift build --show-bin-path)"
    PUSHLAB_BIN="$bin_path/pushlab"
fi
export PUSHLAB_BIN
echo "run.sh: testing $PUSHLAB_BIN" >&2

set +e
# Three files at a time (PYTEST_WORKERS, 0 for one process): the suite waits on its servers and
# clients more than on the processor, so on two cores a third worker still gains (measured:
# 190 s with two, 166 s with three). A file's tests stay in one worker, with its fixtures.
"$VENV/bin/python" -m pytest -q -n "${PYTEST_WORKERS:-3}" --dist loadfile Tests/Integration "${QUICK[@]}" "$@"
status=$?
set -e
exit "$status"
