#!/usr/bin/env bash
# shellcheck disable=SC2016  # the self-check hands single-quoted scripts to bash -c on purpose
# Pushlab TEST PKI generator - everything it makes is for testing only,
# never trust any of it outside tests.
#
# Creates a throwaway test CA, a server certificate for the Pushlab APNs mock,
# APNs-shaped client certificates (certificate-based auth) and a sample
# provider-token signing key (token-based auth). Uses only the `openssl` CLI
# (written against OpenSSL 3.0, as on Debian 12).
#
# Idempotent: files that exist and are still right (matching key, signed by the
# current ca.pem, right bundle/team id, not about to expire) are kept as they
# are; only missing, stale or mismatched files are (re)made. --force remakes all.
# See certs/README.md.

set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

usage() {
    cat <<'EOF'
Usage: generate.sh [options] [OUTPUT_DIR]

Generate Pushlab's TEST certificates and keys (for testing only) into
OUTPUT_DIR (default: the folder holding this script).

Options (each also settable by the environment variable shown):
  -b, --bundle-id ID   app bundle id / APNs topic   [PUSHLAB_BUNDLE_ID, default com.pushlab.demo]
  -t, --team-id ID     Apple team id (OU, JWT iss)  [PUSHLAB_TEAM_ID,   default TEAMPUSHLB]
  -k, --key-id ID      provider-token key id (kid)  [PUSHLAB_KEY_ID,    default PUSHLAB001]
  -o, --org NAME       organisation (O) of client certificates
                                                    [PUSHLAB_ORG,       default "Pushlab Demo"]
  -f, --force          remake everything, including the CA and all keys
  -q, --quiet          print only warnings and errors
  -h, --help           show this help

Examples:
  certs/generate.sh                                   # refresh certs/ in place
  certs/generate.sh -b com.example.app -t ABCDE12345 -k KEY1234567 /tmp/mycerts
EOF
}

BUNDLE_ID="${PUSHLAB_BUNDLE_ID:-com.pushlab.demo}"
TEAM_ID="${PUSHLAB_TEAM_ID:-TEAMPUSHLB}"
KEY_ID="${PUSHLAB_KEY_ID:-PUSHLAB001}"
ORG="${PUSHLAB_ORG:-Pushlab Demo}"
FORCE=0
QUIET=0
OUT=""

while [ $# -gt 0 ]; do
    case "$1" in
        -b|--bundle-id) BUNDLE_ID="${2:?$1 needs a value}"; shift 2 ;;
        --bundle-id=*)  BUNDLE_ID="${1#*=}"; shift ;;
        -t|--team-id)   TEAM_ID="${2:?$1 needs a value}"; shift 2 ;;
        --team-id=*)    TEAM_ID="${1#*=}"; shift ;;
        -k|--key-id)    KEY_ID="${2:?$1 needs a value}"; shift 2 ;;
        --key-id=*)     KEY_ID="${1#*=}"; shift ;;
        -o|--org)       ORG="${2:?$1 needs a value}"; shift 2 ;;
        --org=*)        ORG="${1#*=}"; shift ;;
        -f|--force)     FORCE=1; shift ;;
        -q|--quiet)     QUIET=1; shift ;;
        -h|--help)      usage; exit 0 ;;
        --)             shift; break ;;
        -*)             echo "generate.sh: unknown option: $1" >&2; usage >&2; exit 2 ;;
        *)              if [ -n "$OUT" ]; then echo "generate.sh: only one OUTPUT_DIR" >&2; exit 2; fi
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

# Values end up in openssl config files and -subj strings: keep them plain.
[[ "$BUNDLE_ID" =~ ^[A-Za-z0-9][A-Za-z0-9.-]*$ ]] || die "bad bundle id '$BUNDLE_ID' (letters, digits, '.', '-')"
[ "${#BUNDLE_ID}" -le 200 ] || die "bundle id too long"
[[ "$TEAM_ID" =~ ^[A-Za-z0-9]{1,32}$ ]] || die "bad team id '$TEAM_ID' (letters and digits; Apple's are 10)"
[[ "$KEY_ID" =~ ^[A-Za-z0-9]{1,32}$ ]] || die "bad key id '$KEY_ID' (letters and digits; Apple's are 10)"
if ! [[ "$ORG" =~ ^[A-Za-z0-9][A-Za-z0-9\ .\'\&()-]*$ ]]; then
    die "bad org '$ORG' (letters, digits, spaces and . ' & ( ) -)"
fi

command -v openssl >/dev/null || die "openssl not found"

mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
umask 022
WORK="$(mktemp -d "${TMPDIR:-/tmp}/pushlab-certs.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

# ---------------------------------------------------------------------------
# Settings
CA_DAYS=3650          # 10 years
LEAF_DAYS=825         # the most Apple's TLS clients accept for a server cert
RENEW_BEFORE=$((30 * 86400))   # reissue leaves that expire within 30 days
EXPIRED_START=20200101000000Z
EXPIRED_END=20210101000000Z
P12_PASSWORD=pushlab
CA_CN="Pushlab Test CA (for testing only)"
UNTRUSTED_CA_CN="Pushlab Untrusted Throwaway CA (for testing only, NOT ca.pem)"
SERVER_CN="localhost"
CLIENT_SUBJ="/UID=${BUNDLE_ID}/CN=Apple Push Services: ${BUNDLE_ID}/OU=${TEAM_ID}/O=${ORG}/C=US"
AUTHKEY="AuthKey_${KEY_ID}.p8"
AUTHPUB="AuthKey_${KEY_ID}.pub.pem"
warning_for() { echo "Pushlab TEST $1 - for testing only, never trust or use it outside tests"; }

# ---------------------------------------------------------------------------
# OpenSSL configuration: CA, server and APNs client extensions.
CNF="$WORK/openssl.cnf"
cat >"$CNF" <<EOF
# Pushlab TEST PKI configuration (generated, for testing only)
[ req ]
distinguished_name = req_dn
prompt             = no
utf8               = yes
string_mask        = utf8only

[ req_dn ]
CN = unused

[ v3_ca ]
basicConstraints       = critical, CA:TRUE, pathlen:0
keyUsage               = critical, keyCertSign, cRLSign
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always

[ v3_server ]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, digitalSignature
extendedKeyUsage       = serverAuth
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always
subjectAltName         = @server_san

[ server_san ]
DNS.1 = localhost
IP.1  = 127.0.0.1
IP.2  = ::1
DNS.2 = api.push.apple.com
DNS.3 = api.sandbox.push.apple.com
DNS.4 = api.development.push.apple.com

# APNs client certificates, shaped like Apple's "Apple Push Services" ones.
#   1.2.840.113635.100.6.3.1  development (sandbox) environment, value NULL
#   1.2.840.113635.100.6.3.2  production environment, value NULL
#   1.2.840.113635.100.6.3.6  topics: SEQUENCE { UTF8String topic, SEQUENCE { UTF8String type }, ... }
#   1.2.840.113635.100.5.1    Apple's certificate policy OID (informational here)
# both environments + topic list ("universal" certificate)
[ apns_client_universal ]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, digitalSignature
extendedKeyUsage       = clientAuth
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always
certificatePolicies    = 1.2.840.113635.100.5.1
1.2.840.113635.100.6.3.1 = ASN1:NULL
1.2.840.113635.100.6.3.2 = ASN1:NULL
1.2.840.113635.100.6.3.6 = ASN1:SEQUENCE:apns_topics

[ apns_client_development ]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, digitalSignature
extendedKeyUsage       = clientAuth
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always
certificatePolicies    = 1.2.840.113635.100.5.1
1.2.840.113635.100.6.3.1 = ASN1:NULL
1.2.840.113635.100.6.3.6 = ASN1:SEQUENCE:apns_topics

[ apns_client_production ]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, digitalSignature
extendedKeyUsage       = clientAuth
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always
certificatePolicies    = 1.2.840.113635.100.5.1
1.2.840.113635.100.6.3.2 = ASN1:NULL
1.2.840.113635.100.6.3.6 = ASN1:SEQUENCE:apns_topics

# no topic list: the only topic is the bundle id in the subject's UID
[ apns_client_single_topic ]
basicConstraints       = critical, CA:FALSE
keyUsage               = critical, digitalSignature
extendedKeyUsage       = clientAuth
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always
certificatePolicies    = 1.2.840.113635.100.5.1
1.2.840.113635.100.6.3.1 = ASN1:NULL
1.2.840.113635.100.6.3.2 = ASN1:NULL

[ apns_topics ]
topic1 = FORMAT:UTF8,UTF8String:${BUNDLE_ID}
type1  = SEQUENCE:apns_type_app
topic2 = FORMAT:UTF8,UTF8String:${BUNDLE_ID}.voip
type2  = SEQUENCE:apns_type_voip
topic3 = FORMAT:UTF8,UTF8String:${BUNDLE_ID}.complication
type3  = SEQUENCE:apns_type_complication

[ apns_type_app ]
type = FORMAT:UTF8,UTF8String:app

[ apns_type_voip ]
type = FORMAT:UTF8,UTF8String:voip

[ apns_type_complication ]
type = FORMAT:UTF8,UTF8String:complication

# 'openssl ca' (only used for the expired certificate: OpenSSL 3.0's
# 'x509' cannot set a notBefore/notAfter in the past)
[ ca ]
default_ca = expired_ca

[ expired_ca ]
database        = $WORK/ca-db/index.txt
new_certs_dir   = $WORK/ca-db
serial          = $WORK/ca-db/serial
default_md      = sha256
policy          = apns_policy
unique_subject  = no
email_in_dn     = no
copy_extensions = none

[ apns_policy ]
UID                    = supplied
commonName             = supplied
organizationalUnitName = optional
organizationName       = optional
countryName            = optional
EOF

# ---------------------------------------------------------------------------
# Helpers

# write_pem DEST KIND DESCRIPTION < pem   -- prepend the testing-only comment
write_pem() {
    local dest="$1" kind="$2" desc="$3" tmp="$1.tmp.$$"
    {
        printf '# %s\n' "$(warning_for "$kind")"
        printf '# %s: %s\n' "$(basename "$dest")" "$desc"
        cat
    } >"$tmp"
    mv -f "$tmp" "$dest"
}

# write_clean DEST < content   -- no comment (for consumers that reject one)
write_clean() {
    local dest="$1" tmp="$1.tmp.$$"
    cat >"$tmp"
    mv -f "$tmp" "$dest"
}

serial() { echo "0x$(openssl rand -hex 16)"; }

# quietly CMD... -- run an openssl command, showing its chatter only if it fails
quietly() {
    if ! "$@" 2>"$WORK/stderr.log"; then
        cat "$WORK/stderr.log" >&2
        die "failed: $*"
    fi
}

genkey_ec()  { quietly openssl genpkey -quiet -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -pkeyopt ec_param_enc:named_curve; }
genkey_rsa() { quietly openssl genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:2048; }

pub_of_key()  { openssl pkey -in "$1" -pubout 2>/dev/null; }
pub_of_cert() { openssl x509 -in "$1" -noout -pubkey 2>/dev/null; }

# cert_matches_key CERT KEY
cert_matches_key() {
    [ -s "$1" ] && [ -s "$2" ] || return 1
    local a b
    a="$(pub_of_cert "$1")" || return 1
    b="$(pub_of_key "$2")" || return 1
    [ -n "$a" ] && [ "$a" = "$b" ]
}

# subject in one canonical form
subject_of() { openssl x509 -in "$1" -noout -subject -nameopt RFC2253,-esc_msb,utf8 2>/dev/null; }
subject_of_string() {
    # render a -subj string the same way, via a throwaway CSR
    openssl req -new -key "$WORK/probe-key.pem" -subj "$1" -config "$CNF" 2>/dev/null |
        openssl req -noout -subject -nameopt RFC2253,-esc_msb,utf8 2>/dev/null
}

not_expiring() { openssl x509 -in "$1" -noout -checkend "$RENEW_BEFORE" >/dev/null 2>&1; }

# signed_by_ca CERT [extra verify flags]
signed_by_ca() {
    local cert="$1"; shift
    openssl verify -CAfile "$OUT/ca.pem" "$@" "$cert" >/dev/null 2>&1
}

# leaf_ok CERT KEY EXPECTED_SUBJECT [verify flags] -- keep an existing leaf?
leaf_ok() {
    local cert="$1" key="$2" subj="$3"; shift 3
    [ "$FORCE" = 0 ] || return 1
    [ "$CA_REMADE" = 0 ] || return 1
    cert_matches_key "$cert" "$key" || return 1
    [ "$(subject_of "$cert")" = "$subj" ] || return 1
    signed_by_ca "$cert" "$@" || return 1
}

# issue NAME KEYTYPE SUBJ EXT_SECTION DAYS KIND DESC -- key + CA-signed cert
issue() {
    local name="$1" keytype="$2" subj="$3" ext="$4" days="$5" kind="$6" desc="$7"
    local key="$WORK/$name-key.pem" csr="$WORK/$name.csr" crt="$WORK/$name.pem"
    "genkey_$keytype" >"$key"
    openssl req -new -key "$key" -subj "$subj" -config "$CNF" -out "$csr"
    quietly openssl x509 -req -in "$csr" -CA "$OUT/ca.pem" -CAkey "$OUT/ca-key.pem" \
        -set_serial "$(serial)" -days "$days" -sha256 \
        -extfile "$CNF" -extensions "$ext" -out "$crt"
    write_pem "$OUT/$name-key.pem" "private key" "private key of $name.pem" <"$key"
    write_pem "$OUT/$name.pem" "$kind" "$desc" < <(openssl x509 -in "$crt")
    say "  made $name.pem + $name-key.pem"
}

genkey_ec >"$WORK/probe-key.pem"

# ---------------------------------------------------------------------------
# 1. Test CA
say "Pushlab TEST PKI in $OUT (for testing only)"
CA_REMADE=0
ca_subj="CN=${CA_CN}"
if [ "$FORCE" = 0 ] \
    && cert_matches_key "$OUT/ca.pem" "$OUT/ca-key.pem" \
    && [ "$(subject_of "$OUT/ca.pem")" = "subject=$ca_subj" ] \
    && openssl verify -CAfile "$OUT/ca.pem" "$OUT/ca.pem" >/dev/null 2>&1 \
    && openssl x509 -in "$OUT/ca.pem" -noout -checkend $(( (LEAF_DAYS + 30) * 86400 )) >/dev/null 2>&1; then
    say "  kept ca.pem (valid, matches ca-key.pem)"
else
    genkey_ec >"$WORK/ca-key.pem"
    openssl req -new -x509 -key "$WORK/ca-key.pem" -subj "/CN=${CA_CN}" \
        -set_serial "$(serial)" -days "$CA_DAYS" -sha256 \
        -config "$CNF" -extensions v3_ca -out "$WORK/ca.pem"
    write_pem "$OUT/ca-key.pem" "CA private key" "private key of the Pushlab test CA"  <"$WORK/ca-key.pem"
    write_pem "$OUT/ca.pem" "CA certificate" "Pushlab test CA; trust it only in tests (curl --cacert, cafile=, trustRoots)" \
        < <(openssl x509 -in "$WORK/ca.pem")
    CA_REMADE=1
    say "  made ca.pem + ca-key.pem (new CA: every leaf is reissued)"
fi

# ---------------------------------------------------------------------------
# 2. Server certificate
if leaf_ok "$OUT/server.pem" "$OUT/server-key.pem" "subject=CN=${SERVER_CN}" -purpose sslserver \
    && not_expiring "$OUT/server.pem" \
    && openssl x509 -in "$OUT/server.pem" -noout -checkhost api.push.apple.com >/dev/null 2>&1 \
    && openssl x509 -in "$OUT/server.pem" -noout -checkhost api.development.push.apple.com 2>/dev/null | grep -q 'does match'; then
    say "  kept server.pem"
else
    issue server ec "/CN=${SERVER_CN}" v3_server "$LEAF_DAYS" "server certificate" \
        "TLS server certificate for the Pushlab APNs mock (localhost, 127.0.0.1, ::1, api[.sandbox|.development].push.apple.com)"
fi
write_pem "$OUT/server-chain.pem" "server certificate chain" "server.pem followed by ca.pem" \
    < <(openssl x509 -in "$OUT/server.pem"; openssl x509 -in "$OUT/ca.pem")

# ---------------------------------------------------------------------------
# 3. APNs client certificates
want_client_subj="$(subject_of_string "$CLIENT_SUBJ")"
[ -n "$want_client_subj" ] || die "could not render client subject '$CLIENT_SUBJ'"

client() { # client NAME EXT DESC
    local name="$1" ext="$2" desc="$3"
    if leaf_ok "$OUT/$name.pem" "$OUT/$name-key.pem" "$want_client_subj" -purpose sslclient \
        && not_expiring "$OUT/$name.pem"; then
        say "  kept $name.pem"
    else
        issue "$name" rsa "$CLIENT_SUBJ" "$ext" "$LEAF_DAYS" "APNs client certificate" "$desc"
        CLIENT_REMADE=1
    fi
}
CLIENT_REMADE=0
client client                apns_client_universal \
    "APNs client cert for ${BUNDLE_ID}, development+production, topics app/voip/complication"
MAIN_CLIENT_REMADE=$CLIENT_REMADE
client client-development    apns_client_development \
    "APNs client cert for ${BUNDLE_ID}, development (sandbox) only, topics app/voip/complication"
client client-production     apns_client_production \
    "APNs client cert for ${BUNDLE_ID}, production only, topics app/voip/complication"
client client-single-topic   apns_client_single_topic \
    "APNs client cert for ${BUNDLE_ID}, both environments, no topic list (topic = UID)"

# expired: dates entirely in the past, made with 'openssl ca'
if [ "$FORCE" = 0 ] && [ "$CA_REMADE" = 0 ] \
    && cert_matches_key "$OUT/client-expired.pem" "$OUT/client-expired-key.pem" \
    && [ "$(subject_of "$OUT/client-expired.pem")" = "$want_client_subj" ] \
    && signed_by_ca "$OUT/client-expired.pem" -no_check_time \
    && ! signed_by_ca "$OUT/client-expired.pem"; then
    say "  kept client-expired.pem"
else
    mkdir -p "$WORK/ca-db"; : >"$WORK/ca-db/index.txt"; echo 01 >"$WORK/ca-db/serial"
    genkey_rsa >"$WORK/client-expired-key.pem"
    openssl req -new -key "$WORK/client-expired-key.pem" -subj "$CLIENT_SUBJ" -config "$CNF" \
        -out "$WORK/client-expired.csr"
    quietly openssl ca -batch -config "$CNF" -name expired_ca -notext -preserveDN -rand_serial \
        -cert "$OUT/ca.pem" -keyfile "$OUT/ca-key.pem" \
        -startdate "$EXPIRED_START" -enddate "$EXPIRED_END" \
        -extfile "$CNF" -extensions apns_client_universal \
        -in "$WORK/client-expired.csr" -out "$WORK/client-expired.pem"
    write_pem "$OUT/client-expired-key.pem" "private key" "private key of client-expired.pem" <"$WORK/client-expired-key.pem"
    write_pem "$OUT/client-expired.pem" "APNs client certificate" \
        "EXPIRED APNs client cert for ${BUNDLE_ID} (valid 2020-01-01..2021-01-01 only)" \
        < <(openssl x509 -in "$WORK/client-expired.pem")
    say "  made client-expired.pem + client-expired-key.pem"
fi

# untrusted: same shape, signed by a throwaway CA whose key is discarded
if [ "$FORCE" = 0 ] \
    && cert_matches_key "$OUT/client-untrusted.pem" "$OUT/client-untrusted-key.pem" \
    && [ "$(subject_of "$OUT/client-untrusted.pem")" = "$want_client_subj" ] \
    && ! signed_by_ca "$OUT/client-untrusted.pem" -no_check_time \
    && not_expiring "$OUT/client-untrusted.pem"; then
    say "  kept client-untrusted.pem"
else
    genkey_ec >"$WORK/untrusted-ca-key.pem"
    openssl req -new -x509 -key "$WORK/untrusted-ca-key.pem" -subj "/CN=${UNTRUSTED_CA_CN}" \
        -set_serial "$(serial)" -days "$CA_DAYS" -sha256 \
        -config "$CNF" -extensions v3_ca -out "$WORK/untrusted-ca.pem"
    genkey_rsa >"$WORK/client-untrusted-key.pem"
    openssl req -new -key "$WORK/client-untrusted-key.pem" -subj "$CLIENT_SUBJ" -config "$CNF" \
        -out "$WORK/client-untrusted.csr"
    quietly openssl x509 -req -in "$WORK/client-untrusted.csr" \
        -CA "$WORK/untrusted-ca.pem" -CAkey "$WORK/untrusted-ca-key.pem" \
        -set_serial "$(serial)" -days "$LEAF_DAYS" -sha256 \
        -extfile "$CNF" -extensions apns_client_universal -out "$WORK/client-untrusted.pem"
    write_pem "$OUT/client-untrusted-key.pem" "private key" "private key of client-untrusted.pem" <"$WORK/client-untrusted-key.pem"
    write_pem "$OUT/client-untrusted.pem" "APNs client certificate" \
        "UNTRUSTED APNs client cert for ${BUNDLE_ID}, signed by a throwaway CA that is not ca.pem" \
        < <(openssl x509 -in "$WORK/client-untrusted.pem")
    say "  made client-untrusted.pem + client-untrusted-key.pem"
fi

# client-combined.pem: certificate + key in one file (aioapns, PyAPNs2 and
# Python's load_cert_chain(certfile) without keyfile want this)
write_pem "$OUT/client-combined.pem" "APNs client certificate and private key" \
    "client.pem followed by client-key.pem" \
    < <(openssl x509 -in "$OUT/client.pem"; openssl pkey -in "$OUT/client-key.pem")

# client.p12: PKCS#12 of client.pem + key + CA, password "pushlab".
# 3DES/SHA-1 PBE (not OpenSSL 3's AES default) so macOS Keychain and older
# tools can import it too; no legacy provider needed.
p12_cert_fp() {
    openssl pkcs12 -in "$1" -passin "pass:$P12_PASSWORD" -nokeys -clcerts 2>/dev/null |
        openssl x509 -noout -fingerprint -sha256 2>/dev/null
}
if [ "$FORCE" = 0 ] && [ "$MAIN_CLIENT_REMADE" = 0 ] && [ -s "$OUT/client.p12" ] \
    && [ "$(p12_cert_fp "$OUT/client.p12")" = "$(openssl x509 -in "$OUT/client.pem" -noout -fingerprint -sha256)" ]; then
    say "  kept client.p12"
else
    openssl pkcs12 -export -in "$OUT/client.pem" -inkey "$OUT/client-key.pem" \
        -certfile "$OUT/ca.pem" \
        -name "Pushlab TEST APNs client ${BUNDLE_ID} - for testing only" \
        -certpbe PBE-SHA1-3DES -keypbe PBE-SHA1-3DES -macalg sha1 -iter 2048 \
        -passout "pass:$P12_PASSWORD" -out "$WORK/client.p12"
    mv -f "$WORK/client.p12" "$OUT/client.p12"
    say "  made client.p12 (password: $P12_PASSWORD)"
fi

# ---------------------------------------------------------------------------
# 4. Provider-token (JWT, ES256) signing key, like Apple's AuthKey_<kid>.p8.
# Kept WITHOUT a leading comment: swift-crypto's / CryptoKit's
# P256.Signing.PrivateKey(pemRepresentation:) rejects anything before
# -----BEGIN (see README.md). The file name and README say "testing only".
if [ "$FORCE" = 0 ] && [ -s "$OUT/$AUTHKEY" ] \
    && [ "$(head -c 28 "$OUT/$AUTHKEY")" = "-----BEGIN PRIVATE KEY-----" ] \
    && openssl pkey -in "$OUT/$AUTHKEY" -noout -text 2>/dev/null | grep -q 'NIST CURVE: P-256'; then
    say "  kept $AUTHKEY"
else
    genkey_ec >"$WORK/authkey-raw.pem"
    openssl pkcs8 -topk8 -nocrypt -in "$WORK/authkey-raw.pem" -out "$WORK/authkey.p8"
    write_clean "$OUT/$AUTHKEY" <"$WORK/authkey.p8"
    say "  made $AUTHKEY"
fi
write_clean "$OUT/$AUTHPUB" < <(openssl pkey -in "$OUT/$AUTHKEY" -pubout)

write_clean "$OUT/sample-key.json" <<EOF
{"keyId":"${KEY_ID}","teamId":"${TEAM_ID}","bundleId":"${BUNDLE_ID}","privateKey":"${AUTHKEY}","publicKey":"${AUTHPUB}","_comment":"Pushlab TEST key - for testing only, never use it outside tests"}
EOF

# a note for output folders other than certs/ itself
if [ ! -e "$OUT/README.md" ]; then
    write_clean "$OUT/README.md" <<EOF
# Pushlab TEST certificates and keys - for testing only

Made by Pushlab's certs/generate.sh. Never trust ca.pem, nor use any of these
certificates or keys, outside tests. See certs/README.md in the Pushlab
repository for what each file is (sample-key.json names the token key's ids).
EOF
fi

# ---------------------------------------------------------------------------
# 5. Self-check
fail=0
check() { # check DESCRIPTION command...
    local what="$1"; shift
    if "$@" >/dev/null 2>&1; then say "  ok   $what"; else echo "  FAIL $what" >&2; fail=1; fi
}
say "Checking:"
check "ca.pem is self-signed and valid" openssl verify -CAfile "$OUT/ca.pem" "$OUT/ca.pem"
check "server.pem chains to ca.pem (sslserver)" signed_by_ca "$OUT/server.pem" -purpose sslserver
check "server-chain.pem = server.pem + ca.pem" \
    bash -c '[ "$(openssl crl2pkcs7 -nocrl -certfile "$1" | openssl pkcs7 -print_certs | grep -c "^subject=")" = 2 ]' _ "$OUT/server-chain.pem"
for n in client client-development client-production client-single-topic; do
    check "$n.pem chains to ca.pem (sslclient)" signed_by_ca "$OUT/$n.pem" -purpose sslclient
done
check "client-expired.pem is rejected (expired)" bash -c '! openssl verify -CAfile "$1" "$2"' _ "$OUT/ca.pem" "$OUT/client-expired.pem"
check "client-expired.pem is otherwise signed by ca.pem" signed_by_ca "$OUT/client-expired.pem" -no_check_time
check "client-untrusted.pem is rejected (unknown CA)" bash -c '! openssl verify -no_check_time -CAfile "$1" "$2"' _ "$OUT/ca.pem" "$OUT/client-untrusted.pem"
for n in ca server client client-development client-production client-single-topic client-expired client-untrusted; do
    check "$n.pem matches $n-key.pem" cert_matches_key "$OUT/$n.pem" "$OUT/$n-key.pem"
done
check "client.p12 opens with password '$P12_PASSWORD' and holds client.pem" \
    bash -c '[ "$(openssl pkcs12 -in "$1" -passin pass:pushlab -nokeys -clcerts | openssl x509 -noout -fingerprint -sha256)" = "$(openssl x509 -in "$2" -noout -fingerprint -sha256)" ]' _ "$OUT/client.p12" "$OUT/client.pem"
check "$AUTHKEY is a P-256 PKCS#8 key" \
    bash -c 'openssl pkey -in "$1" -noout -text | grep -q "NIST CURVE: P-256" && head -1 "$1" | grep -qx -- "-----BEGIN PRIVATE KEY-----"' _ "$OUT/$AUTHKEY"
check "$AUTHPUB is the public half of $AUTHKEY" \
    bash -c '[ "$(openssl pkey -in "$1" -pubout)" = "$(openssl pkey -pubin -in "$2")" ]' _ "$OUT/$AUTHKEY" "$OUT/$AUTHPUB"
# APNs extensions: environment OIDs and the exact shape of the topic list
apns_oids() { openssl asn1parse -in "$1" | grep -o '1\.2\.840\.113635\.100\.6\.3\.[0-9]*' | sort | tr '\n' ' '; }
topics_of() { # asn1parse of the 1.2.840.113635.100.6.3.6 extension value, as "depth TYPE :value"
    local off
    off="$(openssl asn1parse -in "$1" |
        awk '/:1\.2\.840\.113635\.100\.6\.3\.6$/ {f=1; next} f && /OCTET STRING/ {sub(":.*", "", $1); print $1; exit}')"
    [ -n "$off" ] || return 1
    openssl asn1parse -in "$1" -strparse "$off" |
        sed -E 's/^ *[0-9]+:d=([0-9]+) +hl= *[0-9]+ +l= *[0-9]+ +(prim|cons): +/\1 /; s/ +:/ :/; s/ +$//'
}
want_topics="0 SEQUENCE
1 UTF8STRING :${BUNDLE_ID}
1 SEQUENCE
2 UTF8STRING :app
1 UTF8STRING :${BUNDLE_ID}.voip
1 SEQUENCE
2 UTF8STRING :voip
1 UTF8STRING :${BUNDLE_ID}.complication
1 SEQUENCE
2 UTF8STRING :complication"
E1=1.2.840.113635.100.6.3.1; E2=1.2.840.113635.100.6.3.2; E6=1.2.840.113635.100.6.3.6
for spec in "client:$E1 $E2 $E6 " "client-development:$E1 $E6 " "client-production:$E2 $E6 " \
            "client-single-topic:$E1 $E2 " "client-expired:$E1 $E2 $E6 " "client-untrusted:$E1 $E2 $E6 "; do
    n="${spec%%:*}"; want="${spec#*:}"
    check "$n.pem has APNs extensions: $want" bash -c '[ "$1" = "$2" ]' _ "$(apns_oids "$OUT/$n.pem")" "$want"
    case "$want" in *"$E6"*)
        check "$n.pem topic list is SEQUENCE { UTF8String, SEQUENCE { UTF8String }, ... }" \
            bash -c '[ "$1" = "$2" ]' _ "$(topics_of "$OUT/$n.pem")" "$want_topics" ;;
    esac
done
[ "$fail" = 0 ] || die "self-check failed"

# PushlabTesting ships the CA, the server certificate and the sample key as resources.
RESOURCES="$SCRIPT_DIR/../Sources/PushlabTesting/Resources/Certificates"
if [ "$OUT" = "$SCRIPT_DIR" ] && [ -d "$RESOURCES" ] && [ -f "$OUT/AuthKey_PUSHLAB001.p8" ]; then
    cp "$OUT/ca.pem" "$OUT/server.pem" "$OUT/server-key.pem" "$OUT/AuthKey_PUSHLAB001.p8" "$OUT/AuthKey_PUSHLAB001.pub.pem" "$RESOURCES/"
    say "Copied the CA, server certificate and sample key to Sources/PushlabTesting/Resources/Certificates"
fi
say "Done. Everything in $OUT is for testing only."
