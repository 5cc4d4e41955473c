#!/usr/bin/env bash
# Installs the Debian packages Pushlab builds and tests with, only those that are missing.
# Needs root (or sudo). The Swift 6 toolchain itself is a prerequisite, not installed here.
set -euo pipefail

packages=(
  pkg-config libnghttp2-dev libssl-dev   # the C libraries Pushlab links (found through pkg-config)
  libjemalloc-dev                        # the allocator pushlab and its benchmarks link
  libsqlite3-dev                         # the embedded store
  openssl curl nghttp2-client            # certificates, and the real clients the tests drive
  nghttp2-server                         # nghttpd: the benchmark's reference server
  python3 python3-venv                   # the integration suite (aioapns, h2, pytest)
  chromium chromium-driver fonts-inter   # the dashboard's browser tests (headless, WebDriver) and their screenshots' font
  debootstrap buildah podman runc        # make dist / make image and their tests: a stock Debian root, the image, a container
  redis-server haproxy                   # a Pushlab cluster: its engine (Redis Cluster) and its front (TCP mode)
)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing missing packages: ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "Run as root or install sudo: apt-get install ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
