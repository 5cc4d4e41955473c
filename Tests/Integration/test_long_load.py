"""A load longer than a burst, through h2load: past the busy hold's 10 s, the event loops drain
the delivery queue and the store saves the phones' snapshots while observations still wait.
Whatever the schedule, every push answered 200 must end up observed by its phone and stored, and
every phone's new state saved. Correctness only, no timing."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import time
import urllib.request

from conftest import background_phones_scenario, tool
from world import REPO, TOPIC, provider_token

PHONES = 400
SECONDS = 14


def control(server, path: str) -> dict:
    with urllib.request.urlopen(server.control_url + path, timeout=30) as answer:
        return json.loads(answer.read())


def test_a_load_longer_than_a_burst_is_observed_stored_and_saved(fresh_server, tmp_path):
    scenario = background_phones_scenario(tmp_path / "long.yaml", "long-load", PHONES, prefix="cd", id_prefix="long")
    db = tmp_path / "long.db"
    # Room for every record: past the history limit the oldest batches would go.
    server = fresh_server("--db", str(db), "--history-limit", "5000000", scenario=scenario)
    uris = tmp_path / "uris.txt"
    uris.write_text("".join(f"https://127.0.0.1:{server.dev_port}/3/device/cd{format(i, 'x').rjust(62, '0')}\n"
                            for i in range(PHONES)))
    body = tmp_path / "body.json"
    body.write_text('{"aps":{"alert":{"title":"Long","body":"a load longer than a burst"},"sound":"default","badge":7}}')

    load = subprocess.run([tool("h2load"), "-t1", "-c4", "-m100", "-D", str(SECONDS), "-i", str(uris),
                           "-H", f"authorization: bearer {provider_token()}", "-H", f"apns-topic: {TOPIC}",
                           "-H", "apns-push-type: alert", "-H", "apns-priority: 10", "-d", str(body)],
                          cwd=REPO, capture_output=True, text=True, timeout=SECONDS + 120)
    out = load.stdout + load.stderr
    counts = re.search(r"requests: \d+ total, \d+ started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored", out)
    assert load.returncode == 0 and counts, out
    _, succeeded, failed, errored = map(int, counts.groups())
    # A duration run stops with requests in flight; those are neither answered nor counted.
    assert succeeded > PHONES and failed == 0 and errored == 0, out
    assert re.search(rf"status codes: {succeeded} 2xx, 0 3xx, 0 4xx, 0 5xx", out), out

    deadline = time.monotonic() + 120
    while True:
        health = control(server, "/v1/health")
        left = (health["queuedDeliveries"], health["storeBacklog"], health["unsavedDevices"])
        if left == (0, 0, 0):
            break
        assert time.monotonic() < deadline, f"not caught up 120 s after the load: {health}"
        time.sleep(0.5)

    # Every device's observations in sequence order, a page at a time: a scan reads each stored
    # chunk once, where a query per device would read every chunk holding one of its pushes.
    delivered: dict[str, int] = {}
    since = 0
    while True:
        page = control(server, f"/v1/observations?kind=delivered&since={since}&limit=10000")["observations"]
        for observation in page:
            delivered[observation["deviceId"]] = delivered.get(observation["deviceId"], 0) + 1
        if len(page) < 10_000:
            break
        since = page[-1]["sequence"]
    assert sorted(delivered) == sorted(f"long-{phone}" for phone in range(PHONES)), "every phone got pushes"
    # The server's own count: h2load stops a duration run with up to 4 x 100 requests in
    # flight, which pushlab may have accepted but h2load never counted.
    with urllib.request.urlopen(server.control_url + "/metrics", timeout=30) as answer:
        metrics = answer.read().decode()
    accepted = int(float(re.search(r"^pushlab_apns_accepted_total (\S+)$", metrics, re.M).group(1)))
    assert succeeded <= accepted <= succeeded + 4 * 100, f"{succeeded} answered 200 to h2load, {accepted} accepted"
    assert sum(delivered.values()) == accepted, f"{accepted} pushes accepted, {sum(delivered.values())} delivered"
    assert server.stop() == 0
    with sqlite3.connect(db) as store:
        badges = dict(store.execute("SELECT id, json_extract(json, '$.apps[0].badge') FROM devices").fetchall())
    assert badges == {f"long-{phone}": 7 for phone in range(PHONES)}, "every phone's snapshot, with its new badge"
