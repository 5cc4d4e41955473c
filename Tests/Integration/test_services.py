"""JPush and GeTui (docs/SERVICES.md): JPush's official Python client (`jpush` on PyPI) against
Pushlab's JPush API by host name and CA trust, and GeTui's REST API v2 over plain HTTPS as its
documentation shows (GeTui has no v2 client on PyPI). What the phones observe is read from the
control API."""
from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import time
import urllib.request
from pathlib import Path

import jpush
import pytest
import requests

from world import CERTS

JPUSH_KEY = "7c6b5a4938271605f4e3d2c1"
JPUSH_SECRET = "7c6b5a4938271605f4e3d2c0"
ON_SCREEN = "13165ffa4e0a1b2c3d4"
AWAY = "13165ffa4e0a1b2c3d5"
GETUI_APP, GETUI_KEY, GETUI_SECRET = "GtLabApp0001", "GtLabKey0001", "GtLabSecret0001"
CID_ON, CID_AWAY = "0a0000000000000000000000000000b1", "0a0000000000000000000000000000b2"
HOSTS = {"api.jpush.cn", "device.jpush.cn", "report.jpush.cn", "restapi.getui.com"}
BANNER = re.compile(r"^\s*(JPush|GeTui) API\s+https://127\.0\.0\.1:(\d+)", re.M)


def scenario(path: Path) -> Path:
    path.write_text(f"""name: services
keys:
  - {{ keyId: PUSHLAB001, teamId: TEAMPUSHLB, privateKey: {CERTS}/AuthKey_PUSHLAB001.p8 }}
apps:
  - {{ bundleId: com.pushlab.demo, teamId: TEAMPUSHLB }}
services:
  jpush:
    - appKey: {JPUSH_KEY}
      masterSecret: {JPUSH_SECRET}
      bundleId: com.pushlab.demo
      apnsKey: {{ keyId: PUSHLAB001, teamId: TEAMPUSHLB, privateKey: {CERTS}/AuthKey_PUSHLAB001.p8 }}
  getui:
    - appId: {GETUI_APP}
      appKey: {GETUI_KEY}
      masterSecret: {GETUI_SECRET}
      bundleId: com.pushlab.demo
      environment: development
      apnsCertificate: {CERTS}/client.p12
      apnsCertificatePassword: pushlab
devices:
  - id: on-screen
    apps: [{{ bundleId: com.pushlab.demo, environment: production, state: foreground,
             jpush: {{ appKey: {JPUSH_KEY}, registrationId: {ON_SCREEN} }} }}]
  - id: away
    apps: [{{ bundleId: com.pushlab.demo, environment: production, state: background,
             jpush: {{ appKey: {JPUSH_KEY}, registrationId: {AWAY} }} }}]
  - id: getui-on
    apps: [{{ bundleId: com.pushlab.demo, state: foreground, getui: {{ appId: {GETUI_APP}, clientId: {CID_ON} }} }}]
  - id: getui-away
    apps: [{{ bundleId: com.pushlab.demo, state: background, getui: {{ appId: {GETUI_APP}, clientId: {CID_AWAY} }} }}]
""")
    return path


@pytest.fixture(scope="module")
def services(tmp_path_factory):
    """One pushlab with both services on free ports, the services' host names resolving to it."""
    from conftest import PushlabServer, _finish
    directory = tmp_path_factory.mktemp("services")
    srv = PushlabServer(directory, ("--jpush-port", "0", "--getui-port", "0"), scenario(directory / "services.yaml")).start()
    ports = {name: int(port) for name, port in BANNER.findall(srv.stdout())}
    assert set(ports) == {"JPush", "GeTui"}, srv.stdout()
    original = socket.getaddrinfo

    def resolve(host, *args, **kwargs):
        return original("127.0.0.1" if host in HOSTS else host, *args, **kwargs)

    socket.getaddrinfo = resolve
    # requests lets REQUESTS_CA_BUNDLE (or CURL_CA_BUNDLE) win over session.verify, and the JPush
    # client gives no other way to trust a CA: the test trusts Pushlab's as a user would.
    saved = {name: os.environ.pop(name, None) for name in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")}
    os.environ["REQUESTS_CA_BUNDLE"] = str(CERTS / "ca.pem")
    try:
        yield srv, ports
    finally:
        socket.getaddrinfo = original
        for name, value in saved.items():
            os.environ.pop(name, None)
            if value is not None:
                os.environ[name] = value
        _finish(srv)


def jpush_client(port: int, secret: str = JPUSH_SECRET) -> jpush.JPush:
    base = f"https://api.jpush.cn:{port}/v3/"
    jpush.common.ZONES["PUSHLAB"] = {
        "PUSH": base, "REPORT": f"https://report.jpush.cn:{port}/v3/", "DEVICE": f"https://device.jpush.cn:{port}/v3/devices/",
        "ALIAS": f"https://device.jpush.cn:{port}/v3/aliases/", "TAG": f"https://device.jpush.cn:{port}/v3/tags/",
        "SCHEDULE": base + "schedules/", "ADMIN": base,
    }
    client = jpush.JPush(JPUSH_KEY, secret, zone="pushlab")
    client.session.verify = str(CERTS / "ca.pem")
    return client


def observations(srv, device: str) -> list[dict]:
    with urllib.request.urlopen(f"{srv.control_url}/v1/observations?deviceId={device}&limit=1000") as answer:
        return json.load(answer)["observations"]


def callbacks(srv, device: str) -> list[str]:
    return [o["callback"] for o in observations(srv, device) if o["kind"] == "callback"]


def test_jpush_client_pushes_a_notification_and_a_custom_message(services):
    srv, ports = services
    client = jpush_client(ports["JPush"])
    push = client.create_push()
    push.audience = jpush.audience(jpush.registration_id(ON_SCREEN, AWAY))
    push.platform = jpush.platform("ios")
    push.notification = jpush.notification(ios=jpush.ios(alert="Order shipped", badge="+1", extras={"order": 42}))
    push.message = jpush.message("sync:1", title="Sync", content_type="text", extras={"cursor": 1})
    push.options = {"apns_production": True, "time_to_live": 3600}
    answer = push.send()
    assert answer.status_code == 200
    msg_id = answer.payload["msg_id"]
    assert re.fullmatch(r"\d+", msg_id) and answer.payload["sendno"] == "0"

    on = [o for o in observations(srv, "on-screen") if o["kind"] == "callback"]
    message = next(o for o in on if o["callback"] == "kJPFNetworkDidReceiveMessageNotification")
    assert message["userInfo"]["content"] == "sync:1" and message["userInfo"]["extras"] == {"cursor": 1}
    assert message["userInfo"]["content_type"] == "text" and message["sdk"]["offLine"] is False
    present = next(o for o in on if o["callback"].startswith("jpushNotificationCenter:willPresent"))
    assert present["userInfo"]["order"] == 42 and str(present["userInfo"]["_j_msgid"]) == msg_id
    assert present["userInfo"]["aps"] == {"alert": "Order shipped", "badge": 1, "sound": "default"}

    away = observations(srv, "away")
    assert any(o["kind"] == "banner" for o in away)
    assert "kJPFNetworkDidReceiveMessageNotification" not in [o.get("callback") for o in away]

    received = client.create_report().get_received(msg_id)
    row = received.payload[0]
    assert row["msg_id"] == msg_id and row["ios_apns_sent"] == 2 and row["ios_msg_received"] == 1

    # The user opens the app: the kept custom message arrives, flagged offline.
    request = urllib.request.Request(f"{srv.control_url}/v1/devices/away/interactions",
                                     data=json.dumps({"type": "tapAppIcon", "bundleId": "com.pushlab.demo"}).encode(), method="POST")
    urllib.request.urlopen(request).read()
    handed = [o for o in observations(srv, "away") if o.get("callback") == "kJPFNetworkDidReceiveMessageNotification"]
    assert len(handed) == 1 and handed[0]["sdk"]["offLine"] is True
    assert client.create_report().get_received(msg_id).payload[0]["ios_msg_received"] == 2


def test_jpush_client_reads_message_details_and_user_statistics(services):
    """The report API's other two reads through the official client: a message's details, and
    the app's new, online and active users per day of Beijing time."""
    srv, ports = services
    client = jpush_client(ports["JPush"])
    push = client.create_push()
    push.audience = jpush.audience(jpush.registration_id(ON_SCREEN))
    push.platform = jpush.platform("ios")
    push.notification = jpush.notification(ios=jpush.ios(alert="Details"))
    push.message = jpush.message("details:1")
    push.options = {"apns_production": True}
    msg_id = push.send().payload["msg_id"]
    report = client.create_report()
    details = report.get_messages_detail(msg_id).payload[0]
    assert details["msg_id"] == int(msg_id)
    assert details["ios"] == {"apns_target": 1, "apns_sent": 1, "apns_received": None, "apns_click": None, "msg_target": 1, "msg_received": 1}
    assert report.get_messages_detail("1").payload[0]["ios"]["apns_target"] is None, "a msg_id JPush never gave out"

    with urllib.request.urlopen(f"{srv.control_url}/v1/clock") as answer:
        now_ms = json.load(answer)["timeMs"]
    beijing = time.gmtime(now_ms / 1000 + 8 * 3600 - 86_400)
    yesterday = time.strftime("%Y-%m-%d", beijing)
    users = report.get_users("DAY", yesterday, 2).payload
    assert users["time_unit"] == "DAY" and users["start"] == yesterday and users["duration"] == 2
    assert [item["time"] for item in users["items"]][0] == yesterday and len(users["items"]) == 2
    # Both phones registered when the server started; the one on screen is online and active.
    figures = [item.get("ios", {}) for item in users["items"]]
    assert sum(f.get("new", 0) for f in figures) == 2, users
    assert any(f.get("online", 0) >= 1 and f.get("active", 0) >= 1 for f in figures), users
    with pytest.raises(jpush.common.JPushFailure) as refused:
        report.get_users("DAY", yesterday, 61)
    assert refused.value.error_code == 3005 and refused.value.response.status_code == 400
    with pytest.raises(jpush.common.JPushFailure) as refused:
        report.get_users("HOUR", yesterday, 2)
    assert refused.value.error_code == 3004


def test_jpush_client_device_api_validate_and_errors(services):
    srv, ports = services
    client = jpush_client(ports["JPush"])
    device = client.create_device()
    device.set_deviceinfo(AWAY, jpush.device_tag(jpush.add("vip", "beta")))
    device.set_deviceinfo(AWAY, jpush.device_alias("ann"))
    assert device.get_deviceinfo(AWAY).payload == {"tags": ["beta", "vip"], "alias": "ann", "mobile": None}
    assert device.get_aliasuser("ann").payload == {"registration_ids": [AWAY]}
    assert device.check_taguserexist("vip", AWAY).payload == {"result": True}
    assert "vip" in device.get_taglist().payload["tags"]

    push = client.create_push()
    push.audience = jpush.audience(jpush.tag("vip"))
    push.platform = jpush.all_
    push.message = jpush.message("to vip")
    assert push.send_validate().status_code == 200
    assert push.send().status_code == 200

    push.audience = jpush.audience(jpush.registration_id("0000000000000000000"))
    with pytest.raises(jpush.JPushFailure) as failure:
        push.send()
    assert failure.value.error_code == 1011 and failure.value.response.status_code == 400

    bad = client.create_push()
    bad.audience = jpush.all_
    bad.platform = jpush.platform("ios")
    bad.notification = {"ios": {"alert": "x", "unknown": 1}}
    with pytest.raises(jpush.JPushFailure) as failure:
        bad.send()
    assert failure.value.error_code == 1009

    with pytest.raises(jpush.common.Unauthorized):
        wrong = jpush_client(ports["JPush"], secret="not-the-secret").create_push()
        wrong.audience, wrong.platform, wrong.message = jpush.all_, jpush.all_, jpush.message("x")
        wrong.send()


def getui_call(port: int, method: str, path: str, body: dict | None = None, token: str | None = None) -> tuple[int, dict]:
    headers = {"Content-Type": "application/json;charset=utf-8", **({"token": token} if token else {})}
    answer = requests.request(method, f"https://restapi.getui.com:{port}/v2/{GETUI_APP}{path}", json=body, headers=headers,
                              verify=str(CERTS / "ca.pem"), timeout=30)
    return answer.status_code, answer.json()


def test_getui_auth_push_and_the_offline_transmission(services):
    srv, ports = services
    port = ports["GeTui"]
    stamp = str(int(time.time() * 1000))
    status, body = getui_call(port, "POST", "/push/single/cid", {"request_id": "no-token-0001"})
    assert status == 401 and body["code"] == 10001
    sign = hashlib.sha256((GETUI_KEY + stamp + GETUI_SECRET).encode()).hexdigest()
    status, auth = getui_call(port, "POST", "/auth", {"sign": sign, "timestamp": stamp, "appkey": GETUI_KEY})
    assert status == 200 and auth["code"] == 0
    token = auth["data"]["token"]
    assert int(auth["data"]["expire_time"]) - int(stamp) >= 86_399_000

    for cid, request_id in ((CID_ON, "getui-request-01"), (CID_AWAY, "getui-request-02")):
        status, answer = getui_call(port, "POST", "/push/single/cid", {
            "request_id": request_id, "audience": {"cid": [cid]},
            "push_message": {"transmission": '{"orderId":42}'},
            "push_channel": {"ios": {"type": "notify", "aps": {"alert": {"title": "Order", "body": "Shipped"}}, "auto_badge": "+1", "payload": "apns"}},
        }, token)
        assert status == 200 and answer["code"] == 0
        (task, statuses), = answer["data"].items()
        assert task.startswith("RASS_")
        assert statuses == {cid: "successed_online" if cid == CID_ON else "successed_offline"}

    on = [o for o in observations(srv, "getui-on") if o.get("callback", "").startswith("GeTuiSdkDidReceiveSlience")]
    assert on and on[0]["sdk"]["fromGetui"] is True and on[0]["sdk"]["offLine"] is False
    away = observations(srv, "getui-away")
    banner = next(o for o in away if o["kind"] == "banner")
    assert banner["title"] == "Order"
    request = urllib.request.Request(f"{srv.control_url}/v1/devices/getui-away/interactions",
                                     data=json.dumps({"type": "tapNotification", "bundleId": "com.pushlab.demo"}).encode(), method="POST")
    urllib.request.urlopen(request).read()
    seen = callbacks(srv, "getui-away")
    assert "GeTuiSdkDidReceiveNotification:notificationCenter:response:fetchCompletionHandler:" in seen
    silence = [o for o in observations(srv, "getui-away") if o.get("callback", "").startswith("GeTuiSdkDidReceiveSlience")]
    assert len(silence) == 1 and silence[0]["sdk"]["offLine"] is True and silence[0]["userInfo"] == {"payload": '{"orderId":42}'}

    status, users = getui_call(port, "GET", f"/user/status/{CID_ON},{CID_AWAY}", token=token)
    assert status == 200 and {cid: v["status"] for cid, v in users["data"].items()} == {CID_ON: "online", CID_AWAY: "online"}
    status, body = getui_call(port, "DELETE", f"/auth/{token}")
    assert status == 200
    status, body = getui_call(port, "GET", f"/user/status/{CID_ON}", token=token)
    assert status == 401 and body["code"] == 10001


def test_the_control_api_lists_registrations_and_messages(services):
    srv, _ = services
    with urllib.request.urlopen(f"{srv.control_url}/v1/services") as answer:
        listing = json.load(answer)
    ids = {r["registrationId"]: r for r in listing["jpush"]["registrations"]}
    assert set(ids) == {ON_SCREEN, AWAY} and ids[ON_SCREEN]["connected"] is True
    with urllib.request.urlopen(f"{srv.control_url}/v1/services/messages?service=jpush") as answer:
        messages = json.load(answer)["messages"]
    assert messages and all(m["service"] == "jpush" for m in messages)
    first = messages[0]
    assert {t["deviceId"] for t in first["targets"]} == {"on-screen", "away"}
    assert all(t["apns"]["status"] == 200 for t in first["targets"])


def test_a_restart_keeps_the_phones_registrations(tmp_path):
    """Phones the store brings back keep their SDKs' ids, and the services take them again: a
    push to a registration id works after a restart without the app launching again."""
    from conftest import PushlabServer
    path = scenario(tmp_path / "services.yaml")
    args = ("--jpush-port", "0", "--db", str(tmp_path / "pushlab.db"))
    first = PushlabServer(tmp_path / "first", args, path)
    (tmp_path / "first").mkdir()
    first.start()
    try:
        assert len(services_listing(first)["jpush"]["registrations"]) == 2
    finally:
        assert first.stop() == 0, first.describe()
    (tmp_path / "second").mkdir()
    second = PushlabServer(tmp_path / "second", args, path).start()
    try:
        assert "reloaded" in second.stdout(), second.stdout()
        registrations = {r["registrationId"]: r for r in services_listing(second)["jpush"]["registrations"]}
        assert set(registrations) == {ON_SCREEN, AWAY} and registrations[ON_SCREEN]["connected"] is True
        request = urllib.request.Request(f"{second.control_url}/v1/services/jpush/call", method="POST", data=json.dumps({
            "app": JPUSH_KEY, "path": "/v3/push",
            "body": {"platform": ["ios"], "audience": {"registration_id": [AWAY]}, "message": {"msg_content": "after restart"}}}).encode())
        with urllib.request.urlopen(request) as answer:
            called = json.load(answer)
        assert called["status"] == 200, called
    finally:
        assert second.stop() == 0, second.describe()


def services_listing(srv) -> dict:
    with urllib.request.urlopen(f"{srv.control_url}/v1/services") as answer:
        return json.load(answer)


def test_the_cli_pushes_through_a_service_and_lists_what_it_sent(services):
    """`pushlab services send`, `list` and `messages` against the running server."""
    import subprocess
    from conftest import PUSHLAB_BIN
    srv, _ = services

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(PUSHLAB_BIN), "services", *args, "--control", srv.control_url], capture_output=True, text=True, timeout=60)

    sent = cli("send", "jpush", "--app", JPUSH_KEY, "--to", AWAY, "--alert", "From the CLI", "--environment", "production")
    assert sent.returncode == 0, sent.stderr
    assert sent.stdout.startswith("JPush answered 200") and f"{AWAY}  away  APNs 200" in sent.stdout, sent.stdout
    # A banner in the background, JPush's willPresent on screen (where earlier tests left the app).
    assert any(o.get("body") == "From the CLI" or (o.get("userInfo") or {}).get("aps", {}).get("alert") == "From the CLI"
               for o in observations(srv, "away"))
    refused = cli("send", "jpush", "--app", JPUSH_KEY, "--to", "0000000000000000000", "--message", "x")
    assert refused.returncode == 1 and "JPush answered 400" in refused.stdout and "1011" in refused.stdout, refused
    unknown = cli("send", "getui", "--app", "nobody", "--all", "--transmission", "x")
    assert unknown.returncode != 0 and "GeTui has no app with appId nobody" in unknown.stderr, unknown
    listed = cli("list")
    assert f"{ON_SCREEN}  on-screen com.pushlab.demo  connected" in listed.stdout, listed.stdout
    assert "  APNs 200" in cli("messages", "--service", "jpush").stdout
