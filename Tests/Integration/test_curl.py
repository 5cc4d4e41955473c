"""curl (libcurl + nghttp2 + OpenSSL) against Pushlab: the APNs responses, end to end."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import time
from dataclasses import dataclass

import pytest

from conftest import CERTS, REPO, tool
from world import (
    DEV_TOKEN,
    DEV_UNREGISTERED_TOKEN,
    KEY_ID,
    OTHER_TOPIC,
    PROD_TOKEN,
    TEAM_ID,
    TOPIC,
    UNKNOWN_KEY_ID,
    UNKNOWN_TOKEN,
    dev_token,
    provider_token,
)

UPPER_UUID = re.compile(r"^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$")
LOWER_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
BODY = '{"aps":{"alert":"Hello from curl"}}'


def token_auth() -> list[str]:
    return ["-H", f"authorization: bearer {provider_token()}", "-H", f"apns-topic: {TOPIC}",
            "-H", "apns-push-type: alert"]


def client_cert(name: str = "client") -> list[str]:
    return ["--cert", str(CERTS / f"{name}.pem"), "--key", str(CERTS / f"{name}-key.pem"),
            "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert"]


@dataclass
class CurlResult:
    exitcode: int
    status: int
    http_version: str
    headers: dict          # lower-case name -> value (last wins)
    body: bytes
    info: dict             # curl's %{json}
    stderr: str


def curl(*args: str, tmp_path, check: bool = True) -> CurlResult:
    hdr, body = tmp_path / "headers.txt", tmp_path / "body.bin"
    for p in (hdr, body):
        p.unlink(missing_ok=True)
    cmd = [tool("curl"), "-sS", "--max-time", "20", "--cacert", str(CERTS / "ca.pem"),
           "-D", str(hdr), "-o", str(body), "-w", "%{json}", *args]
    p = subprocess.run(cmd, cwd=REPO, capture_output=True, timeout=60)
    info = json.loads(p.stdout.decode() or "{}")
    if check:
        assert p.returncode == 0, f"curl failed ({p.returncode}): {p.stderr.decode()}"
    lines = hdr.read_text().splitlines() if hdr.exists() else []
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
    return CurlResult(p.returncode, int(info.get("http_code", 0)), str(info.get("http_version", "")),
                      headers, body.read_bytes() if body.exists() else b"", info, p.stderr.decode())


def url(port: int, token: str = DEV_TOKEN, path: str | None = None, host: str = "127.0.0.1") -> str:
    return f"https://{host}:{port}{path or '/3/device/' + token}"


def assert_success(r: CurlResult, development: bool = True, apns_id: str | None = None) -> None:
    assert r.http_version == "2", f"not HTTP/2: {r.http_version}"
    assert r.status == 200, (r.status, r.body)
    assert r.body == b"", f"a 200 must have no body, got {r.body!r}"
    assert r.info["size_download"] == 0
    if apns_id is None:
        assert UPPER_UUID.match(r.headers.get("apns-id", "")), r.headers
    else:
        assert r.headers.get("apns-id") == apns_id, r.headers
    assert "content-type" not in r.headers, r.headers
    # Reference 1.4: apns-unique-id (lower case) on development only.
    if development:
        assert LOWER_UUID.match(r.headers.get("apns-unique-id", "")), r.headers
    else:
        assert "apns-unique-id" not in r.headers, r.headers


def assert_error(r: CurlResult, status: int, reason: str, timestamp: bool = False) -> None:
    assert r.http_version == "2", f"not HTTP/2: {r.http_version}"
    assert r.status == status, (r.status, r.body)
    assert r.headers.get("content-type") == "application/json", r.headers
    assert "apns-id" in r.headers, r.headers
    body = json.loads(r.body)
    if timestamp:
        assert set(body) == {"reason", "timestamp"} and type(body["timestamp"]) is int, body
    else:
        assert r.body == json.dumps({"reason": reason}, separators=(",", ":")).encode(), r.body
    assert body["reason"] == reason


def test_post_is_200_with_generated_upper_case_apns_id(server, tmp_path):
    r = curl("--http2", *token_auth(), "-d", BODY, url(server.dev_port), tmp_path=tmp_path)
    assert_success(r)
    # A new id per request.
    r2 = curl("--http2", *token_auth(), "-d", BODY, url(server.dev_port), tmp_path=tmp_path)
    assert_success(r2)
    assert r2.headers["apns-id"] != r.headers["apns-id"]
    assert r2.headers["apns-unique-id"] != r.headers["apns-unique-id"]


@pytest.mark.parametrize("apns_id", [
    "3C5B3E1A-7F4D-4C2E-9B1A-2D3E4F5A6B7C",   # canonical upper case
    "123e4567-e89b-12d3-a456-426614174000",   # lower case, as aioapns sends it: echoed as sent
])
def test_apns_id_is_echoed(server, tmp_path, apns_id):
    r = curl("--http2", *token_auth(), "-H", f"apns-id: {apns_id}", "-d", BODY, url(server.dev_port),
             tmp_path=tmp_path)
    assert_success(r, apns_id=apns_id)


def test_unusable_apns_id_is_400_bad_message_id(server, tmp_path):
    r = curl("--http2", *token_auth(), "-H", "apns-id: not-a-uuid", "-d", BODY, url(server.dev_port),
             tmp_path=tmp_path)
    assert_error(r, 400, "BadMessageId")
    assert UPPER_UUID.match(r.headers["apns-id"]), "the bad id cannot be echoed: a fresh one"


def test_get_is_405_method_not_allowed(server, tmp_path):
    r = curl("--http2", *token_auth(), "-X", "GET", url(server.dev_port), tmp_path=tmp_path)
    assert_error(r, 405, "MethodNotAllowed")
    assert UPPER_UUID.match(r.headers["apns-id"])


@pytest.mark.parametrize("method", ["PUT", "DELETE"])
def test_other_methods_are_405(server, tmp_path, method):
    r = curl("--http2", *token_auth(), "-X", method, "-d", BODY, url(server.dev_port), tmp_path=tmp_path)
    assert_error(r, 405, "MethodNotAllowed")


def test_head_is_405_without_a_body(server, tmp_path):
    """RFC 9110 9.3.2: the server MUST NOT send content in a response to HEAD.
    curl -I treats a DATA frame on a HEAD response as a protocol error."""
    r = curl("--http2", "-I", url(server.dev_port), tmp_path=tmp_path, check=False)
    assert r.exitcode == 0, f"curl -I failed: {r.stderr}"
    assert r.status == 405 and r.http_version == "2"
    assert r.headers.get("content-type") == "application/json"
    # With -I curl prints the headers where the body would go; the JSON must not be there.
    assert b'"reason"' not in r.body


@pytest.mark.parametrize("path", ["/3/devices/abc", "/2/device/" + DEV_TOKEN, "/", "/3/broadcast"])
def test_bad_path_is_404(server, tmp_path, path):
    r = curl("--http2", *token_auth(), "-d", BODY, url(server.dev_port, path=path), tmp_path=tmp_path)
    assert_error(r, 404, "BadPath")


def test_empty_body_is_400_payload_empty(server, tmp_path):
    r = curl("--http2", *token_auth(), "-X", "POST", url(server.dev_port), tmp_path=tmp_path)
    assert_error(r, 400, "PayloadEmpty")


def test_error_response_echoes_apns_id(server, tmp_path):
    apns_id = "0E1D2C3B-4A59-6877-8695-A4B3C2D1E0F9"
    r = curl("--http2", *token_auth(), "-X", "POST", "-H", f"apns-id: {apns_id}", url(server.dev_port),
             tmp_path=tmp_path)
    assert_error(r, 400, "PayloadEmpty")
    assert r.headers["apns-id"] == apns_id


@pytest.mark.parametrize("args,token,status,reason", [
    ((), DEV_TOKEN, 403, "MissingProviderToken"),                       # no authorization at all
    (("-H", "authorization: bearer a.b.c"), DEV_TOKEN, 403, "InvalidProviderToken"),
    ("auth", UNKNOWN_TOKEN, 400, "BadDeviceToken"),                     # well formed, not registered
    ("auth", PROD_TOKEN, 400, "BadDeviceToken"),                        # a production token on development
])
def test_rejections_reach_the_client(server, tmp_path, args, token, status, reason):
    args = token_auth() if args == "auth" else [*args, "-H", f"apns-topic: {TOPIC}"]
    r = curl("--http2", *args, "-d", BODY, url(server.dev_port, token), tmp_path=tmp_path)
    assert_error(r, status, reason)


def test_unregistered_token_is_410_with_timestamp(server, tmp_path):
    r = curl("--http2", *token_auth(), "-d", BODY, url(server.dev_port, DEV_UNREGISTERED_TOKEN), tmp_path=tmp_path)
    assert_error(r, 410, "Unregistered", timestamp=True)
    assert json.loads(r.body)["timestamp"] == 1767225600000     # 2026-01-01T00:00:00Z, in milliseconds


def test_production_port(server, tmp_path):
    assert_success(curl("--http2", *token_auth(), "-d", BODY, url(server.prod_port, PROD_TOKEN), tmp_path=tmp_path),
                   development=False)
    assert_error(curl("--http2", *token_auth(), "-X", "GET", url(server.prod_port, PROD_TOKEN), tmp_path=tmp_path),
                 405, "MethodNotAllowed")


@pytest.mark.parametrize("which", ["dev", "prod"])
def test_client_certificate_is_accepted(server, tmp_path, which):
    port, token = (server.dev_port, DEV_TOKEN) if which == "dev" else (server.prod_port, PROD_TOKEN)
    r = curl("--http2", *client_cert(), "-d", BODY, url(port, token), tmp_path=tmp_path)
    assert_success(r, development=which == "dev")


@pytest.mark.parametrize("host,which", [
    ("api.sandbox.push.apple.com", "dev"),
    ("api.development.push.apple.com", "dev"),
    ("api.push.apple.com", "prod"),
])
def test_apple_host_names_via_resolve(server, tmp_path, host, which):
    port, token = (server.dev_port, DEV_TOKEN) if which == "dev" else (server.prod_port, PROD_TOKEN)
    # Certificate verification stays on: the server certificate must carry this SAN.
    r = curl("--http2", *token_auth(), "--resolve", f"{host}:{port}:127.0.0.1", "-d", BODY,
             url(port, token, host=host), tmp_path=tmp_path)
    assert r.info["ssl_verify_result"] == 0
    assert_success(r, development=which == "dev")


def test_apple_host_name_decides_the_environment(server, tmp_path):
    # The production name on the development port: served as production.
    host = "api.push.apple.com"
    r = curl("--http2", *token_auth(), "--resolve", f"{host}:{server.dev_port}:127.0.0.1", "-d", BODY,
             url(server.dev_port, PROD_TOKEN, host=host), tmp_path=tmp_path)
    assert_success(r, development=False)


@pytest.mark.parametrize("tls", [("--tlsv1.2", "--tls-max", "1.2"), ("--tlsv1.3",)])
def test_tls_1_2_and_1_3(server, tmp_path, tls):
    r = curl("--http2", "-v", *tls, *token_auth(), "-d", BODY, url(server.dev_port), tmp_path=tmp_path)
    assert_success(r)
    want = "TLSv1.2" if "1.2" in tls else "TLSv1.3"
    assert re.search(rf"SSL connection using {want}\b", r.stderr), r.stderr
    assert "ALPN: server accepted h2" in r.stderr, r.stderr


def test_http1_is_not_served(server, tmp_path):
    # curl --http1.1 offers ALPN "http/1.1" only. Pushlab selects no protocol and
    # speaks HTTP/2 anyway (SETTINGS, then GOAWAY), so curl sees no HTTP/1.x
    # response at all. What matters: no HTTP/1.1 answer, and the server lives on.
    r = curl("--http1.1", *token_auth(), "-d", BODY, url(server.dev_port), tmp_path=tmp_path, check=False)
    assert r.exitcode != 0
    assert r.status == 0 and not r.http_version.startswith("1"), r.info
    assert server.alive()
    assert_success(curl("--http2", *token_auth(), "-d", BODY, url(server.dev_port), tmp_path=tmp_path))


def test_many_requests_on_one_curl_connection(server, tmp_path):
    # Several URLs in one curl run reuse one HTTP/2 connection.
    n = 20
    args = []
    for i in range(n):
        args += ["-d", BODY, "-o", str(tmp_path / f"b{i}"), url(server.dev_port, dev_token(i))]
    cmd = [tool("curl"), "-sS", "--http2", "--cacert", str(CERTS / "ca.pem"), *token_auth(), "-w", "%{json}\n", *args]
    p = subprocess.run(cmd, cwd=REPO, capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr.decode()
    infos = [json.loads(line) for line in p.stdout.decode().splitlines() if line.strip()]
    assert len(infos) == n
    assert all(i["http_code"] == 200 and i["http_version"] == "2" for i in infos), infos
    assert sum(i["num_connects"] for i in infos) == 1, "curl should reuse one connection"
    assert all((tmp_path / f"b{i}").read_bytes() == b"" for i in range(n))


# --- Provider tokens made the way Apple's command-line recipe makes them --------
#
# "Sending push notifications using command-line tools" (reference 4.1, A12):
# header and claims base64url-encoded with `openssl base64`, the signature made
# with `openssl dgst -sha256 -sign` on the .p8, so it is ASN.1 DER (30 .. 02 .. 02 ..),
# not the raw R||S that JWT libraries (and world.provider_token()) produce.
# Run by bash, verbatim apart from the variables coming from the environment.

APPLE_JWT_RECIPE = r"""
set -euo pipefail
JWT_HEADER=$(printf '{ "alg": "ES256", "kid": "%s" }' "${AUTH_KEY_ID}" | openssl base64 -e -A | tr -- '+/' '-_' | tr -d =)
JWT_CLAIMS=$(printf '{ "iss": "%s", "iat": %d }' "${TEAM_ID}" "${JWT_ISSUE_TIME}" | openssl base64 -e -A | tr -- '+/' '-_' | tr -d =)
JWT_HEADER_CLAIMS="${JWT_HEADER}.${JWT_CLAIMS}"
JWT_SIGNED_HEADER_CLAIMS=$(printf "${JWT_HEADER_CLAIMS}" | openssl dgst -binary -sha256 -sign "${TOKEN_KEY_FILE_NAME}" | openssl base64 -e -A | tr -- '+/' '-_' | tr -d =)
printf '%s' "${JWT_HEADER}.${JWT_CLAIMS}.${JWT_SIGNED_HEADER_CLAIMS}"
"""


def b64url_decode(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def b64url_encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def apple_recipe_token(key_file=CERTS / f"AuthKey_{KEY_ID}.p8", key_id: str = KEY_ID, team_id: str = TEAM_ID,
                       issued_at: int | None = None) -> str:
    env = {**os.environ, "TOKEN_KEY_FILE_NAME": str(key_file), "AUTH_KEY_ID": key_id, "TEAM_ID": team_id,
           "JWT_ISSUE_TIME": str(int(time.time()) if issued_at is None else issued_at)}
    tool("openssl")
    p = subprocess.run(["bash", "-c", APPLE_JWT_RECIPE], env=env, capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    token = p.stdout
    header, claims, sig = token.split(".")
    # It is what the recipe says it is: spaced JSON and a DER ECDSA signature.
    assert json.loads(b64url_decode(header)) == {"alg": "ES256", "kid": key_id}
    assert json.loads(b64url_decode(claims))["iss"] == team_id
    der = b64url_decode(sig)
    assert der[0] == 0x30 and der[1] == len(der) - 2 and der[2] == 0x02, f"not a DER signature: {der.hex()}"
    return token


def der_token_auth(token: str | None) -> list[str]:
    auth = [] if token is None else ["-H", f"authorization: bearer {token}"]
    return [*auth, "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert"]


def test_der_signed_provider_token_from_apples_recipe_is_200(default_server, tmp_path):
    r = curl("--http2", *der_token_auth(apple_recipe_token()), "-d", BODY, url(default_server.dev_port),
             tmp_path=tmp_path)
    assert_success(r)


def test_der_signed_token_with_one_signature_byte_changed_is_403(default_server, tmp_path):
    header, claims, sig = apple_recipe_token().split(".")
    der = bytearray(b64url_decode(sig))
    der[-1] ^= 0x01     # the last byte of S: still well-formed DER, but no longer the signature
    tampered = f"{header}.{claims}.{b64url_encode(bytes(der))}"
    r = curl("--http2", *der_token_auth(tampered), "-d", BODY, url(default_server.dev_port), tmp_path=tmp_path)
    assert_error(r, 403, "InvalidProviderToken")


def test_der_signed_token_issued_over_an_hour_ago_is_403_expired(default_server, tmp_path):
    """Reference 4.3: an `iat` more than one hour old is ExpiredProviderToken."""
    token = apple_recipe_token(issued_at=int(time.time()) - 3600 - 120)
    r = curl("--http2", *der_token_auth(token), "-d", BODY, url(default_server.dev_port), tmp_path=tmp_path)
    assert_error(r, 403, "ExpiredProviderToken")


def test_der_signed_token_for_an_unknown_key_id_is_403(default_server, tmp_path, throwaway_key):
    token = apple_recipe_token(key_file=throwaway_key, key_id=UNKNOWN_KEY_ID)
    r = curl("--http2", *der_token_auth(token), "-d", BODY, url(default_server.dev_port), tmp_path=tmp_path)
    assert_error(r, 403, "InvalidProviderToken")


# --- Certificate auth: the topic (reference 5.2, 5.3) -----------------------------

def cert_only(name: str) -> list[str]:
    return ["--cert", str(CERTS / f"{name}.pem"), "--key", str(CERTS / f"{name}-key.pem"),
            "-H", "apns-push-type: alert"]


def test_single_topic_certificate_without_apns_topic_uses_its_uid(default_server, tmp_path):
    """No topic list in the certificate: the subject's UID is the default topic."""
    r = curl("--http2", *cert_only("client-single-topic"), "-d", BODY, url(default_server.dev_port),
             tmp_path=tmp_path)
    assert_success(r)


def test_multi_topic_certificate_without_apns_topic_is_400_missing_topic(default_server, tmp_path):
    r = curl("--http2", *cert_only("client"), "-d", BODY, url(default_server.dev_port), tmp_path=tmp_path)
    assert_error(r, 400, "MissingTopic")


@pytest.mark.parametrize("cert", ["client", "client-single-topic"])
def test_certificate_with_a_topic_it_does_not_carry_is_400_bad_topic(default_server, tmp_path, cert):
    r = curl("--http2", *cert_only(cert), "-H", f"apns-topic: {OTHER_TOPIC}", "-d", BODY,
             url(default_server.dev_port), tmp_path=tmp_path)
    assert_error(r, 400, "BadTopic")
