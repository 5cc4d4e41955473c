#!/usr/bin/env bash
# libFuzzer over the parsers of untrusted input: JSON payloads, provider tokens, certificate
# extensions and whole APNs requests. One binary (PushlabCore's sources and Fuzz/Targets,
# built with -sanitize=fuzzer,address), run once per target over its corpus in Fuzz/corpus.
#
#   Fuzz/run.sh [--seconds N] [target ...]     (default: 20 seconds each, every target)
#
# A crash or a broken invariant stops the run (exit 1) and leaves the input in .build/fuzz/.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
SECONDS_EACH=20
TARGETS=()
while (($#)); do
    case "$1" in
        --seconds) SECONDS_EACH="$2"; shift 2 ;;
        -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
        *) TARGETS+=("$1"); shift ;;
    esac
done
((${#TARGETS[@]})) || TARGETS=(json provider-token certificate request)
OUT="$ROOT/.build/fuzz"
mkdir -p "$OUT"
BIN="$OUT/pushlab-fuzz"
SOURCES=$(find "$ROOT/Sources/PushlabCore" "$HERE/Targets" -name '*.swift' | sort)
if [[ ! -x $BIN || -n $(find $SOURCES -newer "$BIN" | head -n1) ]]; then
    echo "fuzz: building $BIN" >&2
    # shellcheck disable=SC2086
    swiftc -sanitize=fuzzer,address -parse-as-library -module-name PushlabFuzz -O $SOURCES -o "$BIN" 2> >(grep -v 'Cannot export local symbol' >&2)
fi
for target in "${TARGETS[@]}"; do
    corpus="$HERE/corpus/$target"
    [[ -d $corpus ]] || { echo "fuzz: no corpus for $target" >&2; exit 2; }
    work="$OUT/$target"
    mkdir -p "$work"
    echo "fuzz: $target for ${SECONDS_EACH}s" >&2
    # New inputs go to a scratch folder; the committed corpus stays as it is.
    PUSHLAB_FUZZ_TARGET="$target" "$BIN" -max_total_time="$SECONDS_EACH" -max_len=4096 -timeout=10 \
        -artifact_prefix="$work/" -print_final_stats=1 "$work" "$corpus" 2>"$work/log" \
        || { tail -40 "$work/log" >&2; echo "fuzz: $target failed; the input is in $work/" >&2; exit 1; }
    grep -E '^stat::number_of_executed_units' "$work/log" | sed "s/^/fuzz: $target /" >&2 || true
done
