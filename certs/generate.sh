#!/usr/bin/env bash
# Pushlab TEST PKI generator - everything it makes is for testing only,
# never trust any of it outside tests.
#
# A thin wrapper around `pushlab certs`, the one generator (Sources/PushlabCLI/Certs.swift,
# through OpenSSL's library): builds pushlab when needed, then runs it with this script's
# options, environment variables and default folder (the one holding this script).
# See certs/README.md.

set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$SCRIPT_DIR/.." && pwd)"

usage() {
    cat <<'EOF'
Usage: generate.sh [options] [OUTPUT_DIR]

Generate Pushlab's TEST certificates and keys (for testing only) into
OUTPUT_DIR (default: the folder holding this script) by running
`pushlab certs`, built first when needed (PUSHLAB_BIN names a binary to use
instead). Files still right are kept; see `pushlab certs --help`.

Options (each also settable by the environment variable shown):
  -b, --bundle-id ID      app bundle id / APNs topic  [PUSHLAB_BUNDLE_ID,    default com.pushlab.demo]
  -t, --team-id ID        Apple team id (OU, JWT iss) [PUSHLAB_TEAM_ID,      default TEAMPUSHLB]
  -k, --key-id ID         provider-token key id (kid) [PUSHLAB_KEY_ID,       default PUSHLAB001]
  -o, --org NAME          organisation (O) of client certificates
                                                      [PUSHLAB_ORG,          default "Pushlab Demo"]
  -p, --p12-password PW   password of client.p12      [PUSHLAB_P12_PASSWORD, default pushlab]
  -f, --force             remake everything, including the CA and all keys
  -q, --quiet             print only warnings and errors
  -h, --help              show this help

Examples:
  certs/generate.sh                                   # refresh certs/ in place
  certs/generate.sh -b com.example.app -t ABCDE12345 -k KEY1234567 /tmp/mycerts
EOF
}

BUNDLE_ID="${PUSHLAB_BUNDLE_ID:-com.pushlab.demo}"
TEAM_ID="${PUSHLAB_TEAM_ID:-TEAMPUSHLB}"
KEY_ID="${PUSHLAB_KEY_ID:-PUSHLAB001}"
ORG="${PUSHLAB_ORG:-Pushlab Demo}"
P12_PASSWORD="${PUSHLAB_P12_PASSWORD:-pushlab}"
FORCE=0
QUIET=0
OUT=""

while [ $# -gt 0 ]; do
    case "$1" in
        -b|--bundle-id)    BUNDLE_ID="${2:?$1 needs a value}"; shift 2 ;;
        --bundle-id=*)     BUNDLE_ID="${1#*=}"; shift ;;
        -t|--team-id)      TEAM_ID="${2:?$1 needs a value}"; shift 2 ;;
        --team-id=*)       TEAM_ID="${1#*=}"; shift ;;
        -k|--key-id)       KEY_ID="${2:?$1 needs a value}"; shift 2 ;;
        --key-id=*)        KEY_ID="${1#*=}"; shift ;;
        -o|--org)          ORG="${2:?$1 needs a value}"; shift 2 ;;
        --org=*)           ORG="${1#*=}"; shift ;;
        -p|--p12-password) P12_PASSWORD="${2?$1 needs a value}"; shift 2 ;;
        --p12-password=*)  P12_PASSWORD="${1#*=}"; shift ;;
        -f|--force)        FORCE=1; shift ;;
        -q|--quiet)        QUIET=1; shift ;;
        -h|--help)         usage; exit 0 ;;
        --)                shift; break ;;
        -*)                echo "generate.sh: unknown option: $1" >&2; usage >&2; exit 2 ;;
        *)                 if [ -n "$OUT" ]; then echo "generate.sh: only one OUTPUT_DIR" >&2; exit 2; fi
                           OUT="$1"; shift ;;
    esac
done
if [ $# -gt 0 ]; then
    if [ -n "$OUT" ] || [ $# -gt 1 ]; then echo "generate.sh: only one OUTPUT_DIR" >&2; exit 2; fi
    OUT="$1"
fi
OUT="${OUT:-$SCRIPT_DIR}"

die() { echo "generate.sh: $*" >&2; exit 1; }
say() { [ "$QUIET" = 1 ] || echo "$*"; }

# The binary: PUSHLAB_BIN, or this repository's debug build, brought up to date.
if [ -n "${PUSHLAB_BIN:-}" ]; then
    PUSHLAB="$PUSHLAB_BIN"
else
    command -v swift >/dev/null || die "swift not found: install Swift, or set PUSHLAB_BIN to a pushlab binary"
    say "Building pushlab if needed (swift build --product pushlab) ..."
    LOG="$(mktemp "${TMPDIR:-/tmp}/pushlab-build.XXXXXX")"
    trap 'rm -f "$LOG"' EXIT
    if ! (cd "$REPO" && swift build --product pushlab) >"$LOG" 2>&1; then
        cat "$LOG" >&2
        die "swift build failed"
    fi
    PUSHLAB="$(cd "$REPO" && swift build --show-bin-path)/pushlab"
fi
[ -x "$PUSHLAB" ] || die "no pushlab binary at $PUSHLAB"

ARGS=(certs "$OUT" --bundle-id "$BUNDLE_ID" --team-id "$TEAM_ID" --key-id "$KEY_ID" --org "$ORG"
      --p12-password "$P12_PASSWORD")
[ "$FORCE" = 0 ] || ARGS+=(--force --new-ca)
if [ "$QUIET" = 1 ]; then
    "$PUSHLAB" "${ARGS[@]}" >/dev/null
else
    "$PUSHLAB" "${ARGS[@]}"
fi

# PushlabTesting ships the CA, the server certificate and the sample key as resources.
RESOURCES="$REPO/Sources/PushlabTesting/Resources/Certificates"
if [ "$(cd "$OUT" && pwd)" = "$SCRIPT_DIR" ] && [ -d "$RESOURCES" ] && [ -f "$OUT/AuthKey_PUSHLAB001.p8" ]; then
    for f in ca.pem server.pem server-key.pem AuthKey_PUSHLAB001.p8 AuthKey_PUSHLAB001.pub.pem; do
        cmp -s "$OUT/$f" "$RESOURCES/$f" || cp "$OUT/$f" "$RESOURCES/$f"
    done
    say "Sources/PushlabTesting/Resources/Certificates has the CA, server certificate and sample key of certs/"
fi
