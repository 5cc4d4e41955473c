#!/usr/bin/env bash
# What a cluster node holds of a scenario's phones, against one process, on this machine: each
# started with the same scenario of PHONES generated phones and measured once ready and settled
# (resident memory, /proc/PID/status VmRSS). Prints a Markdown table (not a test):
#
#   - one process with no phones (what every process holds anyway), and with PHONES;
#   - each node of a three-node cluster (scripts/cluster.sh) with PHONES: it makes only the
#     phones of its partitions and keeps a token record for every other phone;
#   - per phone of the scenario: (resident - the empty process's) / PHONES.
#
#   Benchmarks/cluster-memory.sh [--phones N] [--no-build]
#
# PUSHLAB_BIN: the pushlab to run (default: a release build). Needs redis-server, redis-cli and
# haproxy. Work files in Benchmarks/.work-cluster-memory/.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/.." && pwd)
WORK=$SCRIPT_DIR/.work-cluster-memory
PHONES=1000000
BUILD=1
while [ $# -gt 0 ]; do
    case $1 in
        --phones) PHONES=$2; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        *) echo "usage: $0 [--phones N] [--no-build]" >&2; exit 2 ;;
    esac
done
for tool in redis-server redis-cli haproxy curl python3; do
    command -v "$tool" >/dev/null || { echo "$tool is missing (scripts/install-deps.sh)" >&2; exit 1; }
done
if [ -z "${PUSHLAB_BIN:-}" ]; then
    if [ $BUILD -eq 1 ]; then (cd "$REPO" && swift build -c release --scratch-path .build-release --product pushlab >&2); fi
    PUSHLAB_BIN=$REPO/.build-release/release/pushlab
fi
export PUSHLAB_BIN
rm -rf "$WORK"
mkdir -p "$WORK"
log() { echo "cluster memory: $*" >&2; }

scenario() { # phones file
    cat >"$2" <<EOF2
name: cluster-memory
keys:
  - keyId: PUSHLAB001
    teamId: TEAMPUSHLB
    privateKey: $REPO/certs/AuthKey_PUSHLAB001.p8
apps:
  - bundleId: com.pushlab.demo
    teamId: TEAMPUSHLB
generatedDevices:
  - count: $1
    bundleId: com.pushlab.demo
    prefix: be
    idPrefix: phone
    state: background
EOF2
}
scenario 0 "$WORK/empty.yaml"
scenario "$PHONES" "$WORK/phones.yaml"

rss() { awk '/^VmRSS/ {print $2 * 1024}' "/proc/$1/status"; }

# One process with `scenario`: its resident bytes once ready (and a second to settle).
single() {
    "$PUSHLAB_BIN" serve --scenario "$1" --db :memory: --development-port 29197 --production-port 29196 \
        --control-port 29198 --channel-management-port off >"$WORK/single.log" 2>&1 &
    local pid=$!
    for _ in $(seq 1 1200); do grep -q '^Ready' "$WORK/single.log" && break; sleep 0.1; done
    sleep 15
    rss $pid
    kill -TERM $pid; wait $pid || true
}
log "one process, no phones"
empty=$(single "$WORK/empty.yaml")
log "one process, $PHONES phones"
whole=$(single "$WORK/phones.yaml")

log "a cluster of three nodes, $PHONES phones"
export PUSHLAB_CLUSTER_DIR=$WORK/cluster PUSHLAB_CLUSTER_REDIS=27100 PUSHLAB_CLUSTER_NODES=28000 PUSHLAB_CLUSTER_FRONT=29297
trap '"$REPO/scripts/cluster.sh" down >/dev/null 2>&1 || true' EXIT
"$REPO/scripts/cluster.sh" up -- --scenario "$WORK/phones.yaml" >"$WORK/cluster-up.txt"
# Settled: the three shares add up to every phone.
for _ in $(seq 1 600); do
    made=$(for n in 1 2 3; do curl -s "http://127.0.0.1:$((28000 + 10 * n + 2))/v1/health" | python3 -c 'import json, sys; print(json.load(sys.stdin)["cluster"]["simulatedDevices"])' 2>/dev/null || echo 0; done | python3 -c 'import sys; print(sum(int(x) for x in sys.stdin))')
    [ "$made" = "$PHONES" ] && break
    sleep 0.5
done
# What the allocator keeps of freed memory goes back within its decay time (10 s).
sleep 15
nodes=()
shares=()
for n in 1 2 3; do
    nodes+=("$(rss "$(cat "$PUSHLAB_CLUSTER_DIR/node-$n.pid")")")
    shares+=("$(curl -s "http://127.0.0.1:$((28000 + 10 * n + 2))/v1/health" | python3 -c 'import json, sys; print(json.load(sys.stdin)["cluster"]["simulatedDevices"])')")
done
"$REPO/scripts/cluster.sh" down >/dev/null
trap - EXIT

python3 - "$PHONES" "$empty" "$whole" "${nodes[*]}" "${shares[*]}" <<'EOF'
import sys
phones, empty, whole = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
nodes = [int(x) for x in sys.argv[4].split()]
shares = [int(x) for x in sys.argv[5].split()]
mb = lambda b: f"{b / 1e6:,.0f} MB"
print(f"| {phones:,} phones | phones made | resident | per phone of the scenario | / one process |")
print("|---|---:|---:|---:|---:|")
print(f"| one process, no phones | 0 | {mb(empty)} | | |")
print(f"| one process | {phones:,} | {mb(whole)} | {(whole - empty) / phones:,.0f} B | 1.00 |")
for n, (rss, share) in enumerate(zip(nodes, shares), 1):
    print(f"| node-{n} of 3 | {share:,} | {mb(rss)} | {(rss - empty) / phones:,.0f} B | {(rss - empty) / (whole - empty):.2f} |")
EOF
