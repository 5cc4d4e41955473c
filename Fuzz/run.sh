#!/usr/bin/env bash
# libFuzzer over the parsers of untrusted input: JSON payloads, provider tokens, certificate
# extensions, whole APNs requests, scenario files and control API requests. One binary
# (`pushlab-fuzz`: Fuzz/Targets, with Pushlab's modules built with -sanitize=fuzzer,address;
# Package.swift adds it when PUSHLAB_FUZZ is set), run once per target over its corpus in
# Fuzz/corpus.
#
#   Fuzz/run.sh [--seconds N] [target ...]     (default: 20 seconds each, every target)
#
# A crash or a broken invariant stops the run (exit 1) and leaves the input in .build-fuzz/runs/.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
SECONDS_EACH=20
TARGETS=()
while (($#)); do
    case "$1" in
        --seconds) SECONDS_EACH="$2"; shift 2 ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        *) TARGETS+=("$1"); shift ;;
    esac
done
((${#TARGETS[@]})) || TARGETS=(json provider-token certificate request scenario control-body)
# Its own scratch path: the instrumented modules must not replace the ordinary build's.
SCRATCH="$ROOT/.build-fuzz"
echo "fuzz: building pushlab-fuzz in $SCRATCH" >&2
(cd "$ROOT" && PUSHLAB_FUZZ=1 swift build -c release --scratch-path "$SCRATCH" --product pushlab-fuzz 2>&1 \
    | grep -v 'Cannot export local symbol' >&2)
BIN="$SCRATCH/release/pushlab-fuzz"
# Swift's backtracer trips AddressSanitizer, and Swift's global constants look like leaks to it:
# a failure is reported by libFuzzer with the message of the check that failed. Recording a
# stack for every allocation cost more than the parsing (a report still has the failing stack).
export SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0:malloc_context_size=0
for target in "${TARGETS[@]}"; do
    corpus="$HERE/corpus/$target"
    [[ -d $corpus ]] || { echo "fuzz: no corpus for $target" >&2; exit 2; }
    work="$SCRATCH/runs/$target"
    mkdir -p "$work"
    # Scenario files are longer than the other inputs.
    max_len=4096
    [[ $target == scenario ]] && max_len=8192
    # The words of a format (YAML's `.inf`, a route's path) that mutations seldom spell.
    dictionary=()
    [[ -f $HERE/dictionaries/$target.dict ]] && dictionary=(-dict="$HERE/dictionaries/$target.dict")
    echo "fuzz: $target for ${SECONDS_EACH}s" >&2
    # New inputs go to a scratch folder; the committed corpus stays as it is.
    PUSHLAB_FUZZ_TARGET="$target" "$BIN" -max_total_time="$SECONDS_EACH" -max_len="$max_len" -timeout=10 -detect_leaks=0 \
        "${dictionary[@]}" -artifact_prefix="$work/" -print_final_stats=1 "$work" "$corpus" 2>"$work/log" \
        || { tail -40 "$work/log" >&2; echo "fuzz: $target failed; the input is in $work/" >&2; exit 1; }
    grep -E '^stat::number_of_executed_units' "$work/log" | sed "s/^/fuzz: $target /" >&2 || true
done
