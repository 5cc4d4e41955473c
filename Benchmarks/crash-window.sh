#!/usr/bin/env bash
# The crash window and --durable, measured: what kill -9 loses of acknowledged pushes under
# full load, and what --durable costs in throughput.
#
#   Benchmarks/crash-window.sh [--no-build] [--kills N] [--load SECONDS]
#                              [--points "1x100 10x100 100x10"] [--rounds N] [--duration SECONDS]
#                              [--skip-kills] [--skip-throughput]
#
# 1. kill -9 (--kills times in each mode, default 3): pushlab serve, release build, 20,000
#    bare tokens and a fresh store, under h2load at 10 x 100 for --load seconds (default 5)
#    beside a tracked h2 client (Benchmarks/crash_window.py), then kill -9 and a restart on the
#    same store. The tracked client pushes to 256 simulated phones. Prints the pushes
#    acknowledged, how many of the tracked ones are missing from the request log, how many never
#    reached their phone and how many reached it twice, how long before the kill the oldest
#    missing one was acknowledged, and the writer's own measure of the window
#    (pushlab_store_longest_request_wait_milliseconds), in default and --durable mode.
# 2. Throughput: nghttpd, pushlab and pushlab --durable, each load point driven in turn (the
#    order rotates each round), --rounds rounds of --duration seconds (default 3 of 6 s) after
#    1 s of warm-up, as Benchmarks/run.sh does; the best round per cell. Prints each server's
#    ratio to nghttpd and --durable's ratio to pushlab.
#
#    Each server's CPU time per request (user + system, its catch-up included) is measured
#    too: steadier than req/s on a shared machine.
#
# Writes Benchmarks/results/crash-window-latest.md; logs in Benchmarks/.work-crash-window/.
# Environment: PUSHLAB_BIN (that binary, no build), BASELINE_BIN (another pushlab, e.g. a build
# from before a change, driven in the same rotation in default mode), PYTHON (with h2 and
# pyjwt; default the integration venv, made if missing), CRASH_PORT_BASE (default 28450: the
# twelve ports from it).
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/.." && pwd)

KEY_ID=PUSHLAB001
TEAM_ID=TEAMPUSHLB
TOPIC=com.pushlab.demo
TOKEN_COUNT=20000
BUILD=1 KILLS=3 LOAD=5 ROUNDS=3 DURATION=6 WARMUP=1
POINTS="1x100 10x100 100x10"
DO_KILLS=1 DO_THROUGHPUT=1

usage() { sed -n '2,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
die() { echo "crash-window.sh: $*" >&2; exit 1; }
log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

while (($#)); do
    case $1 in
        --no-build) BUILD=0 ;;
        --kills) KILLS=$2; shift ;;
        --load) LOAD=$2; shift ;;
        --points) POINTS=$2; shift ;;
        --rounds) ROUNDS=$2; shift ;;
        --duration) DURATION=$2; shift ;;
        --skip-kills) DO_KILLS=0 ;;
        --skip-throughput) DO_THROUGHPUT=0 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown option: $1" ;;
    esac
    shift
done
for n in "$KILLS" "$LOAD" "$ROUNDS" "$DURATION"; do [[ $n =~ ^[0-9]+$ ]] || die "not a number: $n"; done
read -ra POINT_LIST <<<"$POINTS"
for p in "${POINT_LIST[@]}"; do [[ $p =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] || die "bad point '$p' (want CONNECTIONSxSTREAMS)"; done

for tool in h2load nghttpd curl openssl; do command -v $tool >/dev/null || die "$tool is missing (scripts/install-deps.sh installs it)"; done

# --- binary, python ------------------------------------------------------------------------
if [[ -z ${PUSHLAB_BIN:-} ]]; then
    if [[ $BUILD == 1 ]]; then log "building pushlab (release)"; (cd "$REPO_ROOT" && swift build -c release --product pushlab); fi
    PUSHLAB_BIN="$(cd "$REPO_ROOT" && swift build -c release --show-bin-path)/pushlab"
fi
[[ -x $PUSHLAB_BIN ]] || die "no pushlab binary at $PUSHLAB_BIN"
VENV=$REPO_ROOT/Tests/Integration/.venv
PYTHON=${PYTHON:-$VENV/bin/python}
if ((DO_KILLS)) && ! "$PYTHON" -c 'import h2, jwt' 2>/dev/null; then
    log "making $VENV (h2, pyjwt) for the tracked client"
    python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q -r "$REPO_ROOT/Tests/Integration/requirements.txt"
    PYTHON=$VENV/bin/python
fi

# --- world ---------------------------------------------------------------------------------
CERT=$REPO_ROOT/certs/server.pem
KEY=$REPO_ROOT/certs/server-key.pem
WORK=$SCRIPT_DIR/.work-crash-window
rm -rf "$WORK"
mkdir -p "$WORK/docroot/3/device" "$SCRIPT_DIR/results"
(cd "$WORK/docroot/3/device" && for ((i = 0; i < TOKEN_COUNT; i++)); do printf 'be%062x\n' "$i"; done | tee "$WORK/tokens.txt" | xargs touch)
cat >"$WORK/scenario.yaml" <<YAML
name: crash-window
keys:
  - keyId: $KEY_ID
    teamId: $TEAM_ID
    publicKey: $REPO_ROOT/certs/AuthKey_$KEY_ID.pub.pem
apps:
  - bundleId: $TOPIC
    teamId: $TEAM_ID
policy:
  streamsBeforeFirstValidToken: 1000
generatedDeviceTokens:
  - count: $TOKEN_COUNT
    bundleId: $TOPIC
    environment: development
    prefix: be
generatedDevices:
  - count: 256
    bundleId: $TOPIC
    prefix: bf
    idPrefix: tracked
    state: background
YAML
# The tracked client's tokens, which h2load never uses, each a simulated phone's (so that what
# a kill leaves the phones is counted too): enough of them that none meets the per-token rate
# limit (300 a minute).
TRACKED=$(for ((i = 0; i < 256; i++)); do printf '"bf%062x",' "$i"; done)
TRACKED="[${TRACKED%,}]"
body_prefix='{"aps":{"alert":{"title":"Pushlab benchmark","body":"Your order #1234 has shipped and will arrive tomorrow."},"sound":"default","badge":1},"custom":"'
pad=$((250 - ${#body_prefix} - 2))
printf '%s%s"}' "$body_prefix" "$(head -c "$pad" /dev/zero | tr '\0' x)" >"$WORK/body.json"
JWT=$("$SCRIPT_DIR/mint-jwt.sh" "$REPO_ROOT/certs/AuthKey_$KEY_ID.p8" "$KEY_ID" "$TEAM_ID")
HEADERS_JSON="[[\"authorization\",\"bearer $JWT\"],[\"apns-topic\",\"$TOPIC\"],[\"apns-push-type\",\"alert\"],[\"apns-priority\",\"10\"]]"
H2_HEADERS=(-H "authorization: bearer $JWT" -H "apns-topic: $TOPIC" -H "apns-push-type: alert" -H "apns-priority: 10")

BASE=${CRASH_PORT_BASE:-28450}
serve_words() { # dev-port db -> the pushlab command as JSON words
    printf '["%s","serve","--host","127.0.0.1","--development-port","%s","--production-port","%s","--control-port","%s","--channel-management-port","off","--tls-cert","%s","--tls-key","%s","--threads","2","--scenario","%s"]' \
        "$PUSHLAB_BIN" "$1" $(($1 + 1)) $(($1 + 2)) "$CERT" "$KEY" "$WORK/scenario.yaml"
}

declare -A PID
cleanup() { for name in "${!PID[@]}"; do kill "${PID[$name]}" 2>/dev/null || true; wait "${PID[$name]}" 2>/dev/null || true; done; }
trap cleanup EXIT

REPORT=$WORK/report.md
: >"$REPORT"

# --- 1. kill -9 ------------------------------------------------------------------------------
if ((DO_KILLS)); then
    printf '| mode | acknowledged | stored after restart | tracked | tracked lost | oldest lost, ms before kill | tracked never delivered | oldest, ms before kill | delivered twice | writer window ms | h2load req/s |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n' >>"$REPORT"
    sed "s|^|https://127.0.0.1:$BASE/3/device/|" "$WORK/tokens.txt" >"$WORK/uris.txt"
    for mode in default durable; do
        log "kill -9 under load, $mode mode, $KILLS times"
        "$PYTHON" "$SCRIPT_DIR/crash_window.py" --serve "$(serve_words "$BASE")" --db "$WORK/$mode.db" --mode "$mode" \
            --port "$BASE" --control-port $((BASE + 2)) --headers "$HEADERS_JSON" --body "$WORK/body.json" --uris "$WORK/uris.txt" \
            --tokens "$TRACKED" --seconds "$LOAD" --kills "$KILLS" --log-dir "$WORK" |
            while IFS=$'\t' read -r m acked stored tracked lost oldest undelivered oldest_undelivered twice window rps; do
                printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$m" "$acked" "$stored" "$tracked" "$lost" "$oldest" \
                    "$undelivered" "$oldest_undelivered" "$twice" "$window" "$rps" | tee -a "$REPORT"
            done
    done
fi

# --- 2. throughput ---------------------------------------------------------------------------
if ((DO_THROUGHPUT)); then
    declare -A PORT=([nghttpd]=$((BASE + 3)) [pushlab]=$((BASE + 4)) [durable]=$((BASE + 7)) [baseline]=$((BASE + 10)))
    servers=(nghttpd pushlab durable)
    [[ -n ${BASELINE_BIN:-} ]] && servers+=(baseline)
    (cd "$REPO_ROOT" && exec nghttpd -n 2 -a 127.0.0.1 -d "$WORK/docroot" "${PORT[nghttpd]}" "$KEY" "$CERT") >"$WORK/nghttpd.log" 2>&1 &
    PID[nghttpd]=$!
    for name in "${servers[@]:1}"; do
        read -ra words <<<"$(serve_words "${PORT[$name]}" | tr -d '[]"' | tr ',' ' ')"
        [[ $name == baseline ]] && words[0]=$BASELINE_BIN
        extra=(--db "$WORK/throughput-$name.db")
        [[ $name == durable ]] && extra+=(--durable)
        (cd "$REPO_ROOT" && exec "${words[@]}" "${extra[@]}") >"$WORK/$name.log" 2>&1 &
        PID[$name]=$!
    done
    for name in "${servers[@]}"; do
        for _ in $(seq 300); do
            [[ $(curl --http2 -sk --max-time 2 -o /dev/null -w '%{http_version}' "https://127.0.0.1:${PORT[$name]}/" 2>/dev/null) == 2 ]] && break
            sleep 0.2
        done
    done
    caught_up() { # control port
        curl -s --max-time 5 "http://127.0.0.1:$1/v1/health" | grep -q '"storeBacklog":0,'
    }
    cpu_ticks() { # pid -> user + system clock ticks
        awk '{ print $14 + $15 }' "/proc/$1/stat"
    }
    TICKS_PER_SECOND=$(getconf CLK_TCK)
    printf 'round\tpoint\tserver\trps\tok\tcpu_us_per_request\n' >"$WORK/throughput.tsv"
    for ((round = 1; round <= ROUNDS; round++)); do
        for point in "${POINT_LIST[@]}"; do
            c=${point%x*} m=${point#*x}
            t=$((c < 2 ? 1 : 2))
            for ((k = 0; k < ${#servers[@]}; k++)); do
                name=${servers[$(((k + round) % ${#servers[@]}))]}
                out=$WORK/h2load-$round-$point-$name.txt
                log "round $round/$ROUNDS $point $name"
                ticks=$(cpu_ticks "${PID[$name]}")
                h2load -t"$t" -c"$c" -m"$m" -D "$DURATION" --warm-up-time "$WARMUP" --tls13-ciphers=TLS_AES_128_GCM_SHA256 \
                    -d "$WORK/body.json" "${H2_HEADERS[@]}" \
                    -i <(sed "s|^|https://127.0.0.1:${PORT[$name]}/3/device/|" "$WORK/tokens.txt") >"$out" 2>&1 || true
                if [[ $name != nghttpd ]]; then
                    for _ in $(seq 600); do caught_up $((PORT[$name] + 2)) && break; sleep 0.2; done
                fi
                ticks=$(($(cpu_ticks "${PID[$name]}") - ticks))
                rps=$(sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' "$out" | head -n1)
                ok=$(sed -n 's/^status codes: \([0-9]*\) 2xx.*/\1/p' "$out" | head -n1)
                done_count=$(sed -n 's/^requests: .* \([0-9]*\) done,.*/\1/p' "$out" | head -n1)
                cpu=$(awk -v t="$ticks" -v hz="$TICKS_PER_SECOND" -v n="${done_count:-0}" 'BEGIN { printf "%.2f", (n > 0 ? t / hz * 1e6 / n : 0) }')
                printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$point" "$name" "${rps:-0}" "${ok:-0}" "$cpu" >>"$WORK/throughput.tsv"
                log "  -> ${rps:-0} req/s, ${ok:-0} 2xx, ${cpu} us of CPU a request"
                sleep 0.5
            done
        done
    done
    {
        echo
        printf '| point | server | best req/s | ratio to nghttpd | ratio to pushlab | CPU us a request (median) |\n|---|---|---:|---:|---:|---:|\n'
        awk -F'\t' -v points="$POINTS" -v names="${servers[*]}" '
            NR > 1 { k = $2 SUBSEP $3; if ($4 + 0 > best[k] + 0) best[k] = $4; cpu[k] = cpu[k] " " $6 }
            function median(list,   v, n, i, j, t) {
                n = split(list, v, " ")
                for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
                return n ? (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2) : 0
            }
            END {
                n = split(points, P, " "); s = split(names, S, " ")
                for (i = 1; i <= n; i++) for (j = 1; j <= s; j++) {
                    k = P[i] SUBSEP S[j]; g = best[P[i] SUBSEP "nghttpd"]; p = best[P[i] SUBSEP "pushlab"]
                    printf "| %s | %s | %.0f | %.2f | %.2f | %.2f |\n", P[i], S[j], best[k], g ? best[k] / g : 0, p ? best[k] / p : 0, median(cpu[k])
                }
            }' "$WORK/throughput.tsv"
    } | tee -a "$REPORT"
fi

{
    echo "# Crash window and --durable ($(date -u '+%Y-%m-%d %H:%M UTC'))"
    echo
    echo "Generated by \`Benchmarks/crash-window.sh\` (commit $(git -C "$REPO_ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) CPUs); not a test."
    echo "kill -9: $KILLS per mode after ${LOAD}s of h2load at 10 x 100 plus a tracked client; throughput: best of $ROUNDS rounds of ${DURATION}s per cell."
    echo
    cat "$REPORT"
} >"$SCRIPT_DIR/results/crash-window-latest.md"
echo
echo "(written to ${SCRIPT_DIR#"$PWD"/}/results/crash-window-latest.md; logs in ${WORK#"$PWD"/}/)"
