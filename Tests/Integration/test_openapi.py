"""The control API against its OpenAPI document (Sources/PushlabControl/Embedded/openapi.json),
on a throwaway `pushlab serve` with the default scenario:

- schemathesis, from PyPI, drives every route with the document's examples, boundary values,
  generated and deliberately wrong input, and the links between operations, and checks that
  nothing answers 5xx, that every answer fits the document (status, content type, headers,
  body) and that what the document forbids is refused;
- a tour calls every route the way a test does (pushes of several kinds, taps, Live
  Activities, local notifications, faults, the stand-in, the event stream, the dashboard and
  its send form), so the answers generated input rarely reaches are checked against the
  document too."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.parse
import uuid
from pathlib import Path

import jsonschema_rs
import requests
import schemathesis

from conftest import CERTS, tool
from world import DEV_UNREGISTERED_TOKEN, REPO, TOPIC, provider_token

HERE = Path(__file__).resolve().parent
DOCUMENT = REPO / "Sources" / "PushlabControl" / "Embedded" / "openapi.json"
# Fixed, so a failure in CI reproduces; PUSHLAB_SCHEMA_SEED explores other inputs.
SEED = os.environ.get("PUSHLAB_SCHEMA_SEED", "20261124")
# Cases per operation and phase: about a minute for the 51 operations on 2 cores.
MAX_EXAMPLES = os.environ.get("PUSHLAB_SCHEMA_EXAMPLES", "25")
METHODS = {"get", "put", "post", "delete", "patch", "options", "head", "trace"}


def document() -> dict:
    return json.loads(DOCUMENT.read_text())


def all_operations() -> set[str]:
    return {f"{method.upper()} {path}" for path, item in document()["paths"].items() for method in item if method in METHODS}


def start(fresh_server):
    # A free channel management port: the default one may be another server's.
    srv = fresh_server("--channel-management-port", "0", scenario=None)
    assert srv.control_url, srv.stdout()
    return srv


def test_schemathesis_finds_every_route_keeping_to_the_document(fresh_server, tmp_path):
    srv = start(fresh_server)
    served = requests.get(srv.control_url + "/openapi.json", timeout=15)
    assert served.status_code == 200 and served.headers["content-type"] == "application/json; charset=utf-8"
    assert served.content == DOCUMENT.read_bytes(), "the binary serves the repository's document"

    command = [
        str(Path(sys.executable).parent / "st"), "--config-file", str(HERE / "schemathesis.toml"), "--no-color",
        # The repository's file (the same bytes, as above): read from the server's URL, schemathesis
        # would leave out GET /openapi.json itself.
        "run", str(DOCUMENT), "--url", srv.control_url, "--max-examples", MAX_EXAMPLES, "--seed", SEED, "--workers", "2",
    ]
    run = subprocess.run(command, cwd=tmp_path, env={**os.environ, "SCHEMATHESIS_HOOKS": str(HERE / "schemathesis_hooks.py")},
                         capture_output=True, text=True, timeout=600)
    report = f"{' '.join(command)}\n{run.stdout[-30000:]}\n{run.stderr[-5000:]}"
    assert run.returncode == 0, report
    tested = re.search(r"Tested: (\d+)", run.stdout)
    assert tested and int(tested.group(1)) == len(all_operations()), f"every operation is tested\n{report}"
    assert srv.alive(), srv.describe()


class DocumentedAPI:
    """Calls the control API and holds each answer to the document: a status the operation
    lists, and a body that fits its schema. Remembers which operations it called, and the last
    response as it came."""

    def __init__(self, srv):
        self.base = srv.control_url
        self.schema = schemathesis.openapi.from_path(str(DOCUMENT))
        self.session = requests.Session()
        self.called: set[str] = set()
        self.response: requests.Response | None = None

    def __call__(self, method: str, template: str, status: int, body=None, query: dict | None = None, raw: bytes | None = None,
                 headers: dict | None = None, **path_parameters: str):
        path = template.format(**{name: urllib.parse.quote(value, safe="") for name, value in path_parameters.items()})
        response = self.session.request(method, self.base + path, params=query, headers=headers, timeout=30,
                                        data=raw if raw is not None else None if body is None else json.dumps(body))
        self.response = response
        operation = self.schema[template][method]
        documented = operation.definition.raw["responses"]
        assert str(response.status_code) in documented or "default" in documented, f"{method} {path}: {response.status_code} is not documented"
        operation.validate_response(response)
        assert response.status_code == status, f"{method} {path}: {response.status_code} {response.text}"
        self.called.add(f"{method} {template}")
        return response.json() if response.headers.get("content-type", "").startswith("application/json") else response.text


def push(srv, token: str, payload: dict, *, topic: str = TOPIC, push_type: str = "alert", priority: int = 10,
         expiration: str = "0", apns_id: str | None = None) -> int:
    headers = ["-H", f"authorization: bearer {provider_token()}", "-H", f"apns-topic: {topic}", "-H", f"apns-push-type: {push_type}",
               "-H", f"apns-priority: {priority}", "-H", f"apns-expiration: {expiration}", "-H", f"apns-id: {apns_id or uuid.uuid4()}"]
    sent = subprocess.run([tool("curl"), "-sS", "--http2", "--cacert", str(CERTS / "ca.pem"), "-o", "/dev/null", "-w", "%{http_code}",
                           *headers, "-d", json.dumps(payload), f"https://127.0.0.1:{srv.dev_port}/3/device/{token}"],
                          capture_output=True, text=True, timeout=30)
    assert sent.returncode == 0, sent.stderr
    return int(sent.stdout)


def schema_validator(name: str):
    """A JSON Schema validator for one of the document's schemas."""
    return jsonschema_rs.validator_for({"$schema": "https://json-schema.org/draft/2020-12/schema",
                                        "components": document()["components"], "$ref": f"#/components/schemas/{name}"})


def test_a_tour_of_every_route_answers_as_documented(fresh_server):
    srv = start(fresh_server)
    api = DocumentedAPI(srv)
    later = "2099-01-01T00:00:00Z"

    # Health, the document itself, metrics.
    health = api("GET", "/v1/health", 200)
    assert health["scenario"] == "default"
    api("GET", "/openapi.json", 200)
    assert "pushlab_devices" in api("GET", "/metrics", 200)

    # Keys and apps of the world.
    api("GET", "/v1/keys", 200)
    public_key = (CERTS / "AuthKey_PUSHLAB001.pub.pem").read_text()
    api("POST", "/v1/keys", 201, {"keyId": "TOURKEY001", "teamId": "TEAMPUSHLB", "environment": "development", "publicKeyPem": public_key,
                                   "topics": [TOPIC]})
    api("POST", "/v1/keys", 409, {"keyId": "TOURKEY001", "teamId": "TEAMPUSHLB", "publicKeyPem": public_key})
    api("DELETE", "/v1/keys/{keyId}", 200, keyId="TOURKEY001")
    api("DELETE", "/v1/keys/{keyId}", 404, keyId="TOURKEY001")
    api("POST", "/v1/apps", 201, {"bundleId": "com.pushlab.tour", "teamId": "TEAMPUSHLB", "broadcastEnabled": False})
    api("GET", "/v1/apps", 200)

    # A phone with every part an app can have.
    phone = api("POST", "/v1/devices", 201, {
        "id": "tour", "name": "Tour's iPhone", "iosVersion": "18.2", "utcOffsetSeconds": 3600,
        "mdm": {"topic": "com.apple.mgmt.External.tour", "pushMagic": "magic"},
        "apps": [{
            "bundleId": TOPIC, "state": "foreground",
            "categories": [{"id": "MESSAGE", "actions": [{"id": "REPLY", "title": "Reply", "textInput": True},
                                                         {"id": "READ", "title": "Read", "activation": "background"}]}],
            "serviceExtension": {"title": "Decrypted", "seconds": 0.5},
            "liveActivities": {"attributesTypes": ["DeliveryAttributes"]},
            "voip": {"reportsCall": "never"}, "locationPush": True, "pushToTalk": True, "fileProvider": True, "widgets": True,
            "controls": True, "complication": True,
            "provider": {"baseURL": "pushlab:stand-in", "requests": [{"event": "registered", "path": "/devices/{deviceToken}"}]},
        }, {"bundleId": "com.example.nobody"}],
    })
    assert phone["warnings"], "an app of no team is warned about"
    token = phone["apps"][0]["deviceToken"]
    api("GET", "/v1/devices", 200, query={"limit": "2", "offset": "1"})
    found = api("GET", "/v1/devices", 200, query={"search": "TOUR"})
    assert [device["id"] for device in found["devices"]] == ["tour"] and found["total"] == 1, found
    api("GET", "/v1/devices", 400, query={"search": "x" * 257})
    api("GET", "/v1/devices/{id}", 200, id="tour")
    api("GET", "/v1/devices/{id}", 404, id="nobody")
    api("PATCH", "/v1/devices/{id}", 200, {"name": "Tour's phone", "locked": False}, id="tour")
    api("POST", "/v1/devices/{id}/apps", 201, {"bundleId": "com.pushlab.tour", "state": "background"}, id="tour")
    api("POST", "/v1/devices/{id}/apps", 409, {"bundleId": "com.pushlab.tour"}, id="tour")
    api("GET", "/v1/devices/{id}/apps/{bundleId}", 200, id="tour", bundleId=TOPIC)

    # Live Activities: the app starts one in the foreground, updates it, ends it.
    activity = api("POST", "/v1/devices/{id}/apps/{bundleId}/activities", 201,
                   {"attributesType": "DeliveryAttributes", "attributes": {"order": "42"}, "contentState": {"eta": 10}, "pushType": "token"},
                   id="tour", bundleId=TOPIC)
    api("PATCH", "/v1/devices/{id}/apps/{bundleId}/activities/{activityId}", 200, {"contentState": {"eta": 5}, "staleDate": 4102444800},
        id="tour", bundleId=TOPIC, activityId=activity["id"])
    api("GET", "/v1/devices/{id}/activities", 200, query={"bundleId": TOPIC}, id="tour")
    api("POST", "/v1/devices/{id}/apps/{bundleId}/activities/{activityId}/end", 200, {"contentState": {"eta": 0}},
        id="tour", bundleId=TOPIC, activityId=activity["id"])
    api("PATCH", "/v1/devices/{id}/apps/{bundleId}/activities/{activityId}", 409, {"contentState": {"eta": 1}},
        id="tour", bundleId=TOPIC, activityId=activity["id"])
    second = api("POST", "/v1/devices/{id}/apps/{bundleId}/activities", 201, {"attributesType": "DeliveryAttributes"}, id="tour", bundleId=TOPIC)
    dismissed = api("POST", "/v1/devices/{id}/apps/{bundleId}/activities/{activityId}/end", 200, {"dismissalPolicy": "immediate"},
                    id="tour", bundleId=TOPIC, activityId=second["id"])
    assert dismissed == {"id": second["id"], "state": "dismissed"}
    api("PATCH", "/v1/devices/{id}/apps/{bundleId}/live-activities", 200, {"frequentUpdatesEnabled": False}, id="tour", bundleId=TOPIC)
    api("GET", "/v1/channels", 200, query={"environment": "sandbox"})

    # Local notifications, every trigger.
    for identifier, trigger in [("soon", {"type": "timeInterval", "seconds": 60, "repeats": True}),
                                ("date", {"type": "date", "at": later, "repeatInterval": "year"}),
                                ("standup", {"type": "calendar", "hour": 9, "minute": 55, "repeats": True}),
                                ("office", {"type": "region", "region": "office", "onExit": True})]:
        api("POST", "/v1/devices/{id}/apps/{bundleId}/local-notifications", 201,
            {"identifier": identifier, "title": "Reminder", "badge": 1, "userInfo": {"room": "4.01"}, "trigger": trigger},
            id="tour", bundleId=TOPIC)
    api("POST", "/v1/devices/{id}/apps/{bundleId}/local-notifications", 201, {"identifier": "now", "body": "Now", "presentNow": True},
        id="tour", bundleId=TOPIC)
    api("GET", "/v1/devices/{id}/apps/{bundleId}/local-notifications", 200, id="tour", bundleId=TOPIC)
    api("DELETE", "/v1/devices/{id}/apps/{bundleId}/local-notifications/{identifier}", 200, id="tour", bundleId=TOPIC, identifier="date")
    api("DELETE", "/v1/devices/{id}/apps/{bundleId}/local-notifications/{identifier}", 404, id="tour", bundleId=TOPIC, identifier="date")

    # Pushes of several kinds, as the event stream shows them.
    events = requests.get(srv.control_url + "/v1/events", stream=True, timeout=30)
    assert events.status_code == 200 and events.headers["content-type"].startswith("text/event-stream")
    lines = events.iter_lines(decode_unicode=True)
    assert next(lines).startswith(": pushlab events"), "subscribed"
    api("PATCH", "/v1/devices/{id}/apps/{bundleId}", 200, {"state": "background", "badge": 0}, id="tour", bundleId=TOPIC)
    alert = {"aps": {"alert": {"title": "Cara", "body": "Lunch at 1?"}, "sound": "default", "badge": 3, "category": "MESSAGE",
                     "mutable-content": 1}, "thread": 7}
    message = str(uuid.uuid4())
    assert push(srv, token, alert, apns_id=message) == 200
    assert push(srv, token, {"aps": {"content-available": 1}}, push_type="background", priority=5) == 200
    assert push(srv, token, {"aps": {"content-available": 1}}, push_type="background", priority=10) == 200
    voip = phone["apps"][0]["voip"]["token"]
    assert push(srv, voip, {"caller": "Ann"}, topic=TOPIC + ".voip", push_type="voip") == 200
    widgets = phone["apps"][0]["widgets"]["token"]
    assert push(srv, widgets, {"aps": {"content-changed": True}}, topic=TOPIC + ".push-type.widgets", push_type="widgets") == 200
    # The five requests' events come as they are answered, the phones' observations as the
    # delivery worker gets to them (later on a busy machine): read until both are in, or a
    # minute has passed (an idle stream still sends a keep-alive every 15 s).
    seen: dict[str, list[dict]] = {}
    deadline = time.monotonic() + 60
    for line in lines:
        if line.startswith("event: "):
            name = line.removeprefix("event: ")
        elif line.startswith("data: "):
            seen.setdefault(name, []).append(json.loads(line.removeprefix("data: ")))
        if (len(seen.get("request", [])) >= 5 and len(seen.get("observation", [])) >= 5) or time.monotonic() > deadline:
            break
    events.close()
    for name, data in seen.items():
        validator = schema_validator({"request": "APNsRequestEvent", "observation": "Observation"}[name])
        for item in data:
            validator.validate(item)
    assert len(seen.get("request", [])) >= 5 and len(seen.get("observation", [])) >= 5, seen

    # Offline: APNs stores one push, replaces it with the next, delivers it on the way back.
    api("PATCH", "/v1/devices/{id}", 200, {"online": False}, id="tour")
    assert push(srv, token, alert, expiration="4102444800") == 200
    assert push(srv, token, {"aps": {"alert": "Second"}}, expiration="4102444800") == 200
    api("GET", "/v1/devices/{id}", 200, id="tour")
    api("PATCH", "/v1/devices/{id}", 200, {"online": True, "lowPowerMode": True}, id="tour")
    assert push(srv, token, {"aps": {"content-available": 1}}, push_type="background", priority=5) == 200
    assert push(srv, token, {"aps": {"alert": "Quiet"}}, priority=5) == 200
    api("GET", "/v1/devices/{id}/apps/{bundleId}", 200, id="tour", bundleId=TOPIC)
    api("PATCH", "/v1/devices/{id}", 200, {"lowPowerMode": False}, id="tour")
    dan = api("GET", "/v1/devices/{id}", 200, id="dan")["apps"][0]["deviceToken"]
    api("PATCH", "/v1/devices/{id}", 200, {"online": True}, id="dan")
    assert push(srv, dan, {"aps": {"content-available": 1}}, push_type="background", priority=5) == 200

    # The user acts on what arrived.
    api("POST", "/v1/devices/{id}/interactions", 200, {"type": "tapAction", "bundleId": TOPIC, "apnsId": message, "actionId": "REPLY",
                                                            "text": "Yes"}, id="tour")
    api("POST", "/v1/devices/{id}/interactions", 200, {"type": "exitRegion", "region": "office"}, id="tour")
    api("POST", "/v1/devices/{id}/interactions", 200, {"type": "tapAppIcon", "bundleId": TOPIC}, id="tour")
    api("POST", "/v1/devices/{id}/interactions", 200, {"type": "clearAll"}, id="tour")
    api("POST", "/v1/devices/{id}/interactions", 404, {"type": "tapNotification", "bundleId": TOPIC, "apnsId": "nothing"}, id="tour")
    api("PATCH", "/v1/devices/{id}/apps/{bundleId}", 200, {"state": "notRunning", "terminatedBy": "user", "voip": {"reportsCall": "immediately"},
                                                            "willPresentOptions": ["banner", "sound"]}, id="tour", bundleId=TOPIC)
    api("PATCH", "/v1/devices/{id}/apps/{bundleId}", 409, {"voip": True}, id="tour", bundleId="com.pushlab.tour")

    # The provider report follows what was pushed, at Apple's latency.
    api("PUT", "/v1/report", 200, {"recording": True})
    api("PUT", "/v1/latency", 200, {"both": {"distribution": "fixed", "ms": 5}, "internalServerErrorRate": 0})
    api("PUT", "/v1/latency", 400, {"preset": "good-day"})
    api("GET", "/v1/latency", 200)
    assert push(srv, token, {"aps": {"alert": "Reported"}}) == 200
    report = api("GET", "/v1/report", 200, query={"provider": "PUSHLAB001"})
    assert report["providers"] and report["providers"][0]["requests"] >= 1, report
    api("DELETE", "/v1/latency", 200)
    api("DELETE", "/v1/report", 200)
    api("PUT", "/v1/report", 200, {"recording": False})

    # Time passes: local notifications fire.
    api("GET", "/v1/clock", 200)
    api("POST", "/v1/clock", 200, {"mode": "manual"})
    api("POST", "/v1/clock", 200, {"advance": 3600})
    api("POST", "/v1/clock", 200, {"mode": "real"})

    # The stand-in backend the app registered with.
    api("PUT", "/v1/stand-in/rules", 200, {"rules": [{"path": "/sync*", "method": "POST", "status": 503, "body": {"error": "down"}},
                                                     {"path": "/devices", "status": 201}]})
    for method in ["GET", "POST", "PUT", "PATCH", "DELETE"]:
        api(method, "/stand-in/{path}", 201, raw=b'{"hello":1}' if method in ("POST", "PUT", "PATCH") else None, path="devices")
    api("POST", "/stand-in/{path}", 503, raw=b"{}", path="sync-now")
    api("GET", "/v1/stand-in", 200)
    api("DELETE", "/v1/stand-in/requests", 200)

    # What was observed and asked, in every kind the tour caused.
    observations = api("GET", "/v1/observations", 200, query={"limit": "10000"})["observations"]
    kinds = {o["kind"] for o in observations}
    assert {"delivered", "banner", "sound", "badge", "notificationCenter", "callback", "appState", "liveActivity", "system",
            "stored", "discarded", "throttled", "dropped"} <= kinds, kinds
    api("GET", "/v1/devices/{id}/observations", 200, query={"kind": "callback", "since": "1"}, id="tour")
    api("GET", "/v1/pushes", 200, query={"limit": "5", "status": "200"})

    # The dashboard: its page, a file the page names (the same again is a 304), and its send
    # form's route, signing with the scenario's sample key or with a key the request brings.
    page = api("GET", "/", 200)
    script = re.search(r'src="/dashboard/([\w.-]+)"', page).group(1)
    api("GET", "/dashboard/{file}", 200, file=script)
    api("GET", "/dashboard/{file}", 304, headers={"if-none-match": api.response.headers["etag"]}, file=script)
    api("GET", "/dashboard/{file}", 404, file="missing.js")
    sent = api("POST", "/v1/send", 200, {"deviceId": "tour", "bundleId": TOPIC, "payload": {"aps": {"alert": "From the form"}},
                                         "priority": 10, "collapseId": "form", "expiration": 0})
    assert sent["answer"]["status"] == 200 and sent["request"]["headers"]["apns-topic"] == TOPIC, sent
    signed = api("POST", "/v1/send", 200, {"deviceToken": token, "environment": "sandbox", "pushType": "background", "priority": 5,
                                           "payload": {"aps": {"content-available": 1}}, "apnsId": str(uuid.uuid4()), "keyId": "PUSHLAB001",
                                           "teamId": "TEAMPUSHLB", "privateKeyPem": (CERTS / "AuthKey_PUSHLAB001.p8").read_text()})
    assert signed["answer"]["status"] == 200, signed
    gone = api("POST", "/v1/send", 200, {"deviceToken": DEV_UNREGISTERED_TOKEN, "payload": {"aps": {"alert": "Anyone?"}}})
    assert gone["answer"]["status"] == 410 and gone["answer"]["reason"] == "Unregistered" and gone["answer"]["timestamp"], gone
    api("POST", "/v1/send", 404, {"deviceId": "nobody", "payload": {}})
    api("POST", "/v1/send", 400, {"deviceId": "tour", "deviceToken": token, "payload": {}})

    # JPush and GeTui: portal apps added, the tour phone's app given no SDK, calls on an app's behalf.
    api("POST", "/v1/services/jpush/apps", 201, {"appKey": "tourjpushkey0000000000001", "masterSecret": "tour-secret", "bundleId": TOPIC,
                                                  "apnsKey": {"keyId": "PUSHLAB001", "teamId": "TEAMPUSHLB", "privateKey": "certs/AuthKey_PUSHLAB001.p8"}})
    api("POST", "/v1/services/jpush/apps", 400, {"appKey": "tourjpushkey0000000000002", "masterSecret": "s", "bundleId": TOPIC})
    api("POST", "/v1/services/getui/apps", 201, {"appId": "TourGeTui01", "appKey": "k", "masterSecret": "s", "bundleId": TOPIC,
                                                  "environment": "development", "apnsCertificate": "certs/client.p12", "apnsCertificatePassword": "pushlab"})
    called = api("POST", "/v1/services/{service}/call", 200, {"app": "tourjpushkey0000000000001", "path": "/v3/push",
                                                             "body": {"platform": ["ios"], "audience": "all", "message": {"msg_content": "x"}}},
                 service="jpush")
    assert called["status"] == 400 and called["body"]["error"]["code"] == 1011, called
    called = api("POST", "/v1/services/{service}/call", 200, {"app": "TourGeTui01", "method": "GET", "path": "/user/status/none"}, service="getui")
    assert called["status"] == 200 and called["body"]["data"] == {}, called
    api("POST", "/v1/services/{service}/call", 404, {"app": "nobody", "path": "/v3/push"}, service="jpush")
    listed = api("GET", "/v1/services", 200)
    assert [a["appKey"] for a in listed["jpush"]["apps"]] == ["tourjpushkey0000000000001"], listed
    api("GET", "/v1/services/messages", 200, query={"service": "jpush", "limit": "10"})

    # Faults.
    rule = api("POST", "/v1/faults", 201, {"topic": TOPIC, "count": 2, "respond": {"reason": "ServiceUnavailable"}})
    api("POST", "/v1/faults", 201, {"everyNth": 3, "probability": 0.5, "delayMs": 10})
    api("POST", "/v1/faults", 400, {"resetStream": True, "closeConnection": True})
    assert push(srv, token, alert) == 503
    api("GET", "/v1/pushes", 200, query={"reason": "ServiceUnavailable"})
    api("GET", "/v1/faults", 200)
    api("DELETE", "/v1/faults/{faultId}", 200, faultId=rule["id"])
    api("DELETE", "/v1/faults", 200)
    # A send that gets no answer says why.
    api("POST", "/v1/faults", 201, {"deviceToken": token, "count": 1, "resetStream": True})
    lost = api("POST", "/v1/send", 200, {"deviceId": "tour", "bundleId": TOPIC, "payload": {"aps": {"alert": "Lost"}}})
    assert "noAnswer" in lost and "answer" not in lost, lost

    # Apps and devices go; the world goes back.
    api("POST", "/v1/devices/{id}/apps/{bundleId}/reinstall", 200, id="tour", bundleId=TOPIC)
    api("DELETE", "/v1/devices/{id}/apps/{bundleId}", 200, id="tour", bundleId="com.pushlab.tour")
    api("DELETE", "/v1/devices/{id}", 200, id="tour")
    api("POST", "/v1/scenario", 200, {"path": "scenarios/problems/uninstalled-app-410.yaml"})
    api("POST", "/v1/scenario", 400, {"path": "scenarios/none.yaml"})
    api("POST", "/v1/reset", 200)

    api.called.add("GET /v1/events")  # read above as a stream, each event held to the document
    assert api.called == all_operations(), f"routes the tour missed: {sorted(all_operations() - api.called)}"
    assert srv.alive(), srv.describe()
