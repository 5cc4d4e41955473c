#!/usr/bin/env bash
# Start-up time of `pushlab serve` with many generated devices, and its resident memory per
# device. Three starts per round, each timed from the exec until the control API answers
# /v1/health, with the processor seconds pushlab had used by then in brackets:
#
#   fresh    a new store: the scenario's devices are generated and registered;
#   store    the same scenario and store again (SIGTERM in between): the devices come back
#            as the last run left them;
#   touched  like store, after every 16th device was locked (62,500 changed devices of a
#            million are read back from the store).
#
# Resident memory per device is (RSS of the fresh server - RSS of one with no devices) / N.
#
#   Benchmarks/startup.sh [--devices N] [--rounds R] [--no-build]
#
# Environment: PUSHLAB_BIN (this binary, no build), STARTUP_WORK (scratch folder, default
# Benchmarks/.work/startup), STARTUP_CONTROL_PORT (default: a free one), READY_TIMEOUT (s, default 120).
set -euo pipefail
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
DEVICES=1000000
ROUNDS=3
BUILD=1
while (($#)); do
    case "$1" in
        --devices) DEVICES="$2"; shift 2 ;;
        --rounds) ROUNDS="$2"; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        *) echo "startup: unknown argument $1" >&2; exit 2 ;;
    esac
done
WORK=${STARTUP_WORK:-$SCRIPT_DIR/.work/startup}
CONTROL_PORT=${STARTUP_CONTROL_PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
READY_TIMEOUT=${READY_TIMEOUT:-120}

if [[ -n ${PUSHLAB_BIN:-} ]]; then
    BIN=$PUSHLAB_BIN
else
    if ((BUILD)); then
        (cd "$REPO_ROOT" && swift build -c release --scratch-path .build-release --product pushlab >&2)
    fi
    BIN=$REPO_ROOT/.build-release/release/pushlab
fi
[[ -x $BIN ]] || { echo "startup: no pushlab binary at $BIN" >&2; exit 2; }

mkdir -p "$WORK"
scenario() {  # scenario FILE COUNT
    cat >"$1" <<EOF
name: startup-$2
keys:
  - { keyId: PUSHLAB001, teamId: TEAMPUSHLB, publicKey: $REPO_ROOT/certs/AuthKey_PUSHLAB001.pub.pem }
apps:
  - { bundleId: com.pushlab.demo, teamId: TEAMPUSHLB }
generatedDevices:
  - { count: $2, bundleId: com.pushlab.demo, environment: development, prefix: be, state: background }
EOF
}
scenario "$WORK/devices.yaml" "$DEVICES"
scenario "$WORK/none.yaml" 0

PID=
stop() {
    [[ -n $PID ]] || return 0
    kill -TERM "$PID" 2>/dev/null || true
    wait "$PID" 2>/dev/null || true
    PID=
}
trap stop EXIT

now() { date +%s.%N; }

# start SCENARIO DB: starts pushlab and waits for /v1/health; ELAPSED is the seconds it took and
# CPU the processor seconds pushlab used meanwhile (steadier than ELAPSED on a busy machine).
start() {
    local began
    began=$(now)
    "$BIN" serve --scenario "$1" --db "$2" --clock manual --clock-start 2026-01-01T00:00:00Z \
        --development-port 0 --production-port 0 --channel-management-port off --control-port "$CONTROL_PORT" \
        --tls-cert "$REPO_ROOT/certs/server.pem" --tls-key "$REPO_ROOT/certs/server-key.pem" \
        >"$WORK/serve.log" 2>&1 &
    PID=$!
    until curl -sf "http://127.0.0.1:$CONTROL_PORT/v1/health" >/dev/null 2>&1; do
        kill -0 "$PID" 2>/dev/null || { cat "$WORK/serve.log" >&2; echo "startup: pushlab exited" >&2; exit 1; }
        if (($(echo "$(now) - $began > $READY_TIMEOUT" | bc))); then echo "startup: not ready after ${READY_TIMEOUT}s" >&2; exit 1; fi
        sleep 0.05
    done
    ELAPSED=$(printf '%.2f' "$(echo "$(now) - $began" | bc)")
    local ticks
    ticks=$(awk '{print $14 + $15}' "/proc/$PID/stat")
    CPU=$(printf '%.2f' "$(echo "$ticks / $(getconf CLK_TCK)" | bc -l)")
}

rss_bytes() { echo $(($(awk '/^VmRSS/ {print $2}' "/proc/$PID/status") * 1024)); }

# Locks every 16th device through the control API: the state the store saves changes for each.
touch_devices() {
    seq 0 16 $((DEVICES - 1)) | sed "s|^|http://127.0.0.1:$CONTROL_PORT/v1/devices/generated-|" \
        | xargs -n 1000 curl -s -X PATCH -d '{"locked":true}' >/dev/null
}

rm -f "$WORK/none.db"*
start "$WORK/none.yaml" "$WORK/none.db"
sleep 1
BASE_RSS=$(rss_bytes)
stop

echo "pushlab start-up with $DEVICES generated devices ($ROUNDS rounds; $BIN)"
printf '%-6s %15s %15s %15s %14s\n' round "fresh (cpu)" "store (cpu)" "touched (cpu)" bytes/device
for ((round = 1; round <= ROUNDS; round++)); do
    rm -f "$WORK/devices.db"*
    start "$WORK/devices.yaml" "$WORK/devices.db"
    fresh="${ELAPSED}s (${CPU})"
    sleep 1
    per_device=$(((($(rss_bytes) - BASE_RSS)) / (DEVICES > 0 ? DEVICES : 1)))
    stop
    start "$WORK/devices.yaml" "$WORK/devices.db"
    store="${ELAPSED}s (${CPU})"
    touch_devices
    stop
    start "$WORK/devices.yaml" "$WORK/devices.db"
    touched="${ELAPSED}s (${CPU})"
    stop
    printf '%-6s %15s %15s %15s %14s\n' "$round" "$fresh" "$store" "$touched" "$per_device"
done
