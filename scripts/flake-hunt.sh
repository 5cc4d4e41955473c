#!/usr/bin/env bash
# Hunts flaky integration tests: runs the whole integration suite N times in a row against the
# built pushlab while another build keeps both cores busy beside it (a release build of this
# package in a scratch path of its own, started again whenever it finishes), then prints one row
# a run: its time and the tests that failed.
#
#   scripts/flake-hunt.sh [--runs N] [--no-load] [pytest args...]   (default: 5 runs)
#
# Build first (make test-all, or swift build --build-tests). Each run's output and junit file are
# in .build-flakes/. Exits 1 if any run failed.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
RUNS=5
LOAD=1
while (($#)); do
    case "$1" in
        --runs) RUNS="$2"; shift 2 ;;
        --no-load) LOAD=0; shift ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        *) break ;;
    esac
done
OUT="$ROOT/.build-flakes"
mkdir -p "$OUT"
BIN="$ROOT/.build/debug/pushlab"
[[ -x $BIN ]] || { echo "flake-hunt: build first: $BIN is missing" >&2; exit 2; }

load_pid=""
stop_load() {
    [[ -n $load_pid ]] && kill -- -"$load_pid" 2>/dev/null
    wait 2>/dev/null
}
trap stop_load EXIT
if ((LOAD)); then
    # The other build: the whole graph, optimized, again and again, in its own process group.
    setsid bash -c "while true; do rm -rf '$OUT/other-build'; swift build -c release --scratch-path '$OUT/other-build' >'$OUT/other-build.log' 2>&1; done" &
    load_pid=$!
fi

status=0
rows=()
for ((run = 1; run <= RUNS; run++)); do
    start=$(date +%s)
    PUSHLAB_BIN="$BIN" PUSHLAB_DIST_BIN="$BIN" Tests/Integration/run.sh --junitxml="$OUT/run-$run.xml" "$@" >"$OUT/run-$run.log" 2>&1
    result=$?
    took=$(($(date +%s) - start))
    failed=$(python3 - "$OUT/run-$run.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except (OSError, ET.ParseError):
    print("(no junit file)")
    sys.exit()
names = [f"{case.get('classname')}::{case.get('name')}" for case in root.iter("testcase")
         if case.find("failure") is not None or case.find("error") is not None]
print(", ".join(names) if names else "none")
PY
)
    summary=$(grep -E '^[0-9]+ (passed|failed)|(passed|failed).* in [0-9.]+s' "$OUT/run-$run.log" | tail -1)
    rows+=("| $run | $took | ${summary:-?} | $failed |")
    echo "flake-hunt: run $run: exit $result in ${took}s: $summary" >&2
    ((result == 0)) || status=1
done
echo "| run | seconds | pytest | failed tests |"
echo "|---:|---:|---|---|"
printf '%s\n' "${rows[@]}"
exit "$status"
