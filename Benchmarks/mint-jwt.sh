#!/usr/bin/env bash
# Mint an APNs provider authentication token (ES256 JWT) and print it.
#
#   Benchmarks/mint-jwt.sh KEYFILE KEYID TEAMID [IAT]
#
# KEYFILE is a PKCS#8 EC P-256 private key (an AuthKey_<KEYID>.p8 file),
# KEYID goes in the JOSE header ("kid"), TEAMID in the claims ("iss").
# IAT (seconds since the epoch) defaults to now; pass it to get a
# reproducible token. ECDSA signatures are randomised, so the signature
# part still differs between runs.
#
# The signature is the JWS form (RFC 7518 §3.4): raw R||S, 32 bytes each,
# base64url without padding, not the DER that `openssl dgst -sign` emits.
# Needs only openssl and coreutils (basenc).
set -euo pipefail

if [[ $# -lt 3 || $# -gt 4 ]]; then
    echo "usage: $0 KEYFILE KEYID TEAMID [IAT]" >&2
    exit 2
fi
keyfile=$1 keyid=$2 teamid=$3 iat=${4:-$(date +%s)}
[[ -r $keyfile ]] || { echo "$0: cannot read key file: $keyfile" >&2; exit 1; }
[[ $iat =~ ^[0-9]+$ ]] || { echo "$0: IAT must be an integer: $iat" >&2; exit 2; }

b64url() { basenc --base64url -w0 | tr -d '='; }

header=$(printf '{"alg":"ES256","kid":"%s"}' "$keyid" | b64url)
claims=$(printf '{"iss":"%s","iat":%s}' "$teamid" "$iat" | b64url)
signing_input="$header.$claims"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%s' "$signing_input" \
    | openssl dgst -sha256 -sign "$keyfile" -binary >"$tmp/sig.der"

# ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }. asn1parse prints
# each INTEGER as upper-case hex; strip any sign byte / leading zeros and
# left-pad to 32 bytes (64 hex digits).
mapfile -t ints < <(openssl asn1parse -inform DER -in "$tmp/sig.der" \
    | awk -F: '/prim: INTEGER/ { print $NF }')
if [[ ${#ints[@]} -ne 2 ]]; then
    echo "$0: unexpected signature structure (is $keyfile a P-256 EC key?)" >&2
    exit 1
fi
raw_hex=""
for h in "${ints[@]}"; do
    h=${h//[[:space:]]/}
    h=${h#"${h%%[!0]*}"} # strip leading zeros
    if (( ${#h} > 64 )); then
        echo "$0: signature integer longer than 32 bytes (not a P-256 key?)" >&2
        exit 1
    fi
    raw_hex+=$(printf '%64s' "$h" | tr ' ' 0)
done
signature=$(printf '%s' "$raw_hex" | basenc --base16 -d | b64url)

printf '%s.%s\n' "$signing_input" "$signature"
