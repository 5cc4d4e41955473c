"""One world for a whole cluster (scripts/cluster.sh, three nodes on a manual clock): what any
node's control API changes (apps, phones, the clock, fault rules, a reset, a scenario) every
node applies; the lists across phones are the cluster's; a node that joins later catches up;
and the shipped scenarios run against the cluster as against one process (`pushlab run --server`).
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
import urllib.parse
import urllib.request

import pytest

from clusterutil import curl_push as curl_push_now, eventually, free_base, running_cluster
from conftest import CERTS, PUSHLAB_BIN
from world import REPO, TOPIC, mint_provider_token

PHONES = 12
START = 1767225600000                # 2026-01-01T00:00:00Z


def token(i: int) -> str:
    return "c2" + format(i, "x").rjust(62, "0")


def curl_push(port: int, device_token: str, body: dict) -> tuple[int, dict]:
    """A push whose provider token was issued at the cluster's manual time (each test starts
    from a reset, at START; none goes beyond the token's hour)."""
    return curl_push_now(port, device_token, body, auth=mint_provider_token(issued_at=START // 1000))


SCENARIO = f"""name: cluster-world
clock:
  start: 2026-01-01T00:00:00Z
keys:
  - keyId: PUSHLAB001
    teamId: TEAMPUSHLB
    privateKey: {CERTS}/AuthKey_PUSHLAB001.p8
apps:
  - bundleId: {TOPIC}
    teamId: TEAMPUSHLB
generatedDevices:
  - count: {PHONES}
    bundleId: {TOPIC}
    prefix: c2
    idPrefix: phone
    state: background
policy:
  errorBudgetPerConnection: off
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with running_cluster(tmp_path_factory.mktemp("cluster-world"), SCENARIO,
                         serve_flags=("--clock", "manual", "--clock-start", "2026-01-01T00:00:00Z")) as made:
        yield made


@pytest.fixture(autouse=True)
def fresh_world(cluster):
    status, _, _ = cluster.call("POST", "/v1/reset", node=3)
    assert status == 200


def test_a_phone_and_an_app_added_through_one_node_are_every_nodes(cluster):
    status, headers, device = cluster.call("POST", "/v1/devices", {"id": "added", "apps": [{"bundleId": TOPIC, "state": "background"}]}, node=1)
    assert status == 201, device
    # Made by its own node alone, which answers once every node knows its token.
    assert headers.get("pushlab-node") == f"node-{cluster.owner('added')}", headers
    added_token = device["apps"][0]["deviceToken"]
    status, _, app = cluster.call("POST", "/v1/apps", {"bundleId": "com.example.other", "teamId": "TEAMPUSHLB"}, node=2)
    assert status == 201, app
    for n in (1, 2, 3):
        listed = cluster.get("/v1/devices?limit=100", n)
        assert listed["total"] == PHONES + 1 and "added" in [d["id"] for d in listed["devices"]], n
        assert "com.example.other" in [a["bundleId"] for a in cluster.get("/v1/apps", n)["apps"]], n
        # The same token on every node: any of them takes a push to it.
        status, body = curl_push(cluster.dev(n), added_token, {"aps": {"alert": f"to the new phone via {n}"}})
        assert status == 200, (n, body)
    assert cluster.banners("added", 2) == [f"to the new phone via {n}" for n in (1, 2, 3)]
    assert cluster.call("DELETE", "/v1/devices/added", node=3)[:3:2] == (200, {"id": "added", "removed": True})
    for n in (1, 2, 3):
        assert cluster.get("/v1/devices?limit=100", n)["total"] == PHONES, n


def test_each_node_makes_only_its_share_of_the_phones(cluster):
    health = cluster.get("/v1/health", 1)
    shares = [member["simulatedDevices"] for member in health["cluster"]["members"]]
    assert sum(shares) == PHONES == health["devices"] and max(shares) < PHONES, shares
    # A phone added without an id gets the cluster's next device-N, and one token no other has.
    made = [cluster.call("POST", "/v1/devices", {"apps": [{"bundleId": TOPIC, "state": "background"}]}, node=n) for n in (2, 3, 2)]
    assert [status for status, _, _ in made] == [201] * 3, made
    ids = [device["id"] for _, _, device in made]
    assert ids == ["device-1", "device-2", "device-3"], ids
    assert len({device["apps"][0]["deviceToken"] for _, _, device in made}) == 3
    for (_, headers, device) in made:
        assert headers.get("pushlab-node") == f"node-{cluster.owner(device['id'])}", headers
    health = cluster.get("/v1/health", 3)
    assert health["devices"] == PHONES + 3 == sum(m["simulatedDevices"] for m in health["cluster"]["members"])
    # A taken id is passed over: a phone named device-4 first makes the next one device-5.
    assert cluster.call("POST", "/v1/devices", {"id": "device-4"}, node=1)[0] == 201
    assert cluster.call("POST", "/v1/devices", {}, node=1)[2]["id"] == "device-5"
    assert cluster.call("POST", "/v1/devices", {"id": "device-4"}, node=2)[0] == 409
    # A reset starts the numbering again, and makes each node's share of the scenario again.
    assert cluster.call("POST", "/v1/reset", node=1)[2]["devices"] == PHONES
    assert cluster.call("POST", "/v1/devices", {}, node=3)[2]["id"] == "device-1"


def test_the_manual_clock_is_one_for_the_cluster(cluster):
    status, _, clock = cluster.call("POST", "/v1/clock", {"advance": 90}, node=2)
    assert status == 200 and clock["timeMs"] == START + 90_000
    for n in (1, 2, 3):
        assert cluster.get("/v1/clock", n)["timeMs"] == START + 90_000, n
    # Each phone's node stamps what it observes with that time.
    for i in range(3):
        assert curl_push(cluster.dev(1 + i), token(i), {"aps": {"alert": "timed"}})[0] == 200
        banner = cluster.get(f"/v1/devices/phone-{i}/observations?kind=banner", 1 + (i + 1) % 3)["observations"]
        assert [b["timeMs"] for b in banner] == [START + 90_000]


def test_fault_rules_are_every_nodes(cluster):
    status, _, rule = cluster.call("POST", "/v1/faults", {"deviceToken": token(5), "respond": {"status": 500, "reason": "InternalServerError"}}, node=1)
    assert status == 201, rule
    for n in (1, 2, 3):
        assert [r["id"] for r in cluster.get("/v1/faults", n)["faults"]] == [rule["id"]], n
        assert curl_push(cluster.dev(n), token(5), {"aps": {"alert": "faulted"}}) == (500, {"reason": "InternalServerError"}), n
    assert cluster.call("DELETE", f"/v1/faults/{rule['id']}", node=3)[0] == 200
    for n in (1, 2, 3):
        assert curl_push(cluster.dev(n), token(5), {"aps": {"alert": "fine"}})[0] == 200, n


def test_a_fault_rules_count_and_every_nth_count_every_nodes_requests(cluster):
    status, _, once = cluster.call("POST", "/v1/faults", {"deviceToken": token(6), "count": 1, "respond": {"status": 500, "reason": "InternalServerError"}}, node=2)
    assert status == 201, once
    # The first push to the token through any node gets the fault; the rule is then spent everywhere.
    answers = [curl_push(cluster.dev(n), token(6), {"aps": {"alert": f"once {n}"}}) for n in (3, 1, 2)]
    assert answers[0] == (500, {"reason": "InternalServerError"}) and [a[0] for a in answers[1:]] == [200, 200], answers
    for n in (1, 2, 3):
        assert cluster.get("/v1/faults", n)["faults"] == [], n
    status, _, third = cluster.call("POST", "/v1/faults", {"deviceToken": token(7), "everyNth": 3, "respond": {"status": 503, "reason": "ServiceUnavailable"}}, node=1)
    assert status == 201, third
    statuses = [curl_push(cluster.dev(1 + i % 3), token(7), {"aps": {"alert": f"nth {i}"}})[0] for i in range(6)]
    assert statuses == [200, 200, 503, 200, 200, 503], statuses
    for n in (1, 2, 3):
        listed = cluster.get("/v1/faults", n)["faults"]
        assert [(r["id"], r["matched"], r["fired"]) for r in listed] == [(third["id"], 6, 2)], (n, listed)
    assert cluster.banners("phone-7", 1) == [f"nth {i}" for i in (0, 1, 3, 4)]


def test_the_lists_across_phones_are_the_clusters(cluster):
    for i in range(PHONES):
        assert curl_push(cluster.front_dev, token(i), {"aps": {"alert": f"list {i}"}})[0] == 200
    owners = {cluster.owner(f"phone-{i}") for i in range(PHONES)}
    assert owners == {1, 2, 3}, f"the phones are spread over the nodes: {owners}"
    for n in (1, 2, 3):
        banners = cluster.get("/v1/observations?kind=banner&limit=1000", n)["observations"]
        assert sorted(b["body"] for b in banners) == sorted(f"list {i}" for i in range(PHONES)), n
        assert [b["sequence"] for b in banners] == sorted(b["sequence"] for b in banners), "in order of their numbers"
        pushes = cluster.get("/v1/pushes?limit=1000", n)["pushes"]
        assert {p["deviceToken"] for p in pushes} == {token(i) for i in range(PHONES)}, n
        assert [p["time"] for p in pushes] == sorted((p["time"] for p in pushes), reverse=True), "newest first"
        devices = cluster.get("/v1/devices?limit=5&offset=5", n)
        assert devices["total"] == PHONES and [d["id"] for d in devices["devices"]] == sorted(f"phone-{i}" for i in range(PHONES))[5:10]
        # A search goes to every node as it was typed (here with a space and a plus to escape).
        found = cluster.get("/v1/devices?search=" + urllib.parse.quote("PHONE-1"), n)
        assert [d["id"] for d in found["devices"]] == ["phone-1", "phone-10", "phone-11"] and found["total"] == 3
        assert cluster.get("/v1/devices?search=" + urllib.parse.quote("phone 1+"), n)["total"] == 0


def test_after_n_means_the_same_on_every_node(cluster):
    """The next observation anywhere is numbered after the newest any node had, so a client
    that reads "what happened since" through any node misses nothing."""
    last = cluster.get("/v1/health", 1)["lastObservation"]
    for i in range(PHONES):
        assert curl_push(cluster.dev(1 + i % 3), token(i), {"aps": {"alert": f"after {i}"}})[0] == 200
    for n in (1, 2, 3):
        seen = cluster.get(f"/v1/observations?since={last}&kind=banner&limit=1000", n)["observations"]
        assert sorted(o["body"] for o in seen) == sorted(f"after {i}" for i in range(PHONES)), n
        assert all(o["sequence"] > last for o in seen)


def test_a_reset_through_one_node_resets_every_node(cluster):
    assert cluster.call("DELETE", f"/v1/devices/phone-3/apps/{TOPIC}", node=1)[0] == 200
    for n in (1, 2, 3):
        status, body = curl_push(cluster.dev(n), token(3), {"aps": {"alert": "gone"}})
        assert status == 410 and body["reason"] == "Unregistered", (n, body)
    assert cluster.call("POST", "/v1/clock", {"advance": 3600}, node=2)[0] == 200
    status, _, reset = cluster.call("POST", "/v1/reset", node=3)
    assert status == 200 and reset["clock"]["timeMs"] == START
    for n in (1, 2, 3):
        assert cluster.get("/v1/clock", n)["timeMs"] == START, n
        assert cluster.get("/v1/observations?kind=banner", n)["observations"] == [], n
    for n in (1, 2, 3):
        status, _ = curl_push(cluster.dev(n), token(3), {"aps": {"alert": f"back {n}"}})
        assert status == 200, n
    assert cluster.banners("phone-3") == [f"back {n}" for n in (1, 2, 3)]


def test_the_event_stream_of_any_node_has_every_nodes_events(cluster):
    """/v1/events on node 1: the banners of phones that nodes 2 and 3 simulate arrive too, each
    once (a node's copies of other nodes' phones publish nothing)."""
    phones = [f"phone-{i}" for i in range(PHONES)]
    owners = {phone: cluster.owner(phone) for phone in phones}
    assert set(owners.values()) == {1, 2, 3}
    stream = urllib.request.urlopen(cluster.control(1) + "/v1/events", timeout=30)
    try:
        time.sleep(2.5)   # node 1 follows the others' streams within a recheck
        for i, phone in enumerate(phones):
            assert curl_push(cluster.dev(1 + i % 3), token(i), {"aps": {"alert": f"event {i}"}})[0] == 200
        banners: list[dict] = []
        deadline = time.monotonic() + 20
        event = None
        while len(banners) < PHONES and time.monotonic() < deadline:
            line = stream.readline().decode().rstrip("\n")
            if line.startswith("event: "):
                event = line.removeprefix("event: ")
            elif line.startswith("data: ") and event == "observation":
                data = json.loads(line.removeprefix("data: "))
                if data["kind"] == "banner":
                    banners.append(data)
        assert sorted(b["body"] for b in banners) == sorted(f"event {i}" for i in range(PHONES)), banners
    finally:
        stream.close()
    # The streams node 1 followed end with its client: within two keep-alives (15 s each) of
    # the client going, no node still streams to it.
    def no_event_clients() -> bool:
        return all(member["eventClients"] == 0 for member in cluster.get("/v1/health", 1)["cluster"]["members"])

    eventually(no_event_clients, 60, "every node's event stream to node 1 closed")


def test_the_stand_in_lists_what_every_nodes_apps_sent(cluster):
    """Each node's stand-in backend hears the apps of its own phones; any node lists them all,
    oldest first, and a rule set through one node answers on every node."""
    rules = [{"method": "POST", "path": "/register", "status": 201, "body": {"ok": True}}]
    assert cluster.call("PUT", "/v1/stand-in/rules", {"rules": rules}, node=1)[0] == 200
    for n in (2, 3):
        status, _, body = cluster.call("POST", "/stand-in/register", {"from": n}, node=n)
        assert (status, body) == (201, {"ok": True}), n
    for n in (1, 2, 3):
        heard = cluster.get("/v1/stand-in", n)["requests"]
        # Both at the manual clock's one time: which came first is no node's to say.
        assert sorted(r["body"]["from"] for r in heard) == [2, 3], n
        assert [r["time"] for r in heard] == sorted(r["time"] for r in heard)
    assert cluster.call("DELETE", "/v1/stand-in/requests", node=3)[0] == 200
    assert cluster.get("/v1/stand-in", 1)["requests"] == []


def curl_channel_api(port: int, *args: str) -> tuple[int, dict, bytes]:
    """The channel API (`/1/apps/…`) with curl, HTTP/2 over TLS, a token of the manual time."""
    p = subprocess.run(["curl", "-sS", "--max-time", "20", "--http2", "--cacert", str(CERTS / "ca.pem"), "-D", "-",
                        "-H", f"authorization: bearer {mint_provider_token(issued_at=START // 1000)}", *args],
                       capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr.decode()
    head, _, body = p.stdout.partition(b"\r\n\r\n")
    lines = head.decode().splitlines()
    headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:] if ":" in line)}
    return int(lines[0].split()[1]), headers, body


def test_a_channel_made_on_one_node_is_every_nodes_before_its_answer(cluster):
    """Created through node 1's channel API, it is read, listed and broadcast to through the
    others at once; deleted through node 2, it is gone from node 1 at once."""
    base = lambda n: f"https://127.0.0.1:{cluster.dev(n)}/1/apps/{TOPIC}"
    status, headers, _ = curl_channel_api(cluster.dev(1), "-X", "POST", "--data-binary",
                                          '{"message-storage-policy": 1, "push-type": "LiveActivity"}', f"{base(1)}/channels")
    assert status == 201, headers
    channel = headers["apns-channel-id"]
    for n in (2, 3):
        status, _, body = curl_channel_api(cluster.dev(n), "-H", f"apns-channel-id: {channel}", f"{base(n)}/channels")
        assert status == 200 and json.loads(body) == {"message-storage-policy": 1, "push-type": "LiveActivity"}, n
        status, _, body = curl_channel_api(cluster.dev(n), f"{base(n)}/all-channels")
        assert status == 200 and channel in json.loads(body)["channels"], n
    update = '{"aps": {"timestamp": 1767225600, "event": "update", "content-state": {"home": 1}}}'
    status, headers, _ = curl_channel_api(cluster.dev(3), "-X", "POST", "-H", f"apns-channel-id: {channel}", "-H", "apns-push-type: LiveActivity",
                                          "--data-binary", update, f"https://127.0.0.1:{cluster.dev(3)}/4/broadcasts/apps/{TOPIC}")
    assert status == 200, headers
    status, _, _ = curl_channel_api(cluster.dev(2), "-X", "DELETE", "-H", f"apns-channel-id: {channel}", f"{base(2)}/channels")
    assert status == 204
    status, _, body = curl_channel_api(cluster.dev(1), "-H", f"apns-channel-id: {channel}", f"{base(1)}/channels")
    assert status == 400 and json.loads(body)["reason"] == "ChannelNotRegistered"


def test_a_node_that_joins_later_catches_up(cluster, tmp_path):
    assert cluster.call("POST", "/v1/apps", {"bundleId": "com.example.late", "teamId": "TEAMPUSHLB"}, node=1)[0] == 201
    assert cluster.call("POST", "/v1/clock", {"advance": 600}, node=3)[0] == 200
    ports = free_base(4, 16000, 20000)   # below the ephemeral range, as the cluster's (clusterutil)
    log = open(tmp_path / "node-4.log", "w")
    node = subprocess.Popen(
        [str(PUSHLAB_BIN), "serve", "--cluster", f"redis://127.0.0.1:{cluster.redis}", "--node-id", "node-4",
         "--scenario", str(cluster.scenario), "--clock", "manual", "--clock-start", "2026-01-01T00:00:00Z",
         "--development-port", str(ports), "--production-port", str(ports + 1), "--control-port", str(ports + 2),
         "--channel-management-port", str(ports + 3)],
        cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
    control = f"http://127.0.0.1:{ports + 2}"

    def get(path: str):
        with urllib.request.urlopen(control + path, timeout=30) as answer:
            return json.load(answer)

    try:
        eventually(lambda: _answers(control), 30, "node-4's control API")
        eventually(lambda: get("/v1/health")["cluster"]["nodes"] == ["node-1", "node-2", "node-3", "node-4"], 20, "four nodes")
        assert get("/v1/clock")["timeMs"] == START + 600_000
        assert "com.example.late" in [a["bundleId"] for a in get("/v1/apps")["apps"]]
        # It takes pushes and simulates its share of the phones like the others.
        for i in range(PHONES):
            assert curl_push(ports, token(i), {"aps": {"alert": f"via node-4 {i}"}})[0] == 200
        banners = get("/v1/observations?kind=banner&limit=1000")["observations"]
        assert sorted(b["body"] for b in banners) == sorted(f"via node-4 {i}" for i in range(PHONES))
    finally:
        node.send_signal(signal.SIGTERM)
        node.wait(timeout=30)
        log.close()
    eventually(lambda: cluster.get("/v1/health", 1)["cluster"]["nodes"] == ["node-1", "node-2", "node-3"], 20, "node-4 gone")


def _answers(control: str) -> bool:
    try:
        urllib.request.urlopen(control + "/v1/health", timeout=2).close()
        return True
    except OSError:
        return False


def test_the_dashboard_shows_the_clusters_phones_and_each_nodes_health(cluster):
    """Headless Chromium on node 2's dashboard: every phone of the cluster in its list, and the
    Health tab's table of the three nodes, their shares adding up to every phone."""
    import test_dashboard as dashboard
    if not (dashboard.CHROMIUM and dashboard.CHROMEDRIVER):
        pytest.fail("the dashboard's browser test needs Debian's chromium and chromium-driver (scripts/install-deps.sh installs them)")
    browser = dashboard.headless_chromium()
    driver = next(browser)
    try:
        node = type("Node", (), {"control_url": cluster.control(2)})()
        dashboard.open_dashboard(driver, node)
        dashboard.wait_for(driver, lambda d: len(dashboard.css(d, "button.device-row")) == PHONES, f"{PHONES} phones in the list")
        dashboard.click(driver, "[data-tab='health']")
        # The table is drawn again as each node's health comes in: read it whole, in one script,
        # so that no row is replaced between finding it and reading it.
        read_rows = ("return [...document.querySelectorAll('#cluster-nodes tr[data-node]')]"
                     ".map((row) => [row.dataset.node, row.innerText, row.querySelectorAll('td')[2]?.innerText])")
        def complete(found):
            shares = [cell for _, _, cell in found]
            return found if len(found) == 3 and all((cell or "").isdigit() for cell in shares) and sum(map(int, shares)) == PHONES else None
        rows = dashboard.wait_for(driver, lambda d: complete(d.execute_script(read_rows)), f"three nodes whose shares add up to {PHONES} phones")
        assert "node-2 (this one)" in dict((node, text) for node, text, _ in rows)["node-2"], rows
        dashboard.shoot(driver, "cluster-health")
    finally:
        next(browser, None)


def test_the_shipped_scenarios_run_against_the_cluster(cluster):
    """As `pushlab run --server` against one `pushlab serve`: every scenario of this server's
    simulator settings passes; the others are refused for their settings, as one process
    refuses them, and those that push through JPush or GeTui are refused because a cluster runs
    without them (docs/SERVICES.md)."""
    scenarios = sorted(str(path) for path in (REPO / "scenarios" / "problems").glob("*.yaml"))
    out = subprocess.run([str(PUSHLAB_BIN), "run", "--server", cluster.control(), "--json", *scenarios],
                         cwd=REPO, capture_output=True, text=True, timeout=600)
    report = json.loads(out.stdout)
    passed = [s["scenario"] for s in report["scenarios"] if s["passed"]]
    refused = {s["scenario"]: s for s in report["scenarios"] if not s["passed"]}
    for name, failed in refused.items():
        messages = json.dumps(failed)
        if name.startswith(("jpush-", "getui-")):
            assert "JPush and GeTui run in a single pushlab serve" in messages, f"{name}:\n{messages[:3000]}"
            continue
        assert "other simulator settings" in messages, f"{name} failed against the cluster:\n{messages[:3000]}"
    assert len(passed) >= 15 and len(passed) + len(refused) == len(scenarios), (passed, list(refused))
    # The cluster's world is the last scenario's now; the next test module gets its own cluster.
    assert cluster.call("POST", "/v1/scenario", {"path": str(cluster.scenario)}, node=2)[0] == 200
