#!/usr/bin/env bash
# make dist: Pushlab as a tarball that runs without Swift.
#
#   scripts/dist.sh [--binary PATH] [--out DIR]
#
# Builds pushlab in release with the Swift runtime linked statically (--static-swift-stdlib),
# then packs bin/pushlab with certs/, scenarios/, docs/ and README.md into
# DIR/pushlab-VERSION-linux-ARCH.tar.gz (DIR: dist/). The binary finds certs/ and scenarios/
# beside itself, wherever the tarball is unpacked. On the machine it runs on, it needs only the
# runtime libraries named in the tarball's RUNTIME-DEPENDENCIES (OpenSSL, nghttp2, SQLite, jemalloc).
#
# --binary PATH packs that binary instead of building one (the tests pack their own static build).
# Prints the tarball's path on its last line.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$ROOT/dist
BINARY=
while (($#)); do
    case "$1" in
        --binary) BINARY=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
        *) echo "dist: unknown argument $1" >&2; exit 2 ;;
    esac
done

if [[ -z $BINARY ]]; then
    (cd "$ROOT" && swift build -c release --static-swift-stdlib --scratch-path .build-dist --product pushlab >&2)
    BINARY=$ROOT/.build-dist/release/pushlab
fi
[[ -x $BINARY ]] || { echo "dist: no pushlab binary at $BINARY" >&2; exit 2; }
if ldd "$BINARY" | grep -q 'libswift'; then
    echo "dist: $BINARY links the Swift runtime dynamically; build it with --static-swift-stdlib" >&2
    exit 1
fi

VERSION=$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unversioned)
NAME=pushlab-$VERSION-linux-$(uname -m)
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/$NAME/bin"
install -m 0755 "$BINARY" "$STAGE/$NAME/bin/pushlab"
cp -R "$ROOT/certs" "$ROOT/scenarios" "$ROOT/docs" "$ROOT/README.md" "$STAGE/$NAME/"
rm -f "$STAGE/$NAME/certs/"*.srl
# The Debian packages of the shared libraries it loads (besides libc), one a line.
ldd "$BINARY" | awk '$3 ~ /^\// { print $3 }' | while read -r library; do
    dpkg -S "$(readlink -f "$library")" 2>/dev/null || dpkg -S "$library" 2>/dev/null || true
done | cut -d: -f1 | sort -u | grep -v -x libc6 >"$STAGE/$NAME/RUNTIME-DEPENDENCIES"
mkdir -p "$OUT"
tar -C "$STAGE" -czf "$OUT/$NAME.tar.gz" "$NAME"
echo "$OUT/$NAME.tar.gz"
