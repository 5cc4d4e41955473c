#!/usr/bin/env bash
# Where a CI run's time goes: one row a phase (install, the build, the venvs, the Swift tests,
# each integration file, the fuzz build and each fuzz target) with when it started and ended,
# counted from the run's start, so that phases that overlap show it. .ci/run prints it at its end.
#
#   scripts/ci-phases.sh                 run .ci/run (which prints the table); exit: .ci/run's
#   scripts/ci-phases.sh --table FILE    the table of a run's phases file (.build-phases.tsv)
#
# scripts/phase writes the file's lines (PUSHLAB_PHASES names it), and the integration suite adds
# one a test file (Tests/Integration/conftest.py).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

table() {
    python3 - "$1" <<'PY'
import sys
rows = []
for line in open(sys.argv[1]):
    parts = line.rstrip("\n").split("\t")
    if len(parts) == 4:
        rows.append((parts[0], float(parts[1]), float(parts[2]), parts[3]))
if not rows:
    sys.exit("ci-phases: no phases recorded in " + sys.argv[1])
origin = min(start for _, start, _, _ in rows)
steps = [r for r in rows if not r[0].startswith("integration/")]
files = sorted((r for r in rows if r[0].startswith("integration/")), key=lambda r: r[1] - r[2])
def show(title, rows):
    print(f"| {title} | starts at | ends at | seconds | status |")
    print("|---|---:|---:|---:|---|")
    for name, start, end, status in rows:
        print(f"| {name} | {start - origin:,.0f} | {end - origin:,.0f} | {end - start:,.0f} | {'ok' if status == '0' else 'exit ' + status} |")
show("phase", sorted(steps, key=lambda r: r[1]))
if files:
    print()
    show("integration file (longest first)", files)
print()
print(f"whole run: {max(end for _, _, end, _ in rows) - origin:,.0f} s")
PY
}

if [[ ${1:-} == --table ]]; then
    table "${2:?usage: scripts/ci-phases.sh --table FILE}"
    exit
fi
exec bash "$ROOT/.ci/run"
