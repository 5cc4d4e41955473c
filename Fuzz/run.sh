#!/usr/bin/env bash
# libFuzzer over the parsers of untrusted input: JSON payloads, provider tokens, certificate
# extensions, whole APNs requests, scenario files and control API requests. One binary
# (`pushlab-fuzz`: Fuzz/Targets, with Pushlab's modules built with -sanitize=fuzzer,address;
# Package.swift adds it when PUSHLAB_FUZZ is set), run once per target over its corpus in
# Fuzz/corpus.
#
#   Fuzz/run.sh [--seconds N] [--release] [target ...]   (default: 20 seconds each, every target)
#
# By default the fuzzer is built in the ordinary debug build (.build): the dependencies that make
# test compiled are reused as they are (they are not instrumented), and only Pushlab's modules
# are compiled again, instrumented; the next ordinary build compiles them back. That is what CI
# runs: a bounded run, whose worth is every corpus input replayed and a few minutes of mutations.
# --release builds an optimized fuzzer in a scratch path of its own (.build-fuzz, every module
# compiled again): several times the executions a second, for long runs.
#
# A crash or a broken invariant fails the run (exit 1, once every target has run) and leaves the
# input in .build-fuzz/runs/TARGET/.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
SECONDS_EACH=20
RELEASE=0
TARGETS=()
while (($#)); do
    case "$1" in
        --seconds) SECONDS_EACH="$2"; shift 2 ;;
        --release) RELEASE=1; shift ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) TARGETS+=("$1"); shift ;;
    esac
done
((${#TARGETS[@]})) || TARGETS=(json provider-token certificate request scenario control-body)
SCRATCH="$ROOT/.build-fuzz"
if ((RELEASE)); then
    # Its own scratch path: optimized, every module compiled for it.
    BUILD=(-c release --scratch-path "$SCRATCH")
else
    BUILD=()
fi
# libFuzzer without its main (Package.swift says why), from the toolchain's clang.
SWIFTC="$(readlink -f "$(command -v swiftc)")"
LIBFUZZER="$(ls "$(dirname "$SWIFTC")"/../lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-"$(uname -m)".a 2>/dev/null | head -1)"
[[ -n $LIBFUZZER ]] || { echo "fuzz: the toolchain has no libclang_rt.fuzzer_no_main (next to $SWIFTC)" >&2; exit 2; }
export PUSHLAB_FUZZ="$(readlink -f "$LIBFUZZER")"
echo "fuzz: building pushlab-fuzz (${BUILD[*]:-debug, in .build})" >&2
(cd "$ROOT" && "$ROOT/scripts/phase" fuzz-build -- swift build "${BUILD[@]}" --product pushlab-fuzz 2>&1 \
    | grep -v 'Cannot export local symbol' >&2)
BIN="$(cd "$ROOT" && swift build "${BUILD[@]}" --show-bin-path)/pushlab-fuzz"
# Swift's backtracer trips AddressSanitizer, and Swift's global constants look like leaks to it:
# a failure is reported by libFuzzer with the message of the check that failed. Recording a
# stack for every allocation cost more than the parsing (a report still has the failing stack).
export SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0:malloc_context_size=0
# One target a core at a time (FUZZ_JOBS to choose): each is given the same wall time either way,
# and libFuzzer keeps one core busy.
JOBS=${FUZZ_JOBS:-$(nproc)}
for target in "${TARGETS[@]}"; do
    [[ -d $HERE/corpus/$target ]] || { echo "fuzz: no corpus for $target" >&2; exit 2; }
done

fuzz_target() {
    local target=$1 corpus="$HERE/corpus/$1" work="$SCRATCH/runs/$1" max_len=4096 dictionary=()
    mkdir -p "$work"
    rm -f "$work/failed"
    # Scenario files are longer than the other inputs.
    [[ $target == scenario ]] && max_len=8192
    # The words of a format (YAML's `.inf`, a route's path) that mutations seldom spell.
    [[ -f $HERE/dictionaries/$target.dict ]] && dictionary=(-dict="$HERE/dictionaries/$target.dict")
    echo "fuzz: $target for ${SECONDS_EACH}s" >&2
    # New inputs go to a scratch folder; the committed corpus stays as it is.
    if PUSHLAB_FUZZ_TARGET="$target" "$ROOT/scripts/phase" "fuzz/$target" -- "$BIN" -max_total_time="$SECONDS_EACH" \
        -max_len="$max_len" -timeout=10 -detect_leaks=0 "${dictionary[@]}" -artifact_prefix="$work/" -print_final_stats=1 \
        "$work" "$corpus" 2>"$work/log"; then
        grep -E '^stat::number_of_executed_units' "$work/log" | sed "s/^/fuzz: $target /" >&2 || true
    else
        touch "$work/failed"
    fi
}

for target in "${TARGETS[@]}"; do
    while (($(jobs -rp | wc -l) >= JOBS)); do wait -n || true; done
    fuzz_target "$target" &
done
wait
status=0
for target in "${TARGETS[@]}"; do
    work="$SCRATCH/runs/$target"
    if [[ -e $work/failed ]]; then
        tail -40 "$work/log" >&2
        echo "fuzz: $target failed; the input is in $work/" >&2
        status=1
    fi
done
exit "$status"
