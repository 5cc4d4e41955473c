"""`pushlab serve` at start: errors a user can act on, and a banner nothing else is written into."""

from __future__ import annotations

import subprocess

from conftest import REPO, PushlabServer, wait_for_binary


def serve(*args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run([str(wait_for_binary()), "serve", "--db", ":memory:", "--control-port", "0", *args],
                          cwd=REPO, capture_output=True, text=True, timeout=timeout)


def test_a_port_in_use_names_the_listener_the_port_and_the_flag(default_server):
    second = serve("--development-port", str(default_server.dev_port), "--production-port", "0")
    assert second.returncode != 0
    assert (f"Error: The development listener cannot listen on 127.0.0.1:{default_server.dev_port}: "
            "the address is in use (another pushlab serve?). Pass --development-port with another port, "
            "or 0 for a free one.") in second.stderr, second.stderr
    assert "Usage:" not in second.stderr, "a busy port is no command-line mistake"
    third = serve("--development-port", "0", "--production-port", str(default_server.prod_port))
    assert third.returncode != 0 and "Pass --production-port" in third.stderr, third.stderr


def test_a_control_port_in_use_says_which_flag_changes_it(default_server):
    port = default_server.control_url.rsplit(":", 1)[1]
    taken = subprocess.run([str(wait_for_binary()), "serve", "--db", ":memory:", "--development-port", "0",
                            "--production-port", "0", "--control-port", port],
                           cwd=REPO, capture_output=True, text=True, timeout=30)
    assert taken.returncode != 0
    assert f"The control API cannot listen on 127.0.0.1:{port}" in taken.stderr, taken.stderr
    assert "Pass --control-port 0 for a free port." in taken.stderr


def test_the_banner_is_not_interleaved_with_log_lines(fresh_server):
    server: PushlabServer = fresh_server("--log-level", "info")
    banner = server.stdout()
    assert banner.startswith("Pushlab is serving the APNs provider API"), banner
    assert "Ready. Press Ctrl-C to stop." in banner
    # Library start-up lines (Hummingbird's "Server started and listening") would land in the
    # middle of the banner on a terminal: at info level nothing is logged while starting.
    assert server.stderr().strip() == "", server.stderr()


def test_a_control_api_beyond_loopback_needs_a_token():
    refused = serve("--development-port", "0", "--production-port", "0", "--control-host", "0.0.0.0")
    assert refused.returncode != 0
    assert "The control API would listen on 0.0.0.0, beyond this machine" in refused.stderr, refused.stderr
    assert "--control-token" in refused.stderr and "PUSHLAB_CONTROL_TOKEN" in refused.stderr


def test_a_control_token_is_required_by_every_route_and_read_by_the_cli(fresh_server):
    import json
    import os
    import urllib.error
    import urllib.request

    server: PushlabServer = fresh_server("--control-token", "s3cret", scenario=None)
    assert "(bearer token required)" in server.stdout()

    def get(path: str, token: str | None) -> int:
        request = urllib.request.Request(server.control_url + path)
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status
        except urllib.error.HTTPError as refusal:
            assert json.loads(refusal.read())["error"].startswith("This control API needs authorization")
            return refusal.code

    assert get("/v1/health", None) == 401
    assert get("/v1/devices", "wrong") == 401
    assert get("/v1/health", "s3cret") == 200
    assert get("/metrics", "s3cret") == 200

    devices = [str(wait_for_binary()), "devices", "--control", server.control_url]
    denied = subprocess.run(devices, cwd=REPO, capture_output=True, text=True, timeout=30)
    assert denied.returncode != 0
    allowed = subprocess.run(devices, cwd=REPO, capture_output=True, text=True, timeout=30,
                             env={**os.environ, "PUSHLAB_CONTROL_TOKEN": "s3cret"})
    assert allowed.returncode == 0 and "ann" in allowed.stdout, allowed.stderr + allowed.stdout


def test_a_generated_world_restarts_from_what_changed_since_its_scenario(fresh_server, tmp_path):
    import json
    import re
    import sqlite3
    import urllib.error
    import urllib.request

    count = 50_000
    scenario = tmp_path / "generated.yaml"
    scenario.write_text(
        "apps: [{bundleId: com.pushlab.demo, teamId: TEAMPUSHLB}]\n"
        f"generatedDevices: [{{count: {count}, bundleId: com.pushlab.demo, prefix: be, state: background}}]\n")
    db = tmp_path / "generated.db"

    def control(server, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        request = urllib.request.Request(server.control_url + path, method=method,
                                         data=None if body is None else json.dumps(body).encode())
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, json.loads(answer.read() or b"{}")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    first = fresh_server("--db", str(db), scenario=scenario)
    assert f"Simulated devices ({count}):" in first.stdout()
    assert control(first, "PATCH", "/v1/devices/generated-7", {"locked": True})[0] == 200
    assert control(first, "DELETE", "/v1/devices/generated-8")[0] == 200
    assert control(first, "POST", "/v1/devices", {"id": "extra", "apps": [{"bundleId": "com.pushlab.demo"}]})[0] == 201
    assert first.stop() == 0
    with sqlite3.connect(db) as store:
        rows = dict(store.execute("SELECT id, json FROM devices").fetchall())
    assert sorted(rows) == ["extra", "generated-7", "generated-8"], "the scenario's own devices are not written"
    assert rows["generated-8"] == "null", "a removed device is remembered as removed"

    again = fresh_server("--db", str(db), scenario=scenario)
    banner = again.stdout()
    assert f"{count} device(s) reloaded as the last run left them" in banner, banner
    assert control(again, "GET", "/v1/devices/generated-7")[1]["locked"] is True
    assert control(again, "GET", "/v1/devices/generated-9")[1]["locked"] is False
    assert control(again, "GET", "/v1/devices/generated-8")[0] == 404
    assert control(again, "GET", "/v1/devices/extra")[0] == 200
    # Progress lines, when loading took long enough to show any, come before the banner and
    # count up to their step's total.
    head, _, _ = banner.partition("Pushlab is serving")
    for line in head.splitlines():
        match = re.fullmatch(r"(Generating devices|Registering devices|Reading saved devices): ([\d,]+) / ([\d,]+)", line)
        assert match, f"not a progress line: {line!r}"
        assert int(match.group(2).replace(",", "")) <= int(match.group(3).replace(",", ""))
