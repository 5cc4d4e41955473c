#!/usr/bin/env bash
# A Pushlab cluster on this machine: a Redis Cluster of three masters with a replica each,
# three Pushlab nodes sharing it, and HAProxy (TCP mode, TLS passing through) on the usual
# ports: development 2197, production 2196, control API 2198.
#
#   scripts/cluster.sh up [--durable] [-- extra pushlab serve flags]   (make cluster)
#   scripts/cluster.sh down                                            (make cluster-down)
#   scripts/cluster.sh status
#
# Everything lives in .cluster/ (logs, Redis files, pids); `down` stops it and removes it.
# Ports: Redis 7100-7105 (and their bus ports 17100-17105); node N (1-3) serves development on
# 2(N+1)97, production on 2(N+1)96 and its control API on 2(N+1)98 (2297, 2397, 2497, …).
#
# For a second cluster beside the first (the integration tests): PUSHLAB_CLUSTER_DIR (the state
# folder), PUSHLAB_CLUSTER_REDIS (the first of six Redis ports), PUSHLAB_CLUSTER_NODES (node N
# then listens on it + 10N, + 10N + 1, + 10N + 2) and PUSHLAB_CLUSTER_FRONT (HAProxy's
# development, production and control ports: it, + 1, + 2). PUSHLAB_BIN: the pushlab to run.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
state=${PUSHLAB_CLUSTER_DIR:-$root/.cluster}
bin=${PUSHLAB_BIN:-}

redis_base=${PUSHLAB_CLUSTER_REDIS:-7100}
redis_ports=()
for i in 0 1 2 3 4 5; do redis_ports+=($((redis_base + i))); done
nodes=(1 2 3)
# Pushlab's own listeners on node N, and what HAProxy gives the world.
node_base=${PUSHLAB_CLUSTER_NODES:-}
if [ -n "$node_base" ]; then
    dev_port() { echo $((node_base + 10 * $1)); }
    prod_port() { echo $((node_base + 10 * $1 + 1)); }
    control_port() { echo $((node_base + 10 * $1 + 2)); }
else
    dev_port() { echo "2$(($1 + 1))97"; }
    prod_port() { echo "2$(($1 + 1))96"; }
    control_port() { echo "2$(($1 + 1))98"; }
fi
if [ -n "${PUSHLAB_CLUSTER_FRONT:-}" ]; then
    front_dev=$PUSHLAB_CLUSTER_FRONT; front_prod=$((PUSHLAB_CLUSTER_FRONT + 1)); front_control=$((PUSHLAB_CLUSTER_FRONT + 2))
else
    front_dev=2197; front_prod=2196; front_control=2198
fi

fail() { echo "cluster: $*" >&2; exit 1; }

need() {
    for tool in redis-server redis-cli haproxy; do
        command -v "$tool" >/dev/null || fail "$tool is missing: scripts/install-deps.sh installs it (Debian's redis-server and haproxy)"
    done
}

pushlab_binary() {
    if [ -n "$bin" ]; then echo "$bin"; return; fi
    swift build --product pushlab >&2
    echo "$(swift build --show-bin-path)/pushlab"
}

wait_for() { # description, command… (60 s: a node with a million phones, a busy machine)
    local what=$1; shift
    for _ in $(seq 1 1200); do
        if "$@" >/dev/null 2>&1; then return 0; fi
        sleep 0.05
    done
    fail "$what did not come up in 60 s (logs in $state)"
}

up() {
    need
    local durable=()
    local extra=()
    while [ $# -gt 0 ]; do
        case $1 in
            --durable) durable=(--durable); shift ;;
            --) shift; extra=("$@"); break ;;
            *) fail "unknown argument $1 (up [--durable] [-- pushlab serve flags])" ;;
        esac
    done
    [ -e "$state" ] && fail "$state exists: a cluster is up (scripts/cluster.sh down first)"
    local pushlab
    pushlab=$(pushlab_binary)
    mkdir -p "$state"

    for port in "${redis_ports[@]}"; do
        mkdir -p "$state/redis-$port"
        (cd "$state/redis-$port" && redis-server --port "$port" --bind 127.0.0.1 --cluster-enabled yes \
            --cluster-config-file nodes.conf --cluster-node-timeout 2000 --appendonly yes --save "" \
            --daemonize yes --pidfile "$state/redis-$port.pid" --logfile "$state/redis-$port.log")
        wait_for "redis-server on $port" redis-cli -p "$port" ping
    done
    redis-cli --cluster create $(printf '127.0.0.1:%s ' "${redis_ports[@]}") --cluster-replicas 1 --cluster-yes >"$state/create.log" 2>&1 \
        || fail "redis-cli --cluster create failed (see $state/create.log)"
    wait_for "the Redis Cluster" bash -c "redis-cli -p ${redis_ports[0]} cluster info | grep -q cluster_state:ok"
    # Every replica in sync with its master: --durable acknowledges a push once one has it.
    for port in "${redis_ports[@]}"; do
        wait_for "redis-server $port's replication" bash -c \
            "redis-cli -p $port info replication | tr -d '\r' | grep -qE '^role:master|^master_link_status:up'"
    done

    local seeds
    seeds=$(printf 'redis://127.0.0.1:%s,' "${redis_ports[@]:0:3}")
    seeds=${seeds%,}
    for n in "${nodes[@]}"; do
        # Started together: each takes its share once all are live, not every phone first.
        "$pushlab" serve --cluster "$seeds" --node-id "node-$n" --cluster-expect "${#nodes[@]}" --host 127.0.0.1 \
            --development-port "$(dev_port "$n")" --production-port "$(prod_port "$n")" --control-port "$(control_port "$n")" \
            --channel-management-port off --shutdown-grace-period 2 "${durable[@]}" "${extra[@]}" >"$state/node-$n.log" 2>&1 &
        echo $! >"$state/node-$n.pid"
    done
    for n in "${nodes[@]}"; do
        # A node that stopped (a bad flag, a bad scenario) says why at once.
        wait_for "node-$n" bash -c "grep -q '^Ready' '$state/node-$n.log' || ! kill -0 \$(cat '$state/node-$n.pid')"
        grep -q '^Ready' "$state/node-$n.log" || fail "node-$n stopped: $(tail -3 "$state/node-$n.log")"
    done

    {
        # As many connections as the descriptors allow (HAProxy needs two a connection).
        local limit
        limit=$(ulimit -Hn)
        [ "$limit" = unlimited ] && limit=65536
        echo "global"
        echo "    maxconn $(( limit / 2 - 100 < 20000 ? limit / 2 - 100 : 20000 ))"
        echo "defaults"
        echo "    mode tcp"
        # A connection to a node that just died goes to another one.
        echo "    retries 3"
        echo "    option redispatch"
        echo "    timeout connect 2s"
        echo "    timeout client 1h"
        echo "    timeout server 1h"
        for listener in "development $front_dev dev_port" "production $front_prod prod_port" "control $front_control control_port"; do
            set -- $listener
            echo "listen $1"
            echo "    bind 127.0.0.1:$2"
            echo "    balance leastconn"
            # A dead node is out of the rotation within a second.
            for n in "${nodes[@]}"; do echo "    server node-$n 127.0.0.1:$($3 "$n") check inter 300 fall 2 rise 1"; done
        done
    } >"$state/haproxy.cfg"
    haproxy -f "$state/haproxy.cfg" -D -p "$state/haproxy.pid" || fail "haproxy did not start (ports $front_prod, $front_dev and $front_control free?)"
    status
}

# TERM to every process named by the pid files at once, then waits for all (KILL after 10 s).
stop_pidfiles() {
    local pids=()
    for file in "$@"; do
        [ -f "$file" ] || continue
        pids+=("$(cat "$file")")
    done
    [ ${#pids[@]} -gt 0 ] || return 0
    kill -TERM "${pids[@]}" 2>/dev/null || true
    for _ in $(seq 1 100); do
        local alive=0
        for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
        [ $alive -eq 0 ] && return 0
        sleep 0.1
    done
    kill -KILL "${pids[@]}" 2>/dev/null || true
}

down() {
    [ -d "$state" ] || { echo "cluster: nothing is up"; return 0; }
    stop_pidfiles "$state/haproxy.pid"
    stop_pidfiles "$state"/node-*.pid
    stop_pidfiles "$state"/redis-*.pid
    rm -rf "$state"
    echo "cluster: stopped"
}

status() {
    [ -d "$state" ] || { echo "cluster: nothing is up"; return 0; }
    echo "Pushlab cluster (state in $state):"
    echo "  development  https://127.0.0.1:$front_dev   production  https://127.0.0.1:$front_prod   control API  http://127.0.0.1:$front_control  (HAProxy)"
    for n in "${nodes[@]}"; do
        local pid
        pid=$(cat "$state/node-$n.pid")
        if kill -0 "$pid" 2>/dev/null; then
            echo "  node-$n  pid $pid  https://127.0.0.1:$(dev_port "$n")  control http://127.0.0.1:$(control_port "$n")  $(grep -m1 'this node' "$state/node-$n.log" | sed 's/^ *this node *//')"
        else
            echo "  node-$n  stopped (log: $state/node-$n.log)"
        fi
    done
    for port in "${redis_ports[@]}"; do
        echo "  redis 127.0.0.1:$port  $(redis-cli -p "$port" role 2>/dev/null | head -1 || echo down)"
    done
}

case ${1:-} in
    up) shift; up "$@" ;;
    down) down ;;
    status) status ;;
    *) echo "usage: scripts/cluster.sh up [--durable] [-- serve flags] | down | status" >&2; exit 2 ;;
esac
