"""Live Activities end to end: aioapns (which knows the `liveactivity` push type) starts,
updates and ends an activity on a simulated iPhone through Pushlab's provider API, and the
control API shows what the phone did; the last push to the gone activity's token is 410."""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
import urllib.request
import uuid

from aioapns import NotificationRequest, PushType

from conftest import CERTS, REPO, wait_for_binary
from test_aioapns import _point_at, key_client
from world import KEY_ID, TEAM_ID, TOPIC

LA_TOPIC = TOPIC + ".push-type.liveactivity"
NOW = int(time.time())


def control(server, method: str, path: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(server.control_url + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read() or b"{}")


def live_observations(server, device: str) -> list[dict]:
    return control(server, "GET", f"/v1/devices/{device}/observations?kind=liveActivity")["observations"]


async def send(requests: list[NotificationRequest]):
    client = key_client(use_sandbox=True)
    try:
        return [await asyncio.wait_for(client.send_notification(r), 15) for r in requests]
    finally:
        client.pool.close()
        await asyncio.sleep(0.05)


def request(token: str, aps: dict, priority: int = 10) -> NotificationRequest:
    return NotificationRequest(device_token=token, message={"aps": aps}, notification_id=str(uuid.uuid4()),
                               push_type=PushType.LIVEACTIVITY, apns_topic=LA_TOPIC, priority=priority)


def test_aioapns_starts_updates_and_ends_a_live_activity(fresh_server, monkeypatch):
    srv = _point_at(fresh_server(scenario=None), monkeypatch)
    phone = control(srv, "POST", "/v1/devices", {
        "id": "live-phone", "iosVersion": "18.2",
        "apps": [{"bundleId": TOPIC, "state": "background", "liveActivities": {"attributesTypes": ["DeliveryAttributes"]}}],
    })
    push_to_start = phone["apps"][0]["liveActivities"]["pushToStartToken"]

    start = request(push_to_start, {
        "timestamp": NOW, "event": "start", "content-state": {"eta": 20}, "attributes-type": "DeliveryAttributes",
        "attributes": {"order": "42"}, "alert": {"title": "Order 42", "body": "On its way"}, "input-push-token": 1,
    })
    [started] = asyncio.run(send([start]))
    assert started.is_successful, (started.status, started.description)
    [activity] = control(srv, "GET", "/v1/devices/live-phone/activities")["activities"]
    assert activity["state"] == "active" and activity["contentState"] == {"eta": 20}
    token = activity["pushToken"]

    results = asyncio.run(send([
        request(token, {"timestamp": NOW + 60, "event": "update", "content-state": {"eta": 10}}),
        request(token, {"timestamp": NOW + 30, "event": "update", "content-state": {"eta": 15}}, priority=5),
        request(token, {"timestamp": NOW + 90, "event": "end", "content-state": {"eta": 0}, "dismissal-date": NOW - 1}),
    ]))
    assert [r.status for r in results] == ["200", "200", "200"]
    events = [(o["event"], o.get("reason")) for o in live_observations(srv, "live-phone")]
    assert events == [("started", None), ("updated", None), ("ignored", "olderTimestamp"), ("ended", "endEvent"),
                      ("dismissed", "dismissalDate")]
    assert control(srv, "GET", "/v1/devices/live-phone/activities")["activities"] == []

    [gone] = asyncio.run(send([request(token, {"timestamp": NOW + 120, "event": "update", "content-state": {"eta": 1}})]))
    assert gone.status == "410" and gone.description == "Unregistered"

    [wrong_topic] = asyncio.run(send([NotificationRequest(
        device_token=push_to_start, message={"aps": {"alert": "hi"}}, push_type=PushType.ALERT)]))
    assert wrong_topic.status == "400" and wrong_topic.description == "DeviceTokenNotForTopic"


def test_pushlab_send_to_a_devices_push_to_start_and_activity_tokens(fresh_server):
    srv = fresh_server(scenario=None)
    control(srv, "POST", "/v1/devices", {"id": "eve", "iosVersion": "18.2",
                                          "apps": [{"bundleId": TOPIC, "state": "background", "liveActivities": True}]})

    def send(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(wait_for_binary()), "send", *args, "--key", str(CERTS / f"AuthKey_{KEY_ID}.p8"),
                               "--key-id", KEY_ID, "--team-id", TEAM_ID, "--ca", str(CERTS / "ca.pem"),
                               "--server", f"127.0.0.1:{srv.dev_port}", "--control", srv.control_url],
                              cwd=REPO, capture_output=True, text=True, timeout=30)

    none_yet = send("eve", "--to", "activity", "--payload", "{}")
    assert none_yet.returncode == 2 and "has no Live Activity with a push token" in none_yet.stderr
    start = {"aps": {"timestamp": NOW, "event": "start", "content-state": {"eta": 3}, "attributes-type": "A",
                     "attributes": {}, "alert": {"title": "Hi"}, "input-push-token": 1}}
    started = send("eve", "--to", "push-to-start", "--payload", json.dumps(start))
    assert started.returncode == 0 and started.stdout.startswith("200"), started.stdout + started.stderr
    updated = send("eve", "--to", "activity", "--payload", json.dumps(
        {"aps": {"timestamp": NOW + 1, "event": "update", "content-state": {"eta": 2}}}))
    assert updated.returncode == 0, updated.stdout + updated.stderr
    assert [o["event"] for o in live_observations(srv, "eve")] == ["started", "updated"]
