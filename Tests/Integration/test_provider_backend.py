"""Simulated apps call their provider's backend over real HTTP: a small backend written for this
test stores the token the app registers, pushes to it through Pushlab with aioapns, and receives
the reply the user types into the notification's text action. Asserted from the backend's side,
from /v1/observations and from the event stream."""

from __future__ import annotations

import asyncio
import json
import subprocess
import threading
import time
import urllib.error
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from aioapns import NotificationRequest, PushType

from conftest import tool
from test_aioapns import _point_at, key_client
from world import REPO, TOPIC


class Backend:
    """The provider's backend: POST /devices stores a token, POST /replies a reply."""

    def __init__(self):
        self.tokens: list[str] = []
        self.replies: list[dict] = []
        backend = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                if self.path == "/api/devices" and self.headers.get("authorization") == "Bearer app-secret":
                    backend.tokens.append(body["token"])
                    self._answer(201, {"stored": True})
                elif self.path == "/api/replies":
                    backend.replies.append(body)
                    self._answer(200, {"ok": True})
                else:
                    self._answer(404, {"error": "no such route"})

            def _answer(self, status, body):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/api"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


def control(server, method: str, path: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(server.control_url + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read() or b"{}")


def wait_until(condition, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_register_push_reply_through_a_real_backend(fresh_server, monkeypatch):
    srv = _point_at(fresh_server(scenario=None), monkeypatch)
    backend = Backend()
    events: list[dict] = []

    def listen():
        with urllib.request.urlopen(srv.control_url + "/v1/events", timeout=30) as stream:
            for line in stream:
                if line.startswith(b"data: "):
                    data = json.loads(line[6:])
                    if data.get("kind") == "providerRequest":
                        events.append(data)

    threading.Thread(target=listen, daemon=True).start()
    try:
        time.sleep(0.3)   # the event stream is open before anything happens
        control(srv, "POST", "/v1/devices", {"id": "reply-phone", "apps": [{
            "bundleId": TOPIC, "categories": [{"id": "CHAT", "actions": [
                {"id": "REPLY", "title": "Reply", "activation": "background", "textInput": True}]}],
            "provider": {"baseURL": backend.url, "requests": [
                {"event": "registered", "method": "POST", "path": "/devices", "headers": {"authorization": "Bearer app-secret"},
                 "body": {"token": "{deviceToken}", "device": "{deviceId}"}},
                {"event": "notificationResponse", "method": "POST", "path": "/replies",
                 "body": {"text": "{typedText}", "action": "{actionIdentifier}", "chat": "{userInfo.chat}"}},
            ]},
        }]})
        control(srv, "PATCH", f"/v1/devices/reply-phone/apps/{TOPIC}", {"state": "foreground"})
        wait_until(lambda: backend.tokens)
        control(srv, "PATCH", f"/v1/devices/reply-phone/apps/{TOPIC}", {"state": "background"})

        # The backend pushes to the token it stored, with a real client.
        async def push():
            client = key_client(use_sandbox=True)
            try:
                return await client.send_notification(NotificationRequest(
                    device_token=backend.tokens[0], notification_id=str(uuid.uuid4()), push_type=PushType.ALERT,
                    message={"aps": {"alert": {"title": "Cara", "body": "Lunch?"}, "category": "CHAT"}, "chat": 42}))
            finally:
                client.pool.close()
                await asyncio.sleep(0.05)

        assert asyncio.run(push()).is_successful
        control(srv, "POST", "/v1/devices/reply-phone/interactions", {"type": "tapAction", "bundleId": TOPIC, "actionId": "REPLY", "text": "On my way"})
        wait_until(lambda: backend.replies)
        assert backend.replies == [{"text": "On my way", "action": "REPLY", "chat": 42}]

        wait_until(lambda: len(control(srv, "GET", "/v1/observations?kind=providerRequest")["observations"]) == 2)
        seen = control(srv, "GET", "/v1/observations?kind=providerRequest")["observations"]
        assert [(o["event"], o["status"]) for o in seen] == [("registered", 201), ("notificationResponse", 200)]
        assert seen[0]["url"] == backend.url + "/devices" and seen[0]["excerpt"] == '{"stored": true}'
        wait_until(lambda: len(events) == 2)
        assert [e["event"] for e in events] == ["registered", "notificationResponse"]
    finally:
        backend.close()


def test_a_dead_backend_costs_only_its_own_observation(fresh_server):
    srv = fresh_server(scenario=None)
    control(srv, "POST", "/v1/devices", {"id": "dead-backend-phone", "apps": [{"bundleId": TOPIC, "provider": {
        "baseURL": "http://127.0.0.1:9", "requests": [{"event": "launch", "method": "GET", "path": "/hello"}]}}]})
    control(srv, "PATCH", f"/v1/devices/dead-backend-phone/apps/{TOPIC}", {"state": "foreground"})
    wait_until(lambda: control(srv, "GET", "/v1/observations?kind=providerRequest")["observations"])
    [failed] = control(srv, "GET", "/v1/observations?kind=providerRequest")["observations"]
    assert failed["failure"] == "refused" and "status" not in failed
    # Not retried until the 10 s connect timeout, as URLSession does not retry either.
    assert failed["milliseconds"] < 5000, failed
    assert control(srv, "GET", "/v1/health")["status"] == "ok"


def test_the_stand_in_backend_answers_by_its_rules_and_keeps_what_it_got(fresh_server):
    srv = fresh_server(scenario=None)
    control(srv, "PUT", "/v1/stand-in/rules", {"rules": [{"path": "/devices", "method": "POST", "status": 503, "body": {"retry": True}}]})
    control(srv, "POST", "/v1/devices", {"id": "stand-in-phone", "apps": [{"bundleId": TOPIC, "provider": {
        "baseURL": "pushlab:stand-in", "requests": [{"event": "registered", "path": "/devices", "body": {"token": "{deviceToken}"}}]}}]})
    control(srv, "PATCH", f"/v1/devices/stand-in-phone/apps/{TOPIC}", {"state": "foreground"})
    wait_until(lambda: control(srv, "GET", "/v1/observations?kind=providerRequest")["observations"])
    [answer] = control(srv, "GET", "/v1/observations?kind=providerRequest")["observations"]
    assert answer["status"] == 503 and answer["excerpt"] == '{"retry":true}'
    got = control(srv, "GET", "/v1/stand-in")["requests"]
    token = control(srv, "GET", "/v1/devices/stand-in-phone")["apps"][0]["deviceToken"]
    assert [(r["method"], r["path"], r["body"]) for r in got] == [("POST", "/devices", {"token": token})]


def test_a_phone_created_running_registers_its_token_at_once(fresh_server):
    """A phone made with its app in the background has launched: its backend learns the token
    without any state change, and a push to that token reaches it."""
    srv = fresh_server(scenario=None)
    control(srv, "POST", "/v1/devices", {"id": "running-phone", "apps": [{"bundleId": TOPIC, "state": "background", "provider": {
        "baseURL": "pushlab:stand-in", "requests": [{"event": "registered", "path": "/devices", "body": {"token": "{deviceToken}"}}]}}]})
    token = control(srv, "GET", "/v1/devices/running-phone")["apps"][0]["deviceToken"]
    wait_until(lambda: control(srv, "GET", "/v1/stand-in")["requests"])
    assert [r["body"] for r in control(srv, "GET", "/v1/stand-in")["requests"]] == [{"token": token}]
    seen = control(srv, "GET", "/v1/devices/running-phone/observations?kind=callback")["observations"]
    assert [(o["callback"], o["appState"]) for o in seen] == [
        ("application:didFinishLaunchingWithOptions:", "background"),
        ("application:didRegisterForRemoteNotificationsWithDeviceToken:", "background")]
    assert seen[1]["deviceToken"] == token and seen[0]["launchOptions"] == {}


def test_a_scenarios_running_apps_register_once_across_a_restart(fresh_server, tmp_path):
    """A scenario's phones launch when the server is ready (the stand-in is reachable then), and a
    restart on the same store does not launch them again."""
    scenario = tmp_path / "running.yaml"
    scenario.write_text(f"""
name: running
keys:
  - {{keyId: PUSHLAB001, teamId: TEAMPUSHLB, publicKey: {REPO / "certs" / "AuthKey_PUSHLAB001.pub.pem"}, environment: both}}
apps: [{{bundleId: {TOPIC}, teamId: TEAMPUSHLB}}]
devices:
  - id: on-screen
    apps:
      - bundleId: {TOPIC}
        state: foreground
        provider:
          baseURL: "pushlab:stand-in"
          requests: [{{event: registered, path: /devices, body: {{token: "{{deviceToken}}"}}}}]
""")
    store = tmp_path / "running.db"
    srv = fresh_server("--db", str(store), scenario=scenario)
    wait_until(lambda: control(srv, "GET", "/v1/stand-in")["requests"])
    token = control(srv, "GET", "/v1/devices/on-screen")["apps"][0]["deviceToken"]
    assert [r["body"] for r in control(srv, "GET", "/v1/stand-in")["requests"]] == [{"token": token}]
    [registered] = control(srv, "GET", "/v1/observations?kind=providerRequest")["observations"]
    assert registered["event"] == "registered" and registered["status"] == 200
    callbacks = [o["callback"] for o in control(srv, "GET", "/v1/devices/on-screen/observations?kind=callback")["observations"]]
    assert callbacks == ["application:didFinishLaunchingWithOptions:", "application:didRegisterForRemoteNotificationsWithDeviceToken:",
                         "applicationDidBecomeActive:"]
    srv.send_signal()
    assert srv.wait() == 0

    again = fresh_server("--db", str(store), scenario=scenario)
    time.sleep(0.5)   # a launch would have been published by now
    assert control(again, "GET", "/v1/stand-in")["requests"] == []
    assert len(control(again, "GET", "/v1/devices/on-screen/observations?kind=callback")["observations"]) == 3


def test_a_stand_in_rule_answers_with_a_final_status_only(fresh_server):
    srv = fresh_server(scenario=None)
    for status in (100, 101, 144):
        request = urllib.request.Request(srv.control_url + "/v1/stand-in/rules", method="PUT",
                                         data=json.dumps({"rules": [{"path": "/x", "status": status}]}).encode())
        try:
            urllib.request.urlopen(request, timeout=10)
            raise AssertionError(f"status {status} was accepted")
        except urllib.error.HTTPError as refused:
            assert refused.code == 400
            assert "must be a final HTTP status, 200...599" in json.loads(refused.read())["error"]
    # curl, the way an app's client meets the answer: a final status, at once.
    control(srv, "PUT", "/v1/stand-in/rules", {"rules": [{"path": "/x", "status": 204}]})
    done = subprocess.run([tool("curl"), "-sS", "-m", "10", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST",
                           srv.control_url + "/stand-in/x"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and done.stdout == "204", done


def test_a_shutdown_does_not_wait_for_a_delayed_stand_in_answer(fresh_server):
    """A rule's delay may be ten minutes; SIGTERM still ends within the grace period, and the
    connection a client gave up on is closed with it."""
    srv = fresh_server(scenario=None)
    control(srv, "PUT", "/v1/stand-in/rules", {"rules": [{"path": "/slow", "delaySeconds": 600}]})
    gave_up = subprocess.run([tool("curl"), "-sS", "-m", "2", "-X", "POST", srv.control_url + "/stand-in/slow"],
                             capture_output=True, text=True, timeout=30)
    assert gave_up.returncode == 28, gave_up   # curl's time-out
    srv.send_signal()
    assert srv.wait(timeout=10) == 0, "the default 10 s grace period bounds the exit"
