#!/usr/bin/env bash
# make image: Pushlab as a container image, built with Debian's buildah from the release tarball
# on a stock Debian 12 root made by debootstrap (scripts/debian-root.sh: no image registry is
# needed, none is reachable here).
#
#   scripts/image.sh [--tarball dist/pushlab-….tar.gz] [--tag localhost/pushlab:latest] [--archive FILE]
#
# The image runs `pushlab serve` bound to 0.0.0.0, APNs on 2197 (development) and 2196
# (production), channel management on 2195, the control API and dashboard on 2198. Beyond
# loopback the control API needs a token (SECURITY.md): give it as PUSHLAB_CONTROL_TOKEN.
# The store is /var/lib/pushlab/pushlab.db (a volume keeps it).
#
# --archive FILE also writes the image as an archive that `docker load -i FILE` and
# `podman load -i FILE` read.
#
# On this kind of machine podman runs it with: podman --storage-driver vfs --runtime runc run
# --network host --ulimit nofile=4096:4096 --ulimit nproc=4096:4096 … (vfs: no overlay here;
# runc: crun refuses hybrid cgroups; the limits: the container may not raise its own).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TARBALL=
TAG=localhost/pushlab:latest
ARCHIVE=
while (($#)); do
    case "$1" in
        --tarball) TARBALL=$2; shift 2 ;;
        --tag) TAG=$2; shift 2 ;;
        --archive) ARCHIVE=$2; shift 2 ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) echo "image: unknown argument $1" >&2; exit 2 ;;
    esac
done
command -v buildah >/dev/null || { echo "image: buildah is missing (apt-get install buildah podman)" >&2; exit 1; }
[[ -n $TARBALL ]] || TARBALL=$("$ROOT/scripts/dist.sh" | tail -1)
[[ -f $TARBALL ]] || { echo "image: no tarball at $TARBALL" >&2; exit 2; }
# vfs: this kind of machine has no overlay mounts. The flag, not the STORAGE_DRIVER variable,
# so that podman --storage-driver vfs finds the image.
buildah() { command buildah --storage-driver "${PUSHLAB_STORAGE_DRIVER:-vfs}" "$@"; }

WORK=$(mktemp -d)
container=
cleanup() {
    [[ -n $container ]] && buildah rm "$container" >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT
"$ROOT/scripts/debian-root.sh" "$WORK/root"
mkdir -p "$WORK/root/opt/pushlab" "$WORK/root/var/lib/pushlab"
tar -C "$WORK/root/opt/pushlab" --strip-components=1 -xzf "$TARBALL"
missing=$(comm -23 <(sort -u "$WORK/root/opt/pushlab/RUNTIME-DEPENDENCIES") \
    <(chroot "$WORK/root" dpkg-query -W -f '${Package}\n' | sort -u))
[[ -z $missing ]] || { echo "image: the root lacks $missing" >&2; exit 1; }

container=$(buildah from scratch)
buildah add "$container" "$WORK/root" / >/dev/null
buildah config \
    --entrypoint '["/opt/pushlab/bin/pushlab"]' \
    --cmd '["serve", "--host", "0.0.0.0", "--control-host", "0.0.0.0", "--db", "/var/lib/pushlab/pushlab.db"]' \
    --workingdir /var/lib/pushlab \
    --port 2195 --port 2196 --port 2197 --port 2198 \
    --volume /var/lib/pushlab \
    --label org.opencontainers.image.title=pushlab \
    --label "org.opencontainers.image.version=$(basename "$TARBALL" .tar.gz)" \
    "$container"
buildah commit --quiet "$container" "$TAG" >/dev/null
[[ -z $ARCHIVE ]] || buildah push --quiet "$TAG" "docker-archive:$ARCHIVE:$TAG"
echo "$TAG"
