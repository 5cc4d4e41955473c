"""A Pushlab cluster as `make cluster ARGS=--durable` starts it (scripts/cluster.sh): a Redis
Cluster of three masters with a replica each, three `pushlab serve --cluster --durable` nodes,
HAProxy in TCP mode in front. Real clients (curl, the h2 library) push through HAProxy or straight to a node; every
answer and every phone is read back through another node's control API.

The cluster runs on ports of its own (PUSHLAB_CLUSTER_*), beside the other tests' servers.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import h2.events
import pytest

from conftest import CERTS, PUSHLAB_BIN, wait_for_binary
from h2util import H2Client
from world import REPO, TOPIC, mint_provider_token, provider_token

PHONES = 48
RATE_LIMIT = 6                     # pushes a minute to one token, counted across the nodes
GONE_TOKEN = "d0" * 32             # unregistered since 2026-01-01T00:00:00Z


def token(i: int) -> str:
    return "c1" + format(i, "x").rjust(62, "0")


def free_base(count: int, low: int, high: int, bus: bool = False) -> int:
    """The first of `count` consecutive free ports; with `bus`, their Redis Cluster bus ports
    (+ 10000) free too."""
    for _ in range(200):
        base = low + 10 * (int.from_bytes(os.urandom(2), "big") % ((high - low) // 10))
        ports = [base + i for i in range(count)] + ([base + 10000 + i for i in range(count)] if bus else [])
        sockets = []
        try:
            for port in ports:
                s = socket.socket()
                s.bind(("127.0.0.1", port))
                sockets.append(s)
            return base
        except OSError:
            continue
        finally:
            for s in sockets:
                s.close()
    raise RuntimeError("no free ports")


class Cluster:
    def __init__(self, directory: Path):
        self.directory = directory
        scenario = directory / "cluster.yaml"
        scenario.write_text(f"""name: cluster
keys:
  - keyId: PUSHLAB001
    teamId: TEAMPUSHLB
    privateKey: {CERTS}/AuthKey_PUSHLAB001.p8
apps:
  - bundleId: {TOPIC}
    teamId: TEAMPUSHLB
deviceTokens:
  - token: {GONE_TOKEN}
    bundleId: {TOPIC}
    environment: development
    state: unregistered
    since: 2026-01-01T00:00:00Z
generatedDevices:
  - count: {PHONES}
    bundleId: {TOPIC}
    prefix: c1
    idPrefix: phone
    state: background
policy:
  deviceTokenRateLimit: {{requests: {RATE_LIMIT}, perSeconds: 60}}
  errorBudgetPerConnection: off
""")
        redis = free_base(6, 20000, 30000, bus=True)
        self.nodes_base = free_base(40, 40000, 50000)
        self.front = free_base(3, 50000, 60000)
        self.env = dict(os.environ, PUSHLAB_BIN=str(wait_for_binary(PUSHLAB_BIN)), PUSHLAB_CLUSTER_DIR=str(directory / "state"),
                        PUSHLAB_CLUSTER_REDIS=str(redis), PUSHLAB_CLUSTER_NODES=str(self.nodes_base),
                        PUSHLAB_CLUSTER_FRONT=str(self.front))
        self.scenario = scenario
        self.redis = redis

    def keep_logs(self) -> None:
        """The logs outlive the cluster, for a failure's post-mortem (pytest's tmp folder)."""
        logs = self.directory / "logs"
        logs.mkdir(exist_ok=True)
        for log in (self.directory / "state").glob("*.log"):
            log.rename(logs / log.name)

    def script(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(REPO / "scripts" / "cluster.sh"), *args], env=self.env, cwd=REPO,
                              capture_output=True, text=True, timeout=180)

    # Node n (1-3) listens on base + 10n (development), + 1 (production), + 2 (control API).
    def dev(self, n: int) -> int:
        return self.nodes_base + 10 * n

    def control(self, n: int | None = None) -> str:
        return f"http://127.0.0.1:{self.front + 2 if n is None else self.nodes_base + 10 * n + 2}"

    @property
    def front_dev(self) -> int:
        return self.front

    def pid(self, n: int) -> int:
        return int((self.directory / "state" / f"node-{n}.pid").read_text())

    def get(self, path: str, node: int | None = None, forwarded: bool = False):
        request = urllib.request.Request(self.control(node) + path, headers={"pushlab-forwarded-by": "test"} if forwarded else {})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return json.load(answer)
        except urllib.error.HTTPError as error:
            raise AssertionError(f"GET {path} on node {node}: {error.code} {error.read().decode(errors='replace')}") from None

    def banners(self, phone: str, node: int | None = None, forwarded: bool = False) -> list[str]:
        observations = self.get(f"/v1/devices/{phone}/observations?kind=banner", node, forwarded)["observations"]
        return [o["body"] for o in observations]

    def owner(self, phone: str) -> int:
        """The node that simulates `phone`: it answers for it (`pushlab-node`), wherever asked."""
        with urllib.request.urlopen(self.control() + f"/v1/devices/{phone}", timeout=30) as answer:
            return int(answer.headers["pushlab-node"].removeprefix("node-"))

    def patch_device(self, phone: str, fields: dict, node: int | None = None) -> None:
        request = urllib.request.Request(self.control(node) + f"/v1/devices/{phone}", method="PATCH",
                                         data=json.dumps(fields).encode(), headers={"content-type": "application/json"})
        urllib.request.urlopen(request, timeout=30).close()


def curl_push(port: int, device_token: str, body: dict, extra: tuple[str, ...] = ()) -> tuple[int, dict]:
    """One push with curl (Debian's, HTTP/2 over TLS, trusting certs/ca.pem)."""
    out = subprocess.run(
        ["curl", "-s", "--http2", "--cacert", str(CERTS / "ca.pem"), "-o", "-", "-w", "\n%{http_code}",
         "-H", f"authorization: bearer {provider_token()}", "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert",
         *extra, "--data", json.dumps(body), f"https://localhost:{port}/3/device/{device_token}"],
        capture_output=True, text=True, timeout=30,
    )
    text, _, status = out.stdout.rpartition("\n")
    return int(status), (json.loads(text) if text.strip() else {})


def eventually(condition, timeout: float = 15.0, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    made = Cluster(tmp_path_factory.mktemp("cluster"))
    # --durable: a push is acknowledged once a replica has it, so a master's death loses none.
    up = made.script("up", "--durable", "--", "--scenario", str(made.scenario))
    if up.returncode != 0:
        made.keep_logs()
        down = made.script("down")
        pytest.fail(f"scripts/cluster.sh up failed:\n{up.stdout}\n{up.stderr}\n{down.stdout}\n(logs in {made.directory / 'logs'})")
    try:
        # Every node has joined and taken its share.
        eventually(lambda: all(made.get("/v1/health", n)["cluster"]["nodes"] == ["node-1", "node-2", "node-3"] for n in (1, 2, 3)),
                   20, "three nodes")
        yield made
    finally:
        made.keep_logs()
        made.script("down")


def test_pushes_through_haproxy_reach_phones_on_every_node(cluster):
    sent = {}
    for i in range(12):
        status, _ = curl_push(cluster.front_dev, token(i), {"aps": {"alert": f"hello {i}"}})
        assert status == 200
        sent[f"phone-{i}"] = f"hello {i}"
    owners = set()
    for phone, text in sent.items():
        # Read through every node: each answers for every phone.
        for n in (1, 2, 3):
            assert cluster.banners(phone, n) == [text], (phone, n)
        owners.add(cluster.owner(phone))
    assert owners == {1, 2, 3}, f"the phones are spread over the nodes: {owners}"


def test_the_token_rules_hold_across_nodes(cluster):
    """One per-token window for the cluster: pushes to one token spread over the three nodes
    are counted together; the scenario's limit is six a minute."""
    target = token(20)
    statuses = [curl_push(cluster.dev(1 + i % 3), target, {"aps": {"alert": str(i)}})[0] for i in range(RATE_LIMIT)]
    assert statuses == [200] * RATE_LIMIT
    status, body = curl_push(cluster.dev(2), target, {"aps": {"alert": "one too many"}})
    assert (status, body) == (429, {"reason": "TooManyRequests"})
    assert cluster.banners("phone-20", 3) == [str(i) for i in range(RATE_LIMIT)], "each accepted push once, in order"


def test_an_unregistered_token_is_410_with_its_time_on_every_node(cluster):
    for n in (1, 2, 3):
        status, body = curl_push(cluster.dev(n), GONE_TOKEN, {"aps": {"alert": "gone"}})
        assert (status, body) == (410, {"reason": "Unregistered", "timestamp": 1767225600000}), n


def test_per_connection_rules_are_each_nodes(cluster):
    """Through HAProxy a connection lands whole on one node: one stream until the first valid
    provider token, and a token changed too soon is TooManyProviderTokenUpdates."""
    c = H2Client(cluster.front_dev)
    try:
        c.wait_settings()
        assert c.max_streams == 1
        c.authenticate(want_streams=1000, path=f"/3/device/{token(30)}")
        other = mint_provider_token(issued_at=int(time.time()) - 5)
        r = c.request(auth=False, path=f"/3/device/{token(30)}",
                      extra=[("authorization", f"bearer {other}"), ("apns-topic", TOPIC), ("apns-push-type", "alert")])
        assert r.status == 429 and json.loads(r.data) == {"reason": "TooManyProviderTokenUpdates"}
    finally:
        c.close()


def test_health_says_which_share_each_node_has(cluster):
    shares = [cluster.get("/v1/health", n)["cluster"] for n in (1, 2, 3)]
    assert [share["node"] for share in shares] == ["node-1", "node-2", "node-3"]
    owned = eventually(lambda: [cluster.get("/v1/health", n)["cluster"]["ownedPartitions"] for n in (1, 2, 3)], what="shares")
    assert sorted(p for share in owned for p in share) == list(range(shares[0]["partitions"])), "each partition on one node"


def test_a_dead_nodes_phones_and_pushes_go_to_the_others(cluster):
    """kill -9 of the node that simulates a phone, and pushes straight after: within 5 s the
    others simulate its phones, and every acknowledged push reaches its phone once. Another of
    its phones stored a push while offline; it gets it when it comes online on its next node."""
    phone, index = "phone-40", 40
    victim = cluster.owner(phone)
    offline_index = next(i for i in range(41, PHONES) if cluster.owner(f"phone-{i}") == victim)
    offline = f"phone-{offline_index}"
    for text in ("before 1", "before 2"):
        assert curl_push(cluster.front_dev, token(index), {"aps": {"alert": text}})[0] == 200
    eventually(lambda: cluster.banners(phone) == ["before 1", "before 2"], what="the first pushes")
    cluster.patch_device(offline, {"online": False})
    assert curl_push(cluster.front_dev, token(offline_index), {"aps": {"alert": "held"}})[0] == 200
    eventually(lambda: len(cluster.get(f"/v1/devices/{offline}/observations?kind=stored")["observations"]) == 1, what="stored offline")

    survivors = [n for n in (1, 2, 3) if n != victim]
    os.kill(cluster.pid(victim), signal.SIGKILL)
    killed = time.monotonic()
    # Three more: five of the token's six a minute.
    acknowledged = []
    for i in range(3):
        status, body = curl_push(cluster.dev(survivors[i % 2]), token(index), {"aps": {"alert": f"after {i}"}})
        assert status == 200, (status, body)
        acknowledged.append(f"after {i}")
    eventually(lambda: all(t in cluster.banners(phone, survivors[0]) for t in acknowledged), 10, "the pushes after the kill")
    assert time.monotonic() - killed < 5 + 2, "within 5 s (and the reads' own time)"
    assert cluster.owner(phone) in survivors
    # The new node's phone received exactly what came after the kill, each once, in order.
    banners = cluster.banners(phone, survivors[1])
    assert [b for b in banners if b.startswith("after")] == acknowledged, banners

    # The phone's state came from the engine: still offline, still holding its push.
    assert cluster.get(f"/v1/devices/{offline}")["online"] is False
    cluster.patch_device(offline, {"online": True}, survivors[0])
    try:
        eventually(lambda: cluster.banners(offline, survivors[1]) == ["held"], 10, "the held push after the phone came online")
    except AssertionError:
        seen = cluster.get(f"/v1/devices/{offline}/observations")["observations"]
        device = cluster.get(f"/v1/devices/{offline}")
        raise AssertionError(f"{offline} observed {json.dumps(seen)}\nand is {json.dumps(device)}")


def test_a_redis_masters_death_loses_no_acknowledged_push(cluster):
    """kill -9 of a Redis master while pushes go on: Redis promotes its replica, the nodes follow
    the new slot map, and with --durable every push answered 200 reaches its phone, once. Pushes
    meanwhile may be refused (500, which providers retry), never acknowledged and lost."""
    phones = [i for i in range(21, 40) if i != 30]
    masters = [port for port in range(cluster.redis, cluster.redis + 6)
               if subprocess.run(["redis-cli", "-p", str(port), "role"], capture_output=True, text=True).stdout.startswith("master")]
    victim = masters[0]
    pid = int((cluster.directory / "state" / f"redis-{victim}.pid").read_text())
    acknowledged: dict[int, list[str]] = {i: [] for i in phones}
    refused = 0
    sent = 0
    killed_at = None
    deadline = time.monotonic() + 30
    # Five pushes a phone at most: the scenario allows six a minute to one token.
    while time.monotonic() < deadline and sent < 5 * len(phones):
        i = phones[sent % len(phones)]
        text = f"push {sent}"
        status, _ = curl_push(cluster.front_dev, token(i), {"aps": {"alert": text}})
        sent += 1
        if status == 200:
            acknowledged[i].append(text)
        else:
            assert status == 500, status
            refused += 1
        if sent == len(phones):
            os.kill(pid, signal.SIGKILL)
            killed_at = time.monotonic()
        if killed_at is not None and sent > len(phones):
            time.sleep(0.05)
    assert killed_at is not None
    promoted = subprocess.run(["redis-cli", "-p", str(victim + 3), "role"], capture_output=True, text=True).stdout
    total = sum(len(texts) for texts in acknowledged.values())
    assert total > len(phones), f"pushes acknowledged after the failover too ({refused} refused meanwhile; replica: {promoted!r})"

    def every_push_once() -> bool:
        for i, texts in acknowledged.items():
            seen = cluster.banners(f"phone-{i}")
            if any(seen.count(text) != 1 for text in texts):
                return False
        return True
    try:
        eventually(every_push_once, 20, "every acknowledged push on its phone")
    except AssertionError:
        wrong = {i: {t: cluster.banners(f"phone-{i}").count(t) for t in texts if cluster.banners(f"phone-{i}").count(t) != 1}
                 for i, texts in acknowledged.items()}
        wrong = {f"phone-{i} (node {cluster.owner(f'phone-{i}')})": counts for i, counts in wrong.items() if counts}
        raise AssertionError(f"not exactly once (text: times seen): {wrong}; {refused} refused")
    for i, texts in acknowledged.items():
        seen = cluster.banners(f"phone-{i}")
        assert [text for text in seen if text in texts] == texts, f"phone-{i} in the order acknowledged: {seen}"
