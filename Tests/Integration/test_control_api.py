"""The control API as a test in another language uses it: plain HTTP and JSON against a running
`pushlab serve`, pushes from `pushlab send`, observations read back through the API."""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.request

from conftest import CERTS, REPO, wait_for_binary
from world import KEY_ID, TEAM_ID, TOPIC

KEY = ["--key", str(CERTS / f"AuthKey_{KEY_ID}.p8"), "--key-id", KEY_ID, "--team-id", TEAM_ID]


def call(server, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(server.control_url + path, data=data, method=method)
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def send(server, target: str, payload: dict) -> subprocess.CompletedProcess:
    return subprocess.run([str(wait_for_binary()), "send", target, "--topic", TOPIC, *KEY, "--payload", json.dumps(payload),
                           "--server", f"127.0.0.1:{server.dev_port}", "--ca", str(CERTS / "ca.pem"),
                           "--control", server.control_url], cwd=REPO, capture_output=True, text=True, timeout=60)


def test_create_a_device_push_to_it_by_name_and_tap_the_notification(fresh_server):
    srv = fresh_server(scenario=None)
    assert srv.control_url, srv.stdout()
    status, device = call(srv, "POST", "/v1/devices", {
        "id": "eve", "name": "Eve's iPhone",
        "apps": [{"bundleId": TOPIC, "api": "legacy", "state": "background"}],
    })
    assert status == 201, device
    token = device["apps"][0]["deviceToken"]
    assert len(token) == 64

    sent = send(srv, "Eve's iPhone", {"aps": {"alert": "Ship it"}, "order": 7})
    assert sent.returncode == 0, sent.stderr
    apns_id = sent.stdout.split("apns-id: ")[1].split()[0]

    status, tapped = call(srv, "POST", "/v1/devices/eve/interactions", {"type": "tapNotification", "bundleId": TOPIC})
    assert status == 200, tapped
    status, seen = call(srv, "GET", "/v1/devices/eve/observations?kind=callback")
    assert status == 200, seen
    callbacks = [(o["callback"], o["appState"]) for o in seen["observations"]]
    # Created running, the app has launched and was told its token; then, legacy app in the
    # background, the user taps the banner (note 003, case 2).
    assert callbacks == [("application:didFinishLaunchingWithOptions:", "background"),
                         ("application:didRegisterForRemoteNotificationsWithDeviceToken:", "background"),
                         ("applicationWillEnterForeground:", "background"),
                         ("application:didReceiveRemoteNotification:fetchCompletionHandler:", "inactive"),
                         ("applicationDidBecomeActive:", "foreground")]
    assert seen["observations"][1]["deviceToken"] == token
    assert seen["observations"][3]["userInfo"]["order"] == 7
    assert seen["observations"][3]["notificationId"] == apns_id

    # pushlab observations reads the same through the control API, as lines or as the API's JSON.
    lines = subprocess.run([str(wait_for_binary()), "observations", "--control", srv.control_url, "--device", "eve",
                            "--kind", "callback"], capture_output=True, text=True, timeout=60)
    assert lines.returncode == 0, lines.stderr
    assert [line.split("  ")[5].split(" [")[0] for line in lines.stdout.splitlines()] == [c for c, _ in callbacks]
    assert "application:didReceiveRemoteNotification:fetchCompletionHandler: [inactive]" in lines.stdout
    as_json = subprocess.run([str(wait_for_binary()), "observations", "--control", srv.control_url, "--device", "eve",
                              "--kind", "callback", "--json"], capture_output=True, text=True, timeout=60)
    assert [json.loads(line) for line in as_json.stdout.splitlines()] == seen["observations"]
    gone = subprocess.run([str(wait_for_binary()), "observations", "--control", "http://127.0.0.1:9"],
                          capture_output=True, text=True, timeout=60)
    assert gone.returncode != 0 and "is pushlab serve running?" in gone.stderr


def test_reinstall_through_the_api_makes_the_old_token_410(fresh_server):
    srv = fresh_server(scenario=None)
    status, device = call(srv, "POST", "/v1/devices", {"apps": [{"bundleId": TOPIC}]})
    assert status == 201
    old = device["apps"][0]["deviceToken"]
    status, fresh = call(srv, "POST", f"/v1/devices/{device['id']}/apps/{TOPIC}/reinstall")
    assert status == 200 and fresh["deviceToken"] != old, fresh
    gone = send(srv, old, {"aps": {"alert": "hi"}})
    assert gone.returncode == 1 and gone.stdout.startswith("410  Unregistered  (since "), gone.stdout
    assert send(srv, fresh["deviceToken"], {"aps": {"alert": "hi"}}).returncode == 0


def test_errors_are_json_with_a_readable_message(fresh_server):
    srv = fresh_server(scenario=None)
    status, body = call(srv, "POST", "/v1/devices", {"apps": [{"bundleId": TOPIC, "state": "asleep"}]})
    assert status == 400 and "state" in body["error"] and "foreground" in body["error"]
    status, body = call(srv, "GET", "/v1/devices/nobody")
    assert status == 404 and "nobody" in body["error"]
    status, body = call(srv, "POST", "/v1/clock", {"advance": 60})
    assert status == 200 and body["mode"] == "manual"


def devices(server, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(wait_for_binary()), "devices", "--control", server.control_url, *args],
                          cwd=REPO, capture_output=True, text=True, timeout=60)


def test_pushlab_devices_lists_the_phones_and_their_apps(fresh_server):
    srv = fresh_server(scenario=None)
    listed = devices(srv)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert [line.split()[0] for line in lines if not line.startswith(" ")] == ["ann", "ben", "cara", "dan"]
    assert "notRunning (force-quit)" in listed.stdout and "offline" in listed.stdout
    one = devices(srv, "--device", "ann", "--json")
    assert one.returncode == 0 and json.loads(one.stdout)["id"] == "ann"
    missing = devices(srv, "--device", "nobody")
    assert missing.returncode != 0 and "No device nobody" in missing.stderr and "Usage" not in missing.stderr


def test_removing_a_key_refuses_its_token_on_a_live_connection_from_then_on(fresh_server):
    """A provider keeps its connection and its token; the key is removed under it. Every later
    push on that connection is refused, not only the first (the connection remembers the
    header that last passed, and must forget it)."""
    from h2util import H2Client

    srv = fresh_server()
    c = H2Client(srv.dev_port)
    try:
        c.authenticate()
        status, body = call(srv, "DELETE", f"/v1/keys/{KEY_ID}")
        assert status == 200 and body == {"keyId": KEY_ID, "removed": True}, body
        for _ in range(3):
            r = c.request()
            assert r.status == 403 and json.loads(r.data) == {"reason": "InvalidProviderToken"}, r
    finally:
        c.close()


def test_a_number_that_does_not_fit_names_its_field_and_null_bodies_are_refused(fresh_server):
    """Foundation calls an overflowing integer "not valid JSON"; the control API names the field.
    A null where the schema says "any JSON but null" is refused, as the schema says."""
    srv = fresh_server(scenario=None)
    request = urllib.request.Request(srv.control_url + "/v1/faults", method="POST",
                                     data=b'{"resetStream":true,"count":6313714919283011616768}')
    try:
        urllib.request.urlopen(request, timeout=15)
        raise AssertionError("an overflowing count was accepted")
    except urllib.error.HTTPError as refused:
        assert refused.code == 400
        message = json.loads(refused.read())["error"]
        assert "count is out of range" in message and "not valid JSON" not in message, message
    status, answer = call(srv, "POST", "/v1/devices", {"id": "nullbody", "apps": [{"bundleId": TOPIC, "provider": {
        "baseURL": "pushlab:stand-in", "requests": [{"event": "registered", "path": "/devices", "body": None}]}}]})
    assert status == 400 and "Null field: apps[0].provider.requests[0].body" in answer["error"], answer
