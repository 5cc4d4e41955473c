#!/usr/bin/env bash
# What the integration tests need, made once and kept while its inputs are unchanged: Debian's
# curl, openssl and nghttp2-client; a venv at Tests/Integration/.venv with requirements.txt; a
# venv per client library of the matrix in Tests/Integration/.venvs/ (four made at a time).
# run.sh calls it; `make test` runs it beside the Swift build.
#
#   Tests/Integration/setup.sh [--quick]    --quick: not the client matrix's venvs (run.sh --quick
#                                           does not run test_client_matrix.py)
set -euo pipefail
QUICK=0
[[ ${1:-} == --quick ]] && QUICK=1

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

[[ $QUICK == 1 ]] && exit 0

# --- One venv per APNs client library of the matrix (test_client_matrix.py) ------------
# Each library pins its own dependencies, and some pin old, conflicting ones (h2 3.x, hyper).
# "# debian: PACKAGES" on a requirements file's first line: the library as Debian packages it,
# for Debian's python3. Those packages are installed first, one apt at a time; then the venvs are
# made four at a time (pip waits on the network more than on the processor).
stale=()
for requirements in "$HERE"/clients/requirements/*.txt; do
    name="$(basename "$requirements" .txt)"
    want="$(sha256sum "$requirements" | cut -d' ' -f1)"
    [ "$(cat "$HERE/.venvs/$name/.requirements.sha256" 2>/dev/null || true)" = "$want" ] && continue
    stale+=("$requirements")
    debian="$(sed -n '1s/^# debian: *//p' "$requirements")"
    if [ -n "$debian" ]; then
        # shellcheck disable=SC2086
        dpkg-query -W -f='${Status}' $debian 2>/dev/null | grep -q "install ok installed" || apt_install $debian
    fi
done

make_client_venv() {
    local requirements="$1" name client_venv want
    name="$(basename "$requirements" .txt)"
    client_venv="$HERE/.venvs/$name"
    want="$(sha256sum "$requirements" | cut -d' ' -f1)"
    echo "setup.sh: making the $name venv" >&2
    rm -rf "$client_venv"
    if [ -n "$(sed -n '1s/^# debian: *//p' "$requirements")" ]; then
        /usr/bin/python3 -m venv --system-site-packages "$client_venv"
    else
        python3 -m venv "$client_venv"
    fi
    "$client_venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps -r "$requirements"
    echo "$want" >"$client_venv/.requirements.sha256"
}

if [ "${#stale[@]}" -gt 0 ]; then
    mkdir -p "$HERE/.venvs"
    export -f make_client_venv
    export HERE
    printf '%s\0' "${stale[@]}" | xargs -0 -n 1 -P 4 bash -c 'make_client_venv "$0"'
fi
