"""`pushlab send`: Pushlab's own HTTP/2 client, against the server, as a user runs it."""

from __future__ import annotations

import json
import subprocess

from conftest import CERTS, REPO, wait_for_binary
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
