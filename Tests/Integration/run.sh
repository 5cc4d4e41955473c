#!/usr/bin/env bash
# Black-box integration tests of the pushlab binary with real clients
# (curl, nghttp, h2load, Python h2, aioapns).
#
#   Tests/Integration/run.sh [pytest args...]
#
# PUSHLAB_BIN: the binary to test (default: $(swift build --show-bin-path)/pushlab;
# --show-bin-path only prints the path, it builds nothing).
# Installs what is missing: Debian's curl, openssl and nghttp2-client, and a venv at
# Tests/Integration/.venv with requirements.txt. Exits with pytest's status.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$ROOT"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
APT_UPDATED=0
apt_install() {
    if [ "$APT_UPDATED" = 0 ]; then
        $SUDO apt-get update -qq
        APT_UPDATED=1
    fi
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# --- Debian tools -------------------------------------------------------------
missing=()
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
if ! command -v nghttp >/dev/null 2>&1 || ! command -v h2load >/dev/null 2>&1; then
    missing+=(nghttp2-client)
fi
if [ "${#missing[@]}" -gt 0 ]; then
    echo "run.sh: installing ${missing[*]}" >&2
    apt_install "${missing[@]}"
fi
if ! curl --version | grep -q 'HTTP2'; then
    echo "run.sh: this curl has no HTTP/2 support" >&2
    exit 1
fi

# --- Python venv ----------------------------------------------------------------
VENV="$HERE/.venv"
if [ -d "$VENV" ] && ! "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1; then
    echo "run.sh: $VENV is broken, recreating it" >&2
    rm -rf "$VENV"
fi
if [ ! -x "$VENV/bin/python" ]; then
    if ! python3 -m venv "$VENV" 2>/dev/null; then
        rm -rf "$VENV"
        apt_install python3-venv
        python3 -m venv "$VENV"
    fi
fi
STAMP="$VENV/.requirements.sha256"
want="$(sha256sum "$HERE/requirements.txt" | cut -d' ' -f1)"
if [ "$(cat "$STAMP" 2>/dev/null || true)" != "$want" ]; then
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$HERE/requirements.txt"
    echo "$want" >"$STAMP"
fi

# --- One venv per APNs client library of the matrix (test_client_matrix.py) ------------
# Each library pins its own dependencies, and some pin old, conflicting ones (h2 3.x, hyper).
for requirements in "$HERE"/clients/requirements/*.txt; do
    name="$(basename "$requirements" .txt)"
    client_venv="$HERE/.venvs/$name"
    want="$(sha256sum "$requirements" | cut -d' ' -f1)"
    [ "$(cat "$client_venv/.requirements.sha256" 2>/dev/null || true)" = "$want" ] && continue
    echo "run.sh: making the $name venv" >&2
    rm -rf "$client_venv"
    # "# debian: PACKAGES" on the first line: the library as Debian packages it, for Debian's python3.
    debian="$(sed -n '1s/^# debian: *//p' "$requirements")"
    if [ -n "$debian" ]; then
        # shellcheck disable=SC2086
        dpkg-query -W -f='${Status}' $debian 2>/dev/null | grep -q "install ok installed" || apt_install $debian
        /usr/bin/python3 -m venv --system-site-packages "$client_venv"
    else
        python3 -m venv "$client_venv"
    fi
    "$client_venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps -r "$requirements"
    echo "$want" >"$client_venv/.requirements.sha256"
done

# --- The binary under test --------------------------------------------------------
if [ -z "${PUSHLAB_BIN:-}" ]; then
    bin_path="$(swift build --show-bin-path)"
    PUSHLAB_BIN="$bin_path/pushlab"
fi
export PUSHLAB_BIN
echo "run.sh: testing $PUSHLAB_BIN" >&2

set +e
"$VENV/bin/python" -m pytest -q Tests/Integration "$@"
status=$?
set -e
exit "$status"
