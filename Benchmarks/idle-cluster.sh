#!/usr/bin/env bash
# What an idle Pushlab cluster costs: three nodes and six Redis servers (scripts/cluster.sh), no
# load, measured for SECONDS after a settling pause. Prints the CPU of the nodes and of the Redis
# servers in % of one core (from /proc), and the engine's commands a second by name (INFO
# commandstats of the masters; a script's own calls count under their names too). Not a test.
#
#   Benchmarks/idle-cluster.sh [--seconds N] [--settle N]
#
# PUSHLAB_BIN: the pushlab to run (default: the release build in .build-release). Work files in
# Benchmarks/.work-idle/. Needs redis-server, redis-cli and haproxy.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/.." && pwd)
SECONDS_MEASURED=20
SETTLE=5
while [ $# -gt 0 ]; do
    case $1 in
        --seconds) SECONDS_MEASURED=$2; shift 2 ;;
        --settle) SETTLE=$2; shift 2 ;;
        *) echo "usage: $0 [--seconds N] [--settle N]" >&2; exit 2 ;;
    esac
done
export PUSHLAB_BIN=${PUSHLAB_BIN:-$REPO/.build-release/release/pushlab}
[ -x "$PUSHLAB_BIN" ] || { echo "no pushlab at $PUSHLAB_BIN (swift build -c release --scratch-path .build-release, or set PUSHLAB_BIN)" >&2; exit 1; }
export PUSHLAB_CLUSTER_DIR=$SCRIPT_DIR/.work-idle PUSHLAB_CLUSTER_REDIS=27200 PUSHLAB_CLUSTER_NODES=28100 PUSHLAB_CLUSTER_FRONT=29397
redis_ports=(27200 27201 27202 27203 27204 27205)
trap '"$REPO/scripts/cluster.sh" down >/dev/null 2>&1 || true' EXIT
"$REPO/scripts/cluster.sh" up >/dev/null
sleep "$SETTLE"

node_pids=$(cat "$PUSHLAB_CLUSTER_DIR"/node-*.pid)
redis_pids=$(for port in "${redis_ports[@]}"; do redis-cli -p "$port" info server | tr -d '\r' | awk -F: '/^process_id/ {print $2}'; done)
ticks() { # user + system clock ticks of the processes given
    local total=0
    for pid in "$@"; do
        read -r user system < <(cut -d' ' -f14,15 "/proc/$pid/stat")
        total=$((total + user + system))
    done
    echo "$total"
}
for port in "${redis_ports[@]}"; do redis-cli -p "$port" config resetstat >/dev/null; done
# shellcheck disable=SC2086
nodes_before=$(ticks $node_pids); redis_before=$(ticks $redis_pids)
sleep "$SECONDS_MEASURED"
# shellcheck disable=SC2086
nodes_after=$(ticks $node_pids); redis_after=$(ticks $redis_pids)
stats=$(for port in "${redis_ports[@]}"; do redis-cli -p "$port" info commandstats | tr -d '\r' | grep '^cmdstat_'; done)

python3 - "$(getconf CLK_TCK)" "$SECONDS_MEASURED" "$nodes_before" "$nodes_after" "$redis_before" "$redis_after" "$stats" <<'EOF2'
import re, sys
hz, seconds = int(sys.argv[1]), float(sys.argv[2])
nodes = (int(sys.argv[4]) - int(sys.argv[3])) / hz / seconds * 100
redis = (int(sys.argv[6]) - int(sys.argv[5])) / hz / seconds * 100
calls = {}
for line in sys.argv[7].splitlines():
    match = re.match(r"cmdstat_([^:]+):calls=(\d+)", line)
    if match: calls[match.group(1)] = calls.get(match.group(1), 0) + int(match.group(2))
print(f"| idle, {seconds:.0f} s | % of a core |")
print("|---|---:|")
print(f"| three nodes | {nodes:.1f} |")
print(f"| six Redis servers | {redis:.1f} |")
print(f"| **cluster** | **{nodes + redis:.1f}** |")
print()
print("| command | calls a second |")
print("|---|---:|")
for name, count in sorted(calls.items(), key=lambda item: -item[1]):
    if count / seconds >= 1: print(f"| {name} | {count / seconds:,.0f} |")
EOF2
