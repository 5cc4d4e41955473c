"""Every push type end to end: real clients (aioapns for the types it knows, curl for the others)
push to the tokens of a simulated iPhone whose app has every push service, and the control API
shows what the phone did with each; none is `pushTypeNotSimulated`."""

from __future__ import annotations

import asyncio
import json
import subprocess
import urllib.request
import uuid

from aioapns import NotificationRequest, PushType

from conftest import CERTS, tool
from test_aioapns import _point_at, key_client
from world import TEAM_ID, TOPIC, provider_token

MDM_TOPIC = "com.apple.mgmt.External.pushlab-test"


def control(server, method: str, path: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(server.control_url + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read() or b"{}")


def curl(port: int, token: str, topic: str, push_type: str, payload: dict, priority: int = 10) -> int:
    p = subprocess.run([tool("curl"), "-sS", "--http2", "--cacert", str(CERTS / "ca.pem"), "-o", "/dev/null", "-w", "%{http_code}",
                        "-H", f"authorization: bearer {provider_token()}", "-H", f"apns-topic: {topic}",
                        "-H", f"apns-push-type: {push_type}", "-H", f"apns-priority: {priority}", "-H", "apns-expiration: 0",
                        "-d", json.dumps(payload), f"https://127.0.0.1:{port}/3/device/{token}"],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    return int(p.stdout)


def reason_of(port: int, token: str, topic: str, push_type: str) -> tuple[int, str | None]:
    p = subprocess.run([tool("curl"), "-sS", "--http2", "--cacert", str(CERTS / "ca.pem"), "-w", "\n%{http_code}",
                        "-H", f"authorization: bearer {provider_token()}", "-H", f"apns-topic: {topic}",
                        "-H", f"apns-push-type: {push_type}", "-H", "apns-priority: 10", "-d", '{"aps":{}}',
                        f"https://127.0.0.1:{port}/3/device/{token}"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    body, _, status = p.stdout.rpartition("\n")
    return int(status), json.loads(body)["reason"] if body else None


def test_every_push_type_reaches_its_part_of_the_phone(fresh_server, monkeypatch):
    srv = _point_at(fresh_server(scenario=None), monkeypatch)
    control(srv, "POST", "/v1/apps", {"bundleId": MDM_TOPIC, "teamId": TEAM_ID})
    phone = control(srv, "POST", "/v1/devices", {
        "id": "every-type", "locked": True, "mdm": {"topic": MDM_TOPIC, "pushMagic": "magic-7"},
        "apps": [{"bundleId": TOPIC, "state": "background", "voip": True, "locationPush": True, "pushToTalk": True,
                  "fileProvider": True, "widgets": True, "controls": True, "complication": True,
                  "serviceExtension": {"body": "decrypted", "seconds": 2}}],
    })
    app = phone["apps"][0]
    token = {key: app[key]["token"] for key in ("voip", "locationPush", "pushToTalk", "fileProvider", "widgets", "controls", "complication")}
    token["mdm"] = phone["mdm"]["token"]

    def request(key, push_type, message, topic=TOPIC):
        return NotificationRequest(device_token=token[key], message=message, notification_id=str(uuid.uuid4()),
                                   push_type=push_type, apns_topic=topic, time_to_live=0)

    async def send(requests, sandbox=True):
        client = key_client(use_sandbox=sandbox)
        try:
            return [await asyncio.wait_for(client.send_notification(r), 15) for r in requests]
        finally:
            client.pool.close()
            await asyncio.sleep(0.05)

    results = asyncio.run(send([
        request("voip", PushType.VOIP, {"aps": {}, "caller": "Ann"}, TOPIC + ".voip"),
        request("complication", PushType.COMPLICATION, {"aps": {}}, TOPIC + ".complication"),
        request("fileProvider", PushType.FILEPROVIDER, {"aps": {}, "container-identifier": "inbox"}, TOPIC + ".pushkit.fileprovider"),
        NotificationRequest(device_token=app["deviceToken"], notification_id=str(uuid.uuid4()), push_type=PushType.ALERT,
                            message={"aps": {"alert": {"title": "Chat", "body": "(encrypted)"}, "mutable-content": 1}}),
    ]))
    # MDM runs on APNs's production environment only.
    results += asyncio.run(send([request("mdm", PushType.MDM, {"mdm": "magic-7"}, MDM_TOPIC)], sandbox=False))
    assert [r.status for r in results] == ["200"] * 5, [(r.status, r.description) for r in results]
    for key, push_type, payload in [("locationPush", "location", {"aps": {}}), ("pushToTalk", "pushtotalk", {"aps": {}, "activeSpeaker": "Bo"}),
                                    ("widgets", "widgets", {"aps": {"content-changed": True}}), ("controls", "controls", {"aps": {"content-changed": True}})]:
        suffix = {"location": ".location-query", "pushtotalk": ".voip-ptt", "widgets": ".push-type.widgets", "controls": ".push-type.controls"}[push_type]
        assert curl(srv.dev_port, token[key], TOPIC + suffix, push_type, payload) == 200, push_type

    seen = control(srv, "GET", "/v1/devices/every-type/observations?limit=1000")["observations"]
    delivered = {o["pushType"] for o in seen if o["kind"] == "delivered"}
    assert delivered == {"voip", "complication", "fileprovider", "mdm", "alert", "location", "pushtotalk", "widgets", "controls"}
    assert not [o for o in seen if o["kind"] == "dropped"], [o for o in seen if o["kind"] == "dropped"]
    events = {o["event"] for o in seen if o["kind"] == "system"}
    assert {"incomingCall", "complicationUpdated", "enumeratorSignalled", "mdmCheckIn", "serviceExtension", "pushToTalkAudio",
            "widgetsReloaded", "controlsReloaded"} <= events
    call = next(o for o in seen if o["kind"] == "system" and o["event"] == "incomingCall")
    assert call["caller"] == "Ann" and call["presentation"] == "fullScreen"
    callbacks = {o["callback"] for o in seen if o["kind"] == "callback"}
    assert "didReceiveLocationPushPayload:completion:" in callbacks
    assert any(o["kind"] == "banner" and o.get("body") == "decrypted" for o in seen)

    # The app's own token is not the token of any other push type: APNs refuses it, as Apple
    # answers for location pushes (forum thread 691613), and nothing reaches the phone.
    for push_type, suffix in [("location", ".location-query"), ("pushtotalk", ".voip-ptt"), ("fileprovider", ".pushkit.fileprovider"),
                              ("complication", ".complication"), ("widgets", ".push-type.widgets"), ("controls", ".push-type.controls"),
                              ("voip", ".voip")]:
        r = reason_of(srv.dev_port, app["deviceToken"], TOPIC + suffix, push_type)
        assert r == (400, "DeviceTokenNotForTopic"), (push_type, r)
    assert control(srv, "GET", "/v1/devices/every-type/observations?kind=dropped")["observations"] == []
    # A service token for another topic is refused by APNs, as a VoIP token is.
    assert curl(srv.dev_port, token["widgets"], TOPIC, "alert", {"aps": {"alert": "hi"}}) == 400
