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
import subprocess
import time
import urllib.request

import h2.events
import pytest

from clusterutil import curl_push, eventually, running_cluster, token
from conftest import CERTS
from h2util import H2Client
from world import TOPIC, mint_provider_token

PHONES = 48
RATE_LIMIT = 6                     # pushes a minute to one token, counted across the nodes
GONE_TOKEN = "d0" * 32             # unregistered since 2026-01-01T00:00:00Z


SCENARIO = f"""name: cluster
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
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    # --durable: a push is acknowledged once a replica has it, so a master's death loses none.
    with running_cluster(tmp_path_factory.mktemp("cluster"), SCENARIO, "--durable") as made:
        yield made


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


def test_an_uninstall_through_one_node_is_410_with_one_time_on_every_node(cluster):
    """In real time too: every node marks the token with the time of the node that took the
    change, so every node answers 410 with the same timestamp. (phone-15: no other test of
    this file pushes to it.)"""
    request = urllib.request.Request(cluster.control(2) + f"/v1/devices/phone-15/apps/{TOPIC}", method="DELETE")
    urllib.request.urlopen(request, timeout=30).close()
    answers = [curl_push(cluster.dev(n), token(15), {"aps": {"alert": "gone"}}) for n in (1, 2, 3)]
    assert [(status, body["reason"]) for status, body in answers] == [(410, "Unregistered")] * 3, answers
    assert len({body["timestamp"] for _, body in answers}) == 1, answers
    assert abs(answers[0][1]["timestamp"] - time.time() * 1000) < 60_000


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
    """kill -9 of the node that simulates a phone, and pushes straight after: the others simulate
    its phones, and every acknowledged push reaches its phone once (how soon is measured by
    Benchmarks/cluster.sh: 3.4-3.8 s). Another of
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
    # Three more: five of the token's six a minute.
    acknowledged = []
    for i in range(3):
        status, body = curl_push(cluster.dev(survivors[i % 2]), token(index), {"aps": {"alert": f"after {i}"}})
        assert status == 200, (status, body)
        acknowledged.append(f"after {i}")
    eventually(lambda: all(t in cluster.banners(phone, survivors[0]) for t in acknowledged), 60, "the pushes after the kill")
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
