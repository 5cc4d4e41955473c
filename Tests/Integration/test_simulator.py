"""End to end: pushes from real clients reach the simulated phones of scenarios/default.yaml,
and what each phone observed is read back from the store with `pushlab observations`."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import time
import uuid

import pytest
from aioapns import NotificationRequest, PushType

from conftest import CERTS, REPO, tool, wait_for_binary
from test_aioapns import _point_at, key_client
from test_control_api import call
from world import DEV_TOKEN, PROD_TOKEN, TOPIC, provider_token

CARA_TOKEN = "5f0e0c3a5b41d1bd56a1dcd0ab2bcb3d4c8a1e7f09a2b6c4d8e0f1a3b5c7d9e1"   # app on screen
DAN_TOKEN = "d4a7c1e9b3f5a8c2e6d0b4f7a1c3e5d9b2f6a0c4e8d1b5f9a3c7e0d2b6f8a4c1"    # offline, force-quit


def started(server):
    """The server, with `launch_mark`: the last observation of its start, when the default
    scenario's running apps (ann's, cara's) launched and learned their tokens."""
    status, page = call(server, "GET", "/v1/observations?limit=1000")
    assert status == 200, page
    server.launch_mark = max((o["sequence"] for o in page["observations"]), default=0)
    return server


def observations(server, *args: str, db=None, launches: bool = False) -> list[dict]:
    """`pushlab observations --json` against the server's store, waiting for the writer's batch.
    Without `launches`, what the start observed (`started`) is left out: the tests look at what
    their pushes did."""
    db = db or server.workdir / "pushlab.db"
    since = [] if launches else ["--since", str(getattr(server, "launch_mark", 0))]
    out = subprocess.run([str(wait_for_binary()), "observations", "--db", str(db), "--json", *since, *args],
                         cwd=REPO, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines() if line]


def wait_for(server, predicate, *args: str, db=None, timeout: float = 5.0, launches: bool = False) -> list[dict]:
    deadline = time.monotonic() + timeout
    while True:
        seen = observations(server, *args, db=db, launches=launches)
        if predicate(seen) or time.monotonic() > deadline:
            return seen
        time.sleep(0.1)


def curl_push(port: int, token: str, payload: dict, push_type: str = "alert", priority: int = 10) -> tuple[int, str]:
    p = subprocess.run([tool("curl"), "-sS", "--http2", "--cacert", str(CERTS / "ca.pem"), "-D", "-", "-o", "/dev/null",
                        "-H", f"authorization: bearer {provider_token()}", "-H", f"apns-topic: {TOPIC}",
                        "-H", f"apns-push-type: {push_type}", "-H", f"apns-priority: {priority}",
                        "-d", json.dumps(payload), f"https://127.0.0.1:{port}/3/device/{token}"],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    status = int(p.stdout.split()[1])
    apns_id = next(line.split(":", 1)[1].strip() for line in p.stdout.splitlines() if line.lower().startswith("apns-id:"))
    return status, apns_id


def test_an_aioapns_push_is_a_banner_on_anns_phone(fresh_server, monkeypatch):
    srv = started(_point_at(fresh_server(scenario=None), monkeypatch))
    apns_id = str(uuid.uuid4())
    request = NotificationRequest(device_token=DEV_TOKEN, notification_id=apns_id, push_type=PushType.ALERT,
                                  message={"aps": {"alert": {"title": "Order", "body": "shipped"}, "badge": 2,
                                                   "sound": "default", "category": "MESSAGE"}, "order": 7})

    async def send():
        client = key_client(use_sandbox=True)
        try:
            return await asyncio.wait_for(client.send_notification(request), 15)
        finally:
            client.pool.close()
            await asyncio.sleep(0.05)

    result = asyncio.run(send())
    assert result.is_successful, result.description
    seen = wait_for(srv, lambda s: len(s) >= 5, "--device", "ann")
    assert [o["kind"] for o in seen] == ["delivered", "banner", "sound", "badge", "notificationCenter"]
    assert {o["notificationId"] for o in seen} == {apns_id}, "the provider's own apns-id, as sent"
    banner = seen[1]
    assert (banner["title"], banner["body"], banner["actions"]) == ("Order", "shipped", ["REPLY", "MARK_READ"])
    assert seen[3]["badge"] == 2
    assert all(o["deviceId"] == "ann" and o["bundleId"] == TOPIC for o in seen)
    assert [o["sequence"] for o in seen] == sorted(o["sequence"] for o in seen)


def test_each_phone_observes_what_its_state_allows(fresh_server):
    srv = started(fresh_server(scenario=None))
    alert = {"aps": {"alert": "Hi", "content-available": 1}, "k": "v"}
    for port, token in ((srv.dev_port, CARA_TOKEN), (srv.dev_port, DAN_TOKEN), (srv.prod_port, PROD_TOKEN)):
        assert curl_push(port, token, alert)[0] == 200

    # Cara's app runs on screen from the start: it launched, learned its token, became active.
    launched = wait_for(srv, lambda s: len(s) >= 3, "--device", "cara", "--kind", "callback", launches=True)
    assert [(o["callback"], o["appState"]) for o in launched[:3]] == [
        ("application:didFinishLaunchingWithOptions:", "foreground"),
        ("application:didRegisterForRemoteNotificationsWithDeviceToken:", "foreground"),
        ("applicationDidBecomeActive:", "foreground")]
    assert launched[1]["deviceToken"] == CARA_TOKEN
    cara = wait_for(srv, lambda s: any(o["kind"] == "callback" for o in s), "--device", "cara")
    callbacks = [o["callback"] for o in cara if o["kind"] == "callback"]
    # On screen: willPresent (its options show the banner), and the fetch callback for content-available.
    assert callbacks == ["userNotificationCenter:willPresentNotification:withCompletionHandler:",
                         "application:didReceiveRemoteNotification:fetchCompletionHandler:"]
    assert any(o["kind"] == "banner" for o in cara)

    dan = wait_for(srv, lambda s: len(s) >= 1, "--device", "dan")
    assert [o["kind"] for o in dan] == ["stored"], "an offline phone gets nothing; APNs stores it"

    ben = wait_for(srv, lambda s: any(o["kind"] == "dropped" for o in s), "--device", "ben")
    kinds = [o["kind"] for o in ben]
    assert kinds[:3] == ["delivered", "banner", "notificationCenter"], kinds
    # Not running (terminated by the system): launched into the background for content-available.
    launch = next(o for o in ben if o["kind"] == "callback")
    assert launch["callback"] == "application:didFinishLaunchingWithOptions:"
    assert "UIApplicationLaunchOptionsRemoteNotificationKey" in launch["launchOptions"]


def test_a_background_push_at_priority_10_is_accepted_and_never_delivered(fresh_server):
    srv = started(fresh_server(scenario=None))
    status, apns_id = curl_push(srv.dev_port, DEV_TOKEN, {"aps": {"content-available": 1}}, push_type="background", priority=10)
    assert status == 200
    seen = wait_for(srv, lambda s: len(s) >= 1, "--device", "ann")
    assert [(o["kind"], o.get("reason")) for o in seen] == [("dropped", "backgroundPriority10")]
    assert seen[0]["notificationId"] == apns_id


def test_observations_survive_kill_9_and_devices_reload_on_restart(fresh_server, tmp_path):
    db = tmp_path / "kept.db"
    srv = started(fresh_server("--db", str(db), scenario=None))
    status, apns_id = curl_push(srv.dev_port, DEV_TOKEN, {"aps": {"alert": "one", "badge": 5}})
    assert status == 200
    seen = wait_for(srv, lambda s: len(s) >= 4, "--device", "ann", db=db)
    assert [o["kind"] for o in seen] == ["delivered", "banner", "badge", "notificationCenter"]
    time.sleep(0.3)   # a batch commits every 100 ms (device snapshots every 5 s: the scenario's are written at start)
    srv.proc.send_signal(signal.SIGKILL)
    srv.proc.wait(10)

    again = fresh_server("--db", str(db), scenario=None)
    again.launch_mark = srv.launch_mark   # the same store: a restart launches nothing again
    assert "4 device(s) reloaded as the last run left them" in again.stdout()
    kept = observations(again, "--device", "ann", db=db)
    assert [o["notificationId"] for o in kept][:4] == [apns_id] * 4, "nothing committed before kill -9 is lost"
    # Numbering continues, and the reloaded phone still knows its token.
    status, second = curl_push(again.dev_port, DEV_TOKEN, {"aps": {"alert": "two"}})
    assert status == 200
    after = wait_for(again, lambda s: any(o["notificationId"] == second for o in s), "--device", "ann", db=db)
    new = [o for o in after if o["notificationId"] == second]
    assert new and min(o["sequence"] for o in new) > max(o["sequence"] for o in kept)


def test_notification_center_comes_back_after_kill_9_and_after_sigterm(fresh_server, tmp_path):
    """The store's Notification Center log, replayed: what was added and what the user dismissed."""
    db = tmp_path / "center.db"
    srv = started(fresh_server("--db", str(db), scenario=None))
    ids = []
    for text in ("one", "two", "three"):
        status, apns_id = curl_push(srv.dev_port, DEV_TOKEN, {"aps": {"alert": text}})
        assert status == 200
        ids.append(apns_id)
    status, _ = call(srv, "POST", "/v1/devices/ann/interactions", {"type": "dismiss", "bundleId": TOPIC, "apnsId": ids[1]})
    assert status == 200
    wait_for(srv, lambda s: any(o["kind"] == "notificationCenter" and o.get("change") == "removed" for o in s), "--device", "ann", db=db)
    time.sleep(0.3)   # a batch commits every 100 ms
    srv.proc.send_signal(signal.SIGKILL)
    srv.proc.wait(10)

    def center(server) -> list[str]:
        status, device = call(server, "GET", "/v1/devices/ann")
        assert status == 200
        return [entry["identifier"] for app in device["apps"] if app["bundleId"] == TOPIC for entry in app["notificationCenter"]]

    again = fresh_server("--db", str(db), scenario=None)
    assert center(again) == [ids[0], ids[2]], "the entries, without the dismissed one, ids as APNs answered them"
    again.proc.send_signal(signal.SIGTERM)
    again.proc.wait(10)
    third = fresh_server("--db", str(db), scenario=None)
    assert center(third) == [ids[0], ids[2]]


def test_the_store_keeps_the_newest_history_under_its_limit(fresh_server, tmp_path):
    db = tmp_path / "limited.db"
    srv = started(fresh_server("--db", str(db), "--history-limit", "6", scenario=None))
    ids = []
    for n in range(5):
        status, apns_id = curl_push(srv.dev_port, DEV_TOKEN, {"aps": {"alert": f"push {n}"}})
        assert status == 200
        ids.append(apns_id)
        # Committed before the next push: each push its own batch, so the oldest can go alone.
        wait_for(srv, lambda s, i=apns_id: any(o["notificationId"] == i for o in s), "--device", "ann", db=db)
    kept = observations(srv, db=db)
    kept_ids = {o["notificationId"] for o in kept}
    assert ids[-1] in kept_ids and ids[0] not in kept_ids, kept
    per_push = sum(1 for o in kept if o["notificationId"] == ids[-1])
    assert 6 <= len(kept) <= 6 + 6 // 10 + per_push, "the newest 6, give or take a batch"
    assert min(o["sequence"] for o in kept) > 1
    metrics = subprocess.run([tool("curl"), "-sS", f"{srv.control_url}/metrics"], capture_output=True, text=True, timeout=30).stdout
    trimmed = next(float(line.split()[1]) for line in metrics.splitlines() if line.startswith("pushlab_store_trimmed_observations "))
    assert trimmed > 0


@pytest.mark.parametrize("value", ["-1", "many"])
def test_a_history_limit_that_is_not_a_count_is_refused(value):
    out = subprocess.run([str(wait_for_binary()), "serve", "--history-limit", value, "--db", ":memory:"],
                         cwd=REPO, capture_output=True, text=True, timeout=30)
    assert out.returncode != 0
    assert "--history-limit" in out.stderr


def test_observations_command_explains_a_missing_store(tmp_path):
    out = subprocess.run([str(wait_for_binary()), "observations", "--db", str(tmp_path / "none.db")],
                         cwd=REPO, capture_output=True, text=True, timeout=30)
    assert out.returncode != 0
    assert "no such file" in out.stderr and "pushlab serve --db" in out.stderr
