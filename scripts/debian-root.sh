#!/usr/bin/env bash
# A stock Debian 12 root with only Pushlab's runtime libraries, made by debootstrap from Debian's
# mirror (no image registry is needed): the ground `make image` builds on and the tests run the
# release tarball in.
#
#   scripts/debian-root.sh DEST
#
# The root is made once and kept as a tarball in $PUSHLAB_CACHE (default ~/.cache/pushlab), keyed
# by its package list; DEST gets a fresh copy of it. Needs root (debootstrap and chroot do).
set -euo pipefail
DEST=${1:?usage: scripts/debian-root.sh DEST}
SUITE=bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# What pushlab loads besides libc (RUNTIME-DEPENDENCIES in the tarball), and the CA bundle.
PACKAGES=libssl3,libnghttp2-14,libsqlite3-0,libjemalloc2,ca-certificates
CACHE=${PUSHLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pushlab}
KEY=$(printf '%s %s %s' "$SUITE" "$PACKAGES" "$(dpkg --print-architecture)" | sha256sum | cut -c1-12)
TARBALL=$CACHE/debian-$SUITE-minbase-$KEY.tar.gz

if [[ ! -s $TARBALL ]]; then
    command -v debootstrap >/dev/null || { echo "debian-root: debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }
    mkdir -p "$CACHE"
    BUILD=$(mktemp -d "$CACHE/root.XXXXXX")
    trap 'rm -rf "$BUILD"' EXIT
    echo "debian-root: debootstrap $SUITE (minbase + $PACKAGES), once; kept in $TARBALL" >&2
    debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$BUILD/root" "$MIRROR" >"$BUILD/debootstrap.log" 2>&1 \
        || { tail -20 "$BUILD/debootstrap.log" >&2; exit 1; }
    rm -rf "$BUILD/root/var/cache/apt/archives/"*.deb "$BUILD/root/var/lib/apt/lists/"*
    tar -C "$BUILD/root" -czf "$TARBALL.partial" .
    mv "$TARBALL.partial" "$TARBALL"
fi
mkdir -p "$DEST"
tar -C "$DEST" -xzf "$TARBALL"
