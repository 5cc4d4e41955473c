"""Simulated apps call their provider's backend over real HTTP: a small backend written for this
test stores the token the app registers, pushes to it through Pushlab with aioapns, and receives
the reply the user types into the notification's text action. Asserted from the backend's side,
from /v1/observations and from the event stream."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from aioapns import NotificationRequest, PushType

from test_aioapns import _point_at, key_client
from world import TOPIC


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
