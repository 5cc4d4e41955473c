"""`pushlab certs`: the test PKI made through OpenSSL's library, checked with the openssl CLI, then
used by a real `pushlab serve` for certificate auth; and certs/generate.sh, its thin wrapper."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from conftest import CERTS, REPO, tool, wait_for_binary
from world import DEV_TOKEN, PROD_TOKEN, TOPIC

CERT_FILES = ["ca.pem", "server.pem", "server-chain.pem", "client.pem", "client-development.pem",
              "client-production.pem", "client-single-topic.pem", "client-expired.pem", "client-untrusted.pem"]
KEY_FILES = ["ca-key.pem", "server-key.pem", "client-key.pem", "client-development-key.pem",
             "client-production-key.pem", "client-single-topic-key.pem", "client-expired-key.pem",
             "client-untrusted-key.pem", "client-combined.pem"]
# Not PEM pairs: the .p12, the token key (no comment lines), sample-key.json and the folder's note.
SENDER_FILES = ["client.p12", "AuthKey_PUSHLAB001.p8", "AuthKey_PUSHLAB001.pub.pem", "sample-key.json", "README.md"]
PRIVATE_SENDER_FILES = ["client.p12", "AuthKey_PUSHLAB001.p8"]
E1, E2, E6 = "1.2.840.113635.100.6.3.1", "1.2.840.113635.100.6.3.2", "1.2.840.113635.100.6.3.6"
BODY = '{"aps":{"alert":"Hello from pushlab certs"}}'


def certs(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(wait_for_binary()), "certs", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=120)


def openssl(*args: str, check: bool = True, stdin: str | None = None) -> subprocess.CompletedProcess:
    p = subprocess.run([tool("openssl"), *args], input=stdin, capture_output=True, text=True, timeout=60)
    if check:
        assert p.returncode == 0, f"openssl {' '.join(args)}: {p.stderr}"
    return p


def contents(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


@pytest.fixture(scope="module")
def pki(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("certs") / "pki"
    p = certs(str(directory))
    assert p.returncode == 0, p.stderr
    return directory


# --- what it writes -------------------------------------------------------------------

def test_every_file_is_written_once_with_private_keys_0600(tmp_path):
    directory = tmp_path / "new" / "pki"          # made, parents too
    p = certs(str(directory))
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    wrote = [line.split()[1] for line in p.stdout.splitlines() if line.startswith("wrote ")]
    assert sorted(wrote) == sorted(str(directory / name) for name in CERT_FILES + KEY_FILES + SENDER_FILES)
    for name in KEY_FILES + PRIVATE_SENDER_FILES:
        assert stat.S_IMODE((directory / name).stat().st_mode) == 0o600, name
    for name in CERT_FILES:
        assert stat.S_IMODE((directory / name).stat().st_mode) & 0o077 != 0o077  # readable certificates
    for name in CERT_FILES + KEY_FILES:
        first = (directory / name).read_text().splitlines()[:3]
        assert first[0].startswith("# Pushlab TEST ") and "for testing only" in first[0], name
        assert first[1].startswith(f"# {name}: ") and first[2].startswith("-----BEGIN "), name
    assert sorted(p.name for p in directory.iterdir()) == sorted(CERT_FILES + KEY_FILES + SENDER_FILES), \
        "no temporary files left"
    assert "for testing only" in (directory / "README.md").read_text()


def test_openssl_verifies_server_and_clients_against_the_new_ca(pki):
    openssl("verify", "-CAfile", str(pki / "ca.pem"), str(pki / "ca.pem"))
    openssl("verify", "-purpose", "sslserver", "-CAfile", str(pki / "ca.pem"), str(pki / "server.pem"))
    p = openssl("verify", "-purpose", "sslclient", "-CAfile", str(pki / "ca.pem"), str(pki / "client.pem"),
                str(pki / "client-development.pem"), str(pki / "client-production.pem"), str(pki / "client-single-topic.pem"))
    assert p.stdout.count(": OK") == 4, p.stdout
    expired = openssl("verify", "-CAfile", str(pki / "ca.pem"), str(pki / "client-expired.pem"), check=False)
    assert expired.returncode != 0 and "error 10 " in expired.stdout + expired.stderr
    openssl("verify", "-no_check_time", "-CAfile", str(pki / "ca.pem"), str(pki / "client-expired.pem"))
    untrusted = openssl("verify", "-no_check_time", "-CAfile", str(pki / "ca.pem"), str(pki / "client-untrusted.pem"), check=False)
    assert untrusted.returncode != 0 and "error 20 " in untrusted.stdout + untrusted.stderr
    # the repository's CA does not vouch for them
    assert openssl("verify", "-CAfile", str(CERTS / "ca.pem"), str(pki / "server.pem"), check=False).returncode != 0
    # server-chain.pem is server.pem then ca.pem
    chain = openssl("crl2pkcs7", "-nocrl", "-certfile", str(pki / "server-chain.pem")).stdout
    subjects = openssl("pkcs7", "-print_certs", "-noout", stdin=chain).stdout
    assert [s for s in subjects.splitlines() if s.startswith("subject=")] == [
        "subject=CN = localhost", "subject=CN = Pushlab Test CA (for testing only)"]


def test_keys_match_and_have_generate_shs_types(pki):
    for name, kind in [("ca", "ASN1 OID: prime256v1"), ("server", "ASN1 OID: prime256v1"), ("client", "Private-Key: (2048 bit, 2 primes)")]:
        cert_pub = openssl("x509", "-in", str(pki / f"{name}.pem"), "-noout", "-pubkey").stdout
        key_pub = openssl("pkey", "-in", str(pki / f"{name}-key.pem"), "-pubout").stdout
        assert cert_pub == key_pub, name
        assert kind in openssl("pkey", "-in", str(pki / f"{name}-key.pem"), "-noout", "-text").stdout, name
    assert (pki / "client-key.pem").read_text().count("-----BEGIN PRIVATE KEY-----") == 1   # PKCS#8, like genpkey


def test_server_certificate_names(pki):
    san = openssl("x509", "-in", str(pki / "server.pem"), "-noout", "-ext", "subjectAltName").stdout
    assert san.splitlines()[1].strip() == ("DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, "
                                           "DNS:api.push.apple.com, DNS:api.sandbox.push.apple.com, "
                                           "DNS:api.development.push.apple.com, DNS:api-broadcast.push.apple.com, "
                                           "DNS:api-broadcast.sandbox.push.apple.com, DNS:api-manage-broadcast.push.apple.com, "
                                           "DNS:api-manage-broadcast.sandbox.push.apple.com, DNS:api.jpush.cn, "
                                           "DNS:device.jpush.cn, DNS:report.jpush.cn, DNS:restapi.getui.com")
    for host in ["api.jpush.cn", "restapi.getui.com", "api.push.apple.com", "api.sandbox.push.apple.com", "api.development.push.apple.com", "localhost",
                 "api-broadcast.sandbox.push.apple.com", "api-manage-broadcast.push.apple.com"]:
        assert "does match" in openssl("x509", "-in", str(pki / "server.pem"), "-noout", "-checkhost", host).stdout


def apns_oids(path: Path) -> str:
    return " ".join(sorted({w for w in openssl("asn1parse", "-in", str(path)).stdout.replace(":", " ").split()
                            if w.startswith("1.2.840.113635.100.6.3.")}))


def topics_of(path: Path) -> str:
    """generate.sh's topics_of: the 1.2.840.113635.100.6.3.6 value, as 'depth TYPE :value' lines."""
    lines = openssl("asn1parse", "-in", str(path)).stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.endswith(":" + E6))
    offset = next(line.split(":")[0].strip() for line in lines[at + 1:] if "OCTET STRING" in line)
    inner = openssl("asn1parse", "-in", str(path), "-strparse", offset).stdout.splitlines()
    head = re.compile(r"^ *[0-9]+:d=([0-9]+) +hl= *[0-9]+ +l= *[0-9]+ +(prim|cons): +")
    return "\n".join(re.sub(r" +:", " :", head.sub(r"\1 ", line)).rstrip() for line in inner)


@pytest.mark.parametrize("name,want", [
    ("client", f"{E1} {E2} {E6}"), ("client-development", f"{E1} {E6}"), ("client-production", f"{E2} {E6}"),
    ("client-single-topic", f"{E1} {E2}"), ("client-expired", f"{E1} {E2} {E6}"), ("client-untrusted", f"{E1} {E2} {E6}"),
])
def test_client_certificates_have_generate_shs_subject_and_apns_extensions(pki, name, want):
    made, reference = pki / f"{name}.pem", CERTS / f"{name}.pem"
    subject = ["x509", "-noout", "-subject", "-nameopt", "RFC2253,-esc_msb,utf8", "-in"]
    assert openssl(*subject, str(made)).stdout == openssl(*subject, str(reference)).stdout \
        == "subject=C=US,O=Pushlab Demo,OU=TEAMPUSHLB,CN=Apple Push Services: com.pushlab.demo,UID=com.pushlab.demo\n"
    assert apns_oids(made) == want == apns_oids(reference)
    if E6 in want:
        assert topics_of(made) == topics_of(reference) == "\n".join([
            "0 SEQUENCE", "1 UTF8STRING :com.pushlab.demo", "1 SEQUENCE", "2 UTF8STRING :app",
            "1 UTF8STRING :com.pushlab.demo.voip", "1 SEQUENCE", "2 UTF8STRING :voip",
            "1 UTF8STRING :com.pushlab.demo.complication", "1 SEQUENCE", "2 UTF8STRING :complication"])


def test_another_identity_lands_in_the_subject_and_the_topics(tmp_path):
    p = certs(str(tmp_path / "pki"), "--bundle-id", "com.example.app", "--team-id", "ABCDE12345", "--org", "Example & Co")
    assert p.returncode == 0, p.stderr
    client = tmp_path / "pki" / "client.pem"
    assert openssl("x509", "-noout", "-subject", "-nameopt", "RFC2253,-esc_msb,utf8", "-in", str(client)).stdout == \
        "subject=C=US,O=Example & Co,OU=ABCDE12345,CN=Apple Push Services: com.example.app,UID=com.example.app\n"
    assert "1 UTF8STRING :com.example.app.voip" in topics_of(client)


# --- a server using it ------------------------------------------------------------------

def curl_push(pki: Path, port: int, name: str, token: str = DEV_TOKEN, host: str = "localhost") -> tuple[int, str]:
    cert_dir = CERTS if name.startswith("repo:") else pki
    name = name.removeprefix("repo:")
    p = subprocess.run([tool("curl"), "-sS", "--http2", "--max-time", "20", "--cacert", str(pki / "ca.pem"),
                        "--cert", str(cert_dir / f"{name}.pem"), "--key", str(cert_dir / f"{name}-key.pem"),
                        "--resolve", f"{host}:{port}:127.0.0.1",
                        "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert", "-d", BODY,
                        "-o", "-", "-w", "\n%{http_code}", f"https://{host}:{port}/3/device/{token}"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    body, _, status = p.stdout.rpartition("\n")
    return int(status), body


def serve_with(fresh_server, pki: Path):
    return fresh_server("--tls-cert", str(pki / "server-chain.pem"), "--tls-key", str(pki / "server-key.pem"),
                        "--client-ca", str(pki / "ca.pem"))


def test_a_server_with_the_new_pki_accepts_its_client_certificates(tmp_path, fresh_server):
    pki = tmp_path / "pki"
    assert certs(str(pki)).returncode == 0
    srv = serve_with(fresh_server, pki)
    assert curl_push(pki, srv.dev_port, "client") == (200, "")
    assert curl_push(pki, srv.dev_port, "client", host="api.sandbox.push.apple.com") == (200, "")
    assert curl_push(pki, srv.prod_port, "client-production", token=PROD_TOKEN, host="api.push.apple.com") == (200, "")
    for refused in ["client-expired", "client-untrusted", "repo:client"]:     # the repository's CA is not trusted here
        status, body = curl_push(pki, srv.dev_port, refused)
        assert (status, json.loads(body)) == (403, {"reason": "BadCertificate"}), refused
    sent = subprocess.run([str(wait_for_binary()), "send", DEV_TOKEN, "--server", f"127.0.0.1:{srv.dev_port}",
                           "--ca", str(pki / "ca.pem"), "--topic", TOPIC, "--cert", str(pki / "client-development.pem"),
                           "--cert-key", str(pki / "client-development-key.pem"), "--payload", BODY],
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert sent.returncode == 0 and sent.stdout.startswith("200  accepted"), sent.stdout + sent.stderr


def test_rerunning_keeps_everything_and_force_reissues_under_the_same_ca(tmp_path, fresh_server):
    pki = tmp_path / "pki"
    assert certs(str(pki)).returncode == 0
    before = contents(pki)
    again = certs(str(pki))
    assert again.returncode == 0, again.stderr
    assert [line.split()[0] for line in again.stdout.splitlines()[:-1]] == ["kept"] * len(before)
    assert contents(pki) == before

    srv = serve_with(fresh_server, pki)        # a server already trusting this ca.pem
    forced = certs(str(pki), "--force")
    assert forced.returncode == 0, forced.stderr
    after = contents(pki)
    assert after["ca.pem"] == before["ca.pem"] and after["ca-key.pem"] == before["ca-key.pem"]
    assert after["client.pem"] != before["client.pem"] and after["client-key.pem"] != before["client-key.pem"]
    assert curl_push(pki, srv.dev_port, "client") == (200, ""), "the running server trusts the new client certificate"


def test_another_bundle_id_is_refused_until_forced(tmp_path):
    pki = tmp_path / "pki"
    assert certs(str(pki)).returncode == 0
    before = contents(pki)
    p = certs(str(pki), "--bundle-id", "com.example.app")
    assert p.returncode == 1
    assert "nothing was written" in p.stderr and "--force" in p.stderr
    assert ("client.pem: its subject has UID=com.pushlab.demo, CN=Apple Push Services: com.pushlab.demo "
            "(asked for: UID=com.example.app, CN=Apple Push Services: com.example.app)") in p.stderr
    assert "server.pem" not in p.stderr, "the server certificate does not depend on the bundle id"
    assert contents(pki) == before
    forced = certs(str(pki), "--bundle-id", "com.example.app", "--force")
    assert forced.returncode == 0, forced.stderr
    assert contents(pki)["ca.pem"] == before["ca.pem"]
    openssl("verify", "-CAfile", str(pki / "ca.pem"), str(pki / "client.pem"))
    assert "UID=com.example.app" in openssl("x509", "-noout", "-subject", "-nameopt", "RFC2253", "-in", str(pki / "client.pem")).stdout


def test_generate_sh_files_are_kept_byte_for_byte(tmp_path):
    copy = tmp_path / "certs"
    shutil.copytree(CERTS, copy)
    before = contents(copy)
    p = certs(str(copy))
    assert p.returncode == 0, p.stderr
    assert all(line.startswith("kept ") for line in p.stdout.splitlines()[:-1]), p.stdout
    assert contents(copy) == before


def test_new_ca_replaces_the_ca_and_everything_it_signed(pki, tmp_path):
    copy = tmp_path / "pki"
    shutil.copytree(pki, copy)
    before = contents(copy)
    p = certs(str(copy), "--new-ca")
    assert p.returncode == 0, p.stderr
    after = contents(copy)
    assert all(after[name] != before[name] for name in CERT_FILES + KEY_FILES)
    openssl("verify", "-CAfile", str(copy / "ca.pem"), str(copy / "server.pem"), str(copy / "client.pem"))


# --- what senders use: client.p12 and the provider-token key -----------------------------------

def p12_certificate_fingerprint(p12: Path, password: str = "pushlab") -> str:
    pem = openssl("pkcs12", "-in", str(p12), "-passin", f"pass:{password}", "-nokeys", "-clcerts").stdout
    return openssl("x509", "-noout", "-fingerprint", "-sha256", stdin=pem).stdout


def test_client_p12_opens_with_openssl_and_holds_client_pem_its_key_and_the_ca(pki):
    p12 = str(pki / "client.p12")
    # 3DES and SHA-1, as generate.sh made it: OpenSSL 3 reads it with or without the legacy provider.
    info = openssl("pkcs12", "-info", "-noout", "-in", p12, "-passin", "pass:pushlab")
    assert "MAC: sha1, Iteration 2048" in info.stderr
    assert info.stderr.count("pbeWithSHA1And3-KeyTripleDES-CBC, Iteration 2048") == 2, info.stderr
    openssl("pkcs12", "-info", "-noout", "-legacy", "-in", p12, "-passin", "pass:pushlab")
    assert p12_certificate_fingerprint(pki / "client.p12") == \
        openssl("x509", "-in", str(pki / "client.pem"), "-noout", "-fingerprint", "-sha256").stdout
    key = openssl("pkcs12", "-in", p12, "-passin", "pass:pushlab", "-nocerts", "-nodes").stdout
    assert openssl("pkey", "-pubout", stdin=key).stdout == openssl("x509", "-in", str(pki / "client.pem"), "-noout", "-pubkey").stdout
    cas = openssl("pkcs12", "-in", p12, "-passin", "pass:pushlab", "-nokeys", "-cacerts").stdout
    assert "subject=CN = Pushlab Test CA (for testing only)" in cas
    assert "friendlyName: Pushlab TEST APNs client com.pushlab.demo - for testing only" in \
        openssl("pkcs12", "-in", p12, "-passin", "pass:pushlab", "-nokeys", "-clcerts").stdout
    wrong = openssl("pkcs12", "-info", "-noout", "-in", p12, "-passin", "pass:wrong", check=False)
    assert wrong.returncode != 0 and "mac verify error" in wrong.stderr.lower()


def test_curl_authenticates_with_the_p12(tmp_path, fresh_server):
    pki = tmp_path / "pki"
    assert certs(str(pki)).returncode == 0
    srv = serve_with(fresh_server, pki)
    p = subprocess.run([tool("curl"), "-sS", "--http2", "--max-time", "20", "--cacert", str(pki / "ca.pem"),
                        "--cert", f"{pki / 'client.p12'}:pushlab", "--cert-type", "P12",
                        "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert", "-d", BODY,
                        "-o", "-", "-w", "\n%{http_code}", f"https://localhost:{srv.dev_port}/3/device/{DEV_TOKEN}"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.rpartition("\n")[2] == "200", p.stdout


def test_another_p12_password_and_rerunning_with_it(tmp_path):
    pki = tmp_path / "pki"
    assert certs(str(pki), "--p12-password", "s3cret").returncode == 0
    assert p12_certificate_fingerprint(pki / "client.p12", "s3cret")
    assert openssl("pkcs12", "-info", "-noout", "-in", str(pki / "client.p12"), "-passin", "pass:pushlab", check=False).returncode != 0
    before = contents(pki)
    again = certs(str(pki), "--p12-password", "s3cret")
    assert again.returncode == 0 and contents(pki) == before, again.stdout
    changed = certs(str(pki))                   # the default password: only client.p12 is remade
    assert changed.returncode == 0, changed.stderr
    assert [line.split()[1] for line in changed.stdout.splitlines() if line.startswith("wrote ")] == [str(pki / "client.p12")]
    assert p12_certificate_fingerprint(pki / "client.p12")


def test_token_key_files_and_sample_key_json(tmp_path):
    pki = tmp_path / "pki"
    p = certs(str(pki), "--key-id", "ABC123DEFG", "--team-id", "ABCDE12345", "--bundle-id", "com.example.app")
    assert p.returncode == 0, p.stderr
    key, pub = pki / "AuthKey_ABC123DEFG.p8", pki / "AuthKey_ABC123DEFG.pub.pem"
    assert key.read_text().startswith("-----BEGIN PRIVATE KEY-----") and pub.read_text().startswith("-----BEGIN PUBLIC KEY-----")
    assert "ASN1 OID: prime256v1" in openssl("pkey", "-in", str(key), "-noout", "-text").stdout
    assert openssl("pkey", "-in", str(key), "-pubout").stdout == pub.read_text()
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert json.loads((pki / "sample-key.json").read_text()) == {
        "keyId": "ABC123DEFG", "teamId": "ABCDE12345", "bundleId": "com.example.app", "privateKey": key.name,
        "publicKey": pub.name, "_comment": "Pushlab TEST key - for testing only, never use it outside tests"}
    old_key = key.read_text()
    forced = certs(str(pki), "--key-id", "ABC123DEFG", "--team-id", "ABCDE12345", "--bundle-id", "com.example.app", "--force")
    assert forced.returncode == 0, forced.stderr
    assert key.read_text() != old_key, "--force makes a new token key"
    assert openssl("pkey", "-in", str(key), "-pubout").stdout == pub.read_text()


def test_a_token_key_that_cannot_stay_is_refused_until_forced(pki, tmp_path):
    copy = tmp_path / "pki"
    shutil.copytree(pki, copy)
    key = copy / "AuthKey_PUSHLAB001.p8"
    key.write_text("# a comment first\n" + key.read_text())
    before = contents(copy)
    assert_readable_failure(certs(str(copy)), "AuthKey_PUSHLAB001.p8: it does not start with -----BEGIN PRIVATE KEY-----",
                            "nothing was written", "--force")
    assert contents(copy) == before
    assert certs(str(copy), "--force").returncode == 0
    assert key.read_text().startswith("-----BEGIN PRIVATE KEY-----")


# --- certs/generate.sh: a thin wrapper around pushlab certs -----------------------------------

def generate_sh(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PUSHLAB_")}
    environment.update(PUSHLAB_BIN=str(wait_for_binary()), **env)     # never a build from a test
    return subprocess.run([str(CERTS / "generate.sh"), *args], cwd=REPO, capture_output=True, text=True,
                          timeout=120, env=environment)


def test_generate_sh_passes_its_options_and_environment_to_pushlab_certs(tmp_path):
    out = tmp_path / "mycerts"
    p = generate_sh("-b", "com.example.app", "-t", "ABCDE12345", "-k", "KEY1234567", "-q", str(out))
    assert p.returncode == 0, p.stderr
    assert p.stdout == ""
    assert json.loads((out / "sample-key.json").read_text())["keyId"] == "KEY1234567"
    assert "UID=com.example.app" in openssl("x509", "-noout", "-subject", "-nameopt", "RFC2253", "-in", str(out / "client.pem")).stdout
    assert p12_certificate_fingerprint(out / "client.p12")
    env = tmp_path / "from-env"
    p = generate_sh(str(env), PUSHLAB_TEAM_ID="ZYXWV98765", PUSHLAB_ORG="Env Org", PUSHLAB_P12_PASSWORD="fromenv")
    assert p.returncode == 0, p.stderr
    assert "OU=ZYXWV98765" in openssl("x509", "-noout", "-subject", "-nameopt", "RFC2253", "-in", str(env / "client.pem")).stdout
    assert p12_certificate_fingerprint(env / "client.p12", "fromenv")


def test_generate_sh_keeps_the_committed_files_and_force_remakes_the_ca(tmp_path):
    copy = tmp_path / "certs"
    shutil.copytree(CERTS, copy)
    before = contents(copy)
    p = generate_sh(str(copy))
    assert p.returncode == 0, p.stderr
    assert contents(copy) == before
    forced = generate_sh("--force", str(copy))
    assert forced.returncode == 0, forced.stderr
    after = contents(copy)
    assert after["ca.pem"] != before["ca.pem"] and after["AuthKey_PUSHLAB001.p8"] != before["AuthKey_PUSHLAB001.p8"]
    openssl("verify", "-CAfile", str(copy / "ca.pem"), str(copy / "server.pem"), str(copy / "client.pem"))


def test_generate_sh_help_and_bad_options():
    p = generate_sh("--help")
    assert p.returncode == 0 and "pushlab certs" in p.stdout and "PUSHLAB_P12_PASSWORD" in p.stdout
    p = generate_sh("--nope")
    assert p.returncode == 2 and "unknown option: --nope" in p.stderr


# --- bad input ------------------------------------------------------------------------------

def assert_readable_failure(p: subprocess.CompletedProcess, *phrases: str) -> None:
    assert p.returncode != 0
    for phrase in phrases:
        assert phrase in p.stderr, p.stderr
    assert "Fatal error" not in p.stderr and "Stack dump" not in p.stderr, p.stderr


def test_bad_bundle_team_or_org_is_explained(tmp_path):
    p = certs(str(tmp_path / "pki"), "--bundle-id", "com example")
    assert_readable_failure(p, "bad bundle id 'com example'", "Usage: pushlab certs")
    assert_readable_failure(certs(str(tmp_path / "pki"), "--team-id", "TEAM-1"), "bad team id 'TEAM-1'")
    assert_readable_failure(certs(str(tmp_path / "pki"), "--org", ""), "bad organisation")
    assert not (tmp_path / "pki").exists()


def test_an_unusable_folder_is_explained(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    assert_readable_failure(certs(str(blocker / "pki")), f"Cannot create the folder {blocker / 'pki'}: Not a directory")
    assert_readable_failure(certs(str(blocker)), f"{blocker} exists and is not a folder")


def test_a_ca_key_that_is_not_the_cas_is_refused(pki, tmp_path):
    copy = tmp_path / "pki"
    shutil.copytree(pki, copy)
    shutil.copy(copy / "server-key.pem", copy / "ca-key.pem")
    before = contents(copy)
    assert_readable_failure(certs(str(copy)), "ca-key.pem is not the private key of ca.pem", "--new-ca")
    (copy / "ca-key.pem").unlink()
    assert_readable_failure(certs(str(copy)), "ca.pem is there without ca-key.pem")
    (copy / "ca-key.pem").write_text("garbage")
    assert_readable_failure(certs(str(copy)), "ca-key.pem holds no unencrypted PEM private key")
    # an encrypted key is refused, not prompted for
    openssl("pkey", "-in", str(pki / "ca-key.pem"), "-aes256", "-passout", "pass:secret", "-out", str(copy / "ca-key.pem"))
    assert_readable_failure(certs(str(copy)), "ca-key.pem holds no unencrypted PEM private key")
    shutil.copy(copy / "server.pem", copy / "ca.pem")
    shutil.copy(copy / "server-key.pem", copy / "ca-key.pem")
    assert_readable_failure(certs(str(copy)), "ca.pem is not a CA certificate")
    assert contents(copy)["client.pem"] == before["client.pem"], "nothing is written"


def test_help_explains_the_files_the_reuse_and_has_examples():
    p = subprocess.run([str(wait_for_binary()), "certs", "--help"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0
    for phrase in ["OUTPUT_DIR", "--bundle-id", "--team-id", "--org", "--force", "--new-ca", "Examples:", "0600",
                   "reused"]:
        assert phrase in p.stdout, phrase
