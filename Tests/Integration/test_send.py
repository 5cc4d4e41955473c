"""`pushlab send`: Pushlab's own HTTP/2 client, against the server, as a user runs it."""

from __future__ import annotations

import json
import subprocess

from conftest import CERTS, REPO, tool, wait_for_binary
from world import DEV_TOKEN, DEV_UNREGISTERED_TOKEN, GONE_SINCE_MS, KEY_ID, PROD_TOKEN, TEAM_ID, TOPIC

KEY = ["--key", str(CERTS / f"AuthKey_{KEY_ID}.p8"), "--key-id", KEY_ID, "--team-id", TEAM_ID]


def send(server, *args: str, stdin: str | None = None, production: bool = False) -> subprocess.CompletedProcess:
    port = server.prod_port if production else server.dev_port
    return subprocess.run([str(wait_for_binary()), "send", *args, "--server", f"127.0.0.1:{port}",
                           "--ca", str(CERTS / "ca.pem"), *(["--environment", "production"] if production else [])],
                          cwd=REPO, input=stdin, capture_output=True, text=True, timeout=60)


def test_an_accepted_push_prints_200_and_the_apns_id_and_exits_0(default_server):
    p = send(default_server, DEV_TOKEN, "--topic", TOPIC, *KEY, "--payload", '{"aps":{"alert":"hi"}}',
             "--apns-id", "9B0E1E0A-1C2D-4E5F-8A9B-0C1D2E3F4A5B")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("200  accepted  apns-id: 9B0E1E0A-1C2D-4E5F-8A9B-0C1D2E3F4A5B  apns-unique-id: ")


def test_a_rejection_prints_the_reason_and_timestamp_and_exits_1(default_server):
    p = send(default_server, DEV_UNREGISTERED_TOKEN, "--topic", TOPIC, *KEY, "--payload", '{"aps":{"alert":"hi"}}', "--json")
    assert p.returncode == 1, p.stderr
    answer = json.loads(p.stdout)
    assert (answer["status"], answer["reason"], answer["timestamp"]) == (410, "Unregistered", GONE_SINCE_MS)
    bad = send(default_server, DEV_TOKEN, "--topic", TOPIC, *KEY, "--payload", "")
    assert bad.returncode == 1 and bad.stdout.startswith("400  PayloadEmpty")


def test_payload_from_stdin_with_certificate_auth_on_production(default_server):
    p = send(default_server, PROD_TOKEN, "--push-type", "background", "--priority", "5", "--topic", TOPIC,
             "--cert", str(CERTS / "client.pem"), "--cert-key", str(CERTS / "client-key.pem"),
             stdin='{"aps":{"content-available":1}}', production=True)
    assert p.returncode == 0, p.stderr + p.stdout
    assert p.stdout.startswith("200  accepted")
    assert "apns-unique-id" not in p.stdout, "production answers carry no apns-unique-id"


def test_no_server_exits_2_with_a_readable_message(tmp_path):
    p = subprocess.run([str(wait_for_binary()), "send", DEV_TOKEN, "--server", "127.0.0.1:1", "--ca", str(CERTS / "ca.pem"),
                        "--payload", "{}"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2
    assert "Cannot connect to 127.0.0.1:1" in p.stderr


def test_bad_options_are_explained(default_server):
    p = send(default_server, DEV_TOKEN, "--priority", "7", "--payload", "{}")
    assert p.returncode != 0 and "--priority must be 10, 5 or 1" in p.stderr
    p = send(default_server, DEV_TOKEN, "--key", "x.p8", "--payload", "{}")
    assert p.returncode != 0 and "--key needs --key-id and --team-id" in p.stderr


def test_short_hex_that_names_no_device_is_sent_as_a_token(default_server):
    """A malformed token must reach APNs, to see its BadDeviceToken; a name that is not hex still
    needs a device (the control API here is the server's own)."""
    control = ["--control", default_server.control_url]
    p = send(default_server, "0badc0de", "--topic", TOPIC, *KEY, "--payload", '{"aps":{"alert":"hi"}}', "--json", *control)
    assert p.returncode == 1, p.stderr
    assert (json.loads(p.stdout)["status"], json.loads(p.stdout)["reason"]) == (400, "BadDeviceToken")
    p = send(default_server, "nobody-here", "--topic", TOPIC, *KEY, "--payload", "{}", *control)
    assert p.returncode != 0 and "No simulated device nobody-here" in p.stderr


def send_to(port: int, *args: str, server_host: str = "127.0.0.1") -> subprocess.CompletedProcess:
    """`pushlab send` with the caller's own --ca (send() always passes certs/ca.pem)."""
    return subprocess.run([str(wait_for_binary()), "send", *args, "--server", f"{server_host}:{port}"],
                          cwd=REPO, capture_output=True, text=True, timeout=60)


def test_a_p12_with_its_password_authenticates(default_server):
    p = send(default_server, DEV_TOKEN, "--topic", TOPIC, "--cert", str(CERTS / "client.p12"), "--cert-password", "pushlab",
             "--payload", '{"aps":{"alert":"from a p12"}}')
    assert p.returncode == 0, p.stderr + p.stdout
    assert p.stdout.startswith("200  accepted")


def test_a_p12_without_or_with_a_wrong_password_is_explained(default_server):
    p12 = ["--topic", TOPIC, "--cert", str(CERTS / "client.p12"), "--payload", "{}"]
    p = send(default_server, DEV_TOKEN, *p12)
    assert p.returncode != 0 and "is a PKCS#12 file protected by a password: give it with --cert-password" in p.stderr
    p = send(default_server, DEV_TOKEN, *p12, "--cert-password", "wrong")
    assert p.returncode != 0 and "does not open with that --cert-password" in p.stderr
    p = send(default_server, DEV_TOKEN, *p12, "--cert-password", "pushlab", "--cert-key", str(CERTS / "client-key.pem"))
    assert p.returncode != 0 and "holds its own key: drop --cert-key" in p.stderr
    p = send(default_server, DEV_TOKEN, "--cert", str(CERTS / "client.pem"), "--cert-password", "pushlab", "--payload", "{}")
    assert p.returncode != 0 and "--cert-password is for a PKCS#12 (.p12) --cert" in p.stderr


def test_a_server_certificate_the_ca_file_does_not_trust_is_explained(default_server, tmp_path):
    other_ca = tmp_path / "other-ca.pem"
    subprocess.run([tool("openssl"), "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-subj", "/CN=Some Other CA", "-days", "2", "-keyout", str(tmp_path / "other-ca-key.pem"),
                    "-out", str(other_ca)], check=True, capture_output=True, timeout=30)
    p = send_to(default_server.dev_port, DEV_TOKEN, "--topic", TOPIC, *KEY, "--payload", "{}", "--ca", str(other_ca),
                server_host="localhost")
    assert p.returncode == 2, p.stderr
    message = p.stderr
    assert f"the server's certificate (subject CN=localhost, issued by CN=Pushlab Test CA (for testing only)) " \
           f"is not trusted by the CA file {other_ca}" in message
    assert "OpenSSL says: " in message and "certs/ca.pem" in message
    assert "the server closed the connection" not in message


def test_a_server_certificate_for_another_name_is_explained(fresh_server, tmp_path):
    """Signed by certs/ca.pem, so trusted, but for elsewhere.example, not localhost."""
    key, csr, cert, ext = (tmp_path / n for n in ["else-key.pem", "else.csr", "else.pem", "else.ext"])
    ext.write_text("subjectAltName=DNS:elsewhere.example\nextendedKeyUsage=serverAuth\n")
    subprocess.run([tool("openssl"), "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-subj", "/CN=elsewhere.example", "-keyout", str(key), "-out", str(csr)], check=True, capture_output=True, timeout=30)
    subprocess.run([tool("openssl"), "x509", "-req", "-in", str(csr), "-CA", str(CERTS / "ca.pem"), "-CAkey", str(CERTS / "ca-key.pem"),
                    "-set_serial", "0x1234", "-days", "2", "-extfile", str(ext), "-out", str(cert)],
                   check=True, capture_output=True, timeout=30)
    srv = fresh_server("--tls-cert", str(cert), "--tls-key", str(key))
    p = send_to(srv.dev_port, DEV_TOKEN, "--topic", TOPIC, *KEY, "--payload", "{}", "--ca", str(CERTS / "ca.pem"),
                server_host="localhost")
    assert p.returncode == 2, p.stderr
    assert "the server's certificate (subject CN=elsewhere.example, issued by CN=Pushlab Test CA (for testing only)) " \
           "is not valid for localhost, the name connected to" in p.stderr
    assert "hostname mismatch" in p.stderr


def test_a_payload_that_is_not_json_is_warned_about_and_still_sent(default_server):
    p = send(default_server, DEV_TOKEN, "--topic", TOPIC, *KEY, "--payload", '{"aps":{"alert":"hi"}')
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("200  accepted")
    assert p.stderr.startswith("pushlab send: warning: the payload is not valid JSON (invalid JSON at byte ")
    assert "the device cannot parse it and drops the notification" in p.stderr
    p = send(default_server, DEV_TOKEN, "--topic", TOPIC, *KEY, "--payload", '["not", "an", "object"]')
    assert p.returncode == 0 and "warning: the payload is JSON but not an object" in p.stderr
    p = send(default_server, DEV_TOKEN, "--topic", TOPIC, *KEY, "--payload", '{"aps":{"alert":"hi"}}')
    assert p.returncode == 0 and p.stderr == ""
