#!/usr/bin/env bash
# Pushlab as a cluster against Pushlab alone, on this machine, same load: h2load sends PUSHES
# pushes (250-byte alerts) to PHONES background phones, and the run ends when every phone has
# observed its pushes. Prints a Markdown table (not a test):
#
#   - the rate answered (h2load) and the rate lived end to end (answered, delivered and, for
#     the cluster, taken with its observations in the engine), for one process and for a
#     cluster of three nodes (scripts/cluster.sh: three Redis masters with a replica each,
#     HAProxy), and each node's share;
#   - Redis commands and bytes (in and out, every server) per push;
#   - CPU a push (user + system, from /proc) of the single process, and of the nodes, the Redis
#     servers and HAProxy of the cluster, over the load and until every push lived;
#   - the failover times: kill -9 of a node until a push to one of its phones is observed on
#     another; kill -9 of a Redis master until a push to its slots is accepted again.
#
#   Benchmarks/cluster.sh [--pushes N] [--phones N] [--partitions N] [--durable] [--no-build]
#
# --partitions: the cluster's partitions of phones (`pushlab serve --cluster-partitions`; 24, its
# default).
#
# --durable: both the single process and the cluster answer a push once it is committed
# (`pushlab serve --durable`).
#
# PUSHLAB_BIN: the pushlab to run (default: a release build). Needs h2load (nghttp2-client),
# redis-server, redis-cli and haproxy. Work files in Benchmarks/.work-cluster/.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPT_DIR/.." && pwd)
WORK=$SCRIPT_DIR/.work-cluster
PUSHES=200000
PHONES=20000
BUILD=1
PARTITIONS=24
DURABLE=()
while [ $# -gt 0 ]; do
    case $1 in
        --pushes) PUSHES=$2; shift 2 ;;
        --phones) PHONES=$2; shift 2 ;;
        --partitions) PARTITIONS=$2; shift 2 ;;
        --durable) DURABLE=(--durable); shift ;;
        --no-build) BUILD=0; shift ;;
        *) echo "usage: $0 [--pushes N] [--phones N] [--partitions N] [--durable] [--no-build]" >&2; exit 2 ;;
    esac
done
for tool in h2load redis-server redis-cli haproxy curl python3; do
    command -v "$tool" >/dev/null || { echo "$tool is missing (scripts/install-deps.sh)" >&2; exit 1; }
done

if [ -z "${PUSHLAB_BIN:-}" ]; then
    if [ $BUILD -eq 1 ]; then (cd "$REPO" && swift build -c release --scratch-path .build-release --product pushlab >&2); fi
    PUSHLAB_BIN=$REPO/.build-release/release/pushlab
fi
export PUSHLAB_BIN
rm -rf "$WORK"
mkdir -p "$WORK"
log() { echo "cluster bench: $*" >&2; }
# set -e stops quietly inside `read < <(…)` and `$(…)`: say where.
trap 'log "stopped at line $LINENO: $BASH_COMMAND (status $?)"' ERR

cat >"$WORK/scenario.yaml" <<EOF
name: cluster-bench
keys:
  - keyId: PUSHLAB001
    teamId: TEAMPUSHLB
    privateKey: $REPO/certs/AuthKey_PUSHLAB001.p8
apps:
  - bundleId: com.pushlab.demo
    teamId: TEAMPUSHLB
generatedDevices:
  - count: $PHONES
    bundleId: com.pushlab.demo
    prefix: be
    idPrefix: bench
    state: background
policy:
  deviceTokenRateLimit: off
  errorBudgetPerConnection: off
  throttleStreamsAfterRejection: false
  streamsBeforeFirstValidToken: 1000
EOF
python3 - "$PHONES" >"$WORK/tokens.txt" <<'EOF'
import sys
for i in range(int(sys.argv[1])):
    print("be" + format(i, "x").rjust(62, "0"))
EOF
JWT=$("$SCRIPT_DIR/mint-jwt.sh" "$REPO/certs/AuthKey_PUSHLAB001.p8" PUSHLAB001 TEAMPUSHLB)
python3 -c 'import json; print(json.dumps({"aps": {"alert": "x" * 220}}))' >"$WORK/body.json"

# h2load at `port`: 10 connections of 100 streams; prints "seconds answered2xx".
load() {
    local port=$1 out=$2
    h2load -t2 -c10 -m100 -n "$PUSHES" -d "$WORK/body.json" \
        -H "apns-topic: com.pushlab.demo" -H "apns-push-type: alert" -H "apns-priority: 10" -H "authorization: bearer $JWT" \
        -i <(sed "s|^|https://127.0.0.1:$port/3/device/|" "$WORK/tokens.txt") >"$out" 2>&1
    python3 - "$out" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
finished = re.search(r"finished in ([\d.]+)(ms|s)\b", text)
seconds = float(finished.group(1)) / (1000 if finished.group(2) == "ms" else 1)
ok = int(re.search(r"status codes: (\d+) 2xx", text).group(1))
print(seconds, ok)
EOF
}

now() { date +%s.%N; }
# CPU seconds (user + system) the given processes have used so far, together.
cpu_seconds() {
    python3 - "$@" <<'EOF'
import os, sys
ticks = os.sysconf("SC_CLK_TCK")
total = 0
for pid in sys.argv[1:]:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    total += int(fields[11]) + int(fields[12])
print(total / ticks)
EOF
}

# --- one process ---------------------------------------------------------------------------
log "one process: $PHONES phones, $PUSHES pushes"
# --durable waits for the store's file, which :memory: has not.
single_db=:memory:
[ ${#DURABLE[@]} -eq 0 ] || single_db=$WORK/single.db
"$PUSHLAB_BIN" serve --scenario "$WORK/scenario.yaml" --db "$single_db" --development-port 29197 --production-port 29196 \
    --control-port 29198 --channel-management-port off ${DURABLE[@]+"${DURABLE[@]}"} >"$WORK/single.log" 2>&1 &
single=$!
for _ in $(seq 1 600); do grep -q '^Ready' "$WORK/single.log" && break; sleep 0.1; done
kill -0 $single 2>/dev/null || { log "the single process stopped: $(tail -3 "$WORK/single.log")"; exit 1; }
single_cpu_before=$(cpu_seconds $single)
start=$(now)
read -r single_seconds single_ok < <(load 29197 "$WORK/single-h2load.txt")
# Lived: every phone observed its pushes (no queued delivery left).
while [ "$(curl -s localhost:29198/v1/health | python3 -c 'import json,sys; print(json.load(sys.stdin)["queuedDeliveries"])')" != 0 ]; do sleep 0.1; done
single_lived=$(python3 -c "print($(now) - $start)")
single_cpu=$(python3 -c "print($(cpu_seconds $single) - $single_cpu_before)")
kill -TERM $single; wait $single || true

# --- a cluster of three nodes ----------------------------------------------------------------
export PUSHLAB_CLUSTER_DIR=$WORK/cluster PUSHLAB_CLUSTER_REDIS=27100 PUSHLAB_CLUSTER_NODES=28000 PUSHLAB_CLUSTER_FRONT=29297
trap '"$REPO/scripts/cluster.sh" down >/dev/null 2>&1 || true' EXIT
"$REPO/scripts/cluster.sh" up ${DURABLE[@]+"${DURABLE[@]}"} -- --scenario "$WORK/scenario.yaml" --cluster-partitions "$PARTITIONS" >"$WORK/cluster-up.txt"
redis_ports=(27100 27101 27102 27103 27104 27105)
redis_totals() { # commands, bytes in+out, over every server
    local commands=0 bytes=0
    for port in "${redis_ports[@]}"; do
        local stats
        stats=$(redis-cli -p "$port" info stats)
        commands=$((commands + $(echo "$stats" | tr -d '\r' | awk -F: '/^total_commands_processed/ {print $2}')))
        bytes=$((bytes + $(echo "$stats" | tr -d '\r' | awk -F: '/^total_net_input_bytes/ {print $2}') + $(echo "$stats" | tr -d '\r' | awk -F: '/^total_net_output_bytes/ {print $2}')))
    done
    echo "$commands $bytes"
}
untaken() {
    # Every partition's log, whatever the world's id in its name (pushlab:w<id>:{p17}:log), on
    # the masters that hold them.
    python3 - "${redis_ports[@]}" <<'EOF'
import subprocess, sys
def cli(port, *args):
    return subprocess.run(["redis-cli", "-p", port, *args], capture_output=True, text=True, check=True).stdout.split()
total = 0
for port in sys.argv[1:]:
    if cli(port, "role")[0] != "master":
        continue
    for key in cli(port, "--scan", "--pattern", "pushlab:*:log"):
        total += int(cli(port, "XLEN", key)[0])
print(total)
EOF
}
sleep 3   # shares settle
node_pids=$(cat "$WORK"/cluster/node-*.pid)
redis_pids=$(for port in "${redis_ports[@]}"; do redis-cli -p "$port" info server | tr -d '\r' | awk -F: '/^process_id/ {print $2}'; done)
haproxy_pids=$(cat "$WORK/cluster/haproxy.pid")
read -r commands_before bytes_before < <(redis_totals)
nodes_cpu_before=$(cpu_seconds $node_pids)
redis_cpu_before=$(cpu_seconds $redis_pids)
haproxy_cpu_before=$(cpu_seconds $haproxy_pids)
start=$(now)
read -r cluster_seconds cluster_ok < <(load 29297 "$WORK/cluster-h2load.txt")
while [ "$(untaken)" != 0 ]; do sleep 0.2; done
cluster_lived=$(python3 -c "print($(now) - $start)")
nodes_cpu=$(python3 -c "print($(cpu_seconds $node_pids) - $nodes_cpu_before)")
redis_cpu=$(python3 -c "print($(cpu_seconds $redis_pids) - $redis_cpu_before)")
haproxy_cpu=$(python3 -c "print($(cpu_seconds $haproxy_pids) - $haproxy_cpu_before)")
read -r commands_after bytes_after < <(redis_totals)
shares=$(for n in 1 2 3; do curl -s "localhost:$((28000 + 10 * n + 2))/v1/health" | python3 -c 'import json,sys; c=json.load(sys.stdin)["cluster"]; print(c["node"], len(c["ownedPartitions"]))'; done | paste -sd, -)

# --- failover: a node ---------------------------------------------------------------------------
phone_owner=
for _ in $(seq 1 100); do   # a moment while the shares settle after the load
    phone_owner=$(curl -s -D - -o /dev/null localhost:29299/v1/devices/bench-0 | tr -d '\r' | awk -F': ' 'tolower($1)=="pushlab-node" {print $2}')
    [ -n "$phone_owner" ] && break
    sleep 0.1
done
[ -n "$phone_owner" ] || { log "no node answers for bench-0"; exit 1; }
n=${phone_owner#node-}
kill -9 "$(cat "$WORK/cluster/node-$n.pid")"
killed=$(now)
# Until HAProxy has seen the node die (about 0.6 s), a connection may land on it and fail: a
# provider retries, and so does this.
until [ "$(curl -s --http2 --cacert "$REPO/certs/ca.pem" -o /dev/null -w '%{http_code}' -H "authorization: bearer $JWT" \
    -H "apns-topic: com.pushlab.demo" -H "apns-push-type: alert" --data '{"aps":{"alert":"after the kill"}}' \
    "https://localhost:29297/3/device/$(head -1 "$WORK/tokens.txt")")" = 200 ]; do sleep 0.05; done
until curl -s localhost:29299/v1/devices/bench-0/observations?kind=banner | grep -q "after the kill"; do sleep 0.05; done
node_failover=$(python3 -c "print($(now) - $killed)")

# --- failover: a Redis master ----------------------------------------------------------------------
redis_failover=
if [ ${#DURABLE[@]} -gt 0 ]; then
    # A promoted replica has no replica of its own until the killed master is back, and a
    # durable push to its slots is answered 500 until then (docs/CLUSTER.md).
    log "durable: the master failover is not measured"
else
master=$(redis-cli -c -p 27100 cluster nodes | awk '/master/ && !/fail/ {split($2, a, "[:@]"); print a[2]; exit}')
pid=$(redis-cli -p "$master" info server | tr -d '\r' | awk -F: '/^process_id/ {print $2}')
# Pushes to 63 phones, spread over the partitions (and so over every master), until all are 200.
kill -9 "$pid"
killed=$(now)
accepted=0
until [ "$accepted" = 1 ]; do
    for token in $(sed -n '2,64p' "$WORK/tokens.txt"); do
        status=$(curl -s --http2 --cacert "$REPO/certs/ca.pem" -o /dev/null -w '%{http_code}' -H "authorization: bearer $JWT" \
            -H "apns-topic: com.pushlab.demo" -H "apns-push-type: alert" --data '{"aps":{"alert":"x"}}' "https://localhost:29297/3/device/$token")
        [ "$status" = 200 ] || { accepted=0; break; }
        accepted=1
    done
    sleep 0.05
done
redis_failover=$(python3 -c "print($(now) - $killed)")
fi

python3 - <<EOF
pushes = $PUSHES
single_answered = $single_ok / $single_seconds
single_lived = pushes / $single_lived
cluster_answered = $cluster_ok / $cluster_seconds
cluster_lived = pushes / $cluster_lived
commands = ($commands_after - $commands_before) / pushes
bytes = ($bytes_after - $bytes_before) / pushes
print("| | one process | cluster of 3 nodes | cluster / one |")
print("|---|---:|---:|---:|")
print(f"| answered (req/s) | {single_answered:,.0f} | {cluster_answered:,.0f} | {cluster_answered / single_answered:.2f} |")
print(f"| lived end to end (pushes/s) | {single_lived:,.0f} | {cluster_lived:,.0f} | {cluster_lived / single_lived:.2f} |")
print(f"| per node, lived (pushes/s) | {single_lived:,.0f} | {cluster_lived / 3:,.0f} | {cluster_lived / 3 / single_lived:.2f} |")
print()
micro = 1e6 / pushes
print(f"| CPU a push: the process, or the nodes (µs) | {$single_cpu * micro:.1f} | {$nodes_cpu * micro:.1f} | {$nodes_cpu / $single_cpu:.2f} |")
print(f"| CPU a push: Redis, HAProxy (µs) | | {$redis_cpu * micro:.1f}, {$haproxy_cpu * micro:.1f} | |")
print()
print("- mode: " + ("--durable on both" if "${DURABLE[*]:-}" else "default (crash window)"))
print(f"- Redis per push: {commands:.1f} commands, {bytes:,.0f} bytes in and out (every server, replicas included)")
print(f"- shares (partitions of $PARTITIONS): $shares")
print(f"- failover, kill -9 of a node: a push to one of its phones observed {$node_failover:.1f} s after the kill")
redis_failover = "${redis_failover}"
if redis_failover:
    print(f"- failover, kill -9 of a Redis master: pushes to 63 phones over every master all accepted again {float(redis_failover):.1f} s after the kill")
EOF
