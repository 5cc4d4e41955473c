"""A Pushlab cluster for the tests, started by scripts/cluster.sh on ports of its own
(PUSHLAB_CLUSTER_*), beside the other tests' servers: a Redis Cluster of three masters with a
replica each, three `pushlab serve --cluster` nodes, HAProxy in TCP mode in front."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import CERTS, PUSHLAB_BIN, wait_for_binary
from world import REPO, TOPIC, provider_token


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
    def __init__(self, directory: Path, scenario_text: str):
        self.directory = directory
        scenario = directory / "cluster.yaml"
        scenario.write_text(scenario_text)
        # All below Linux's ephemeral range (32768-60999): a port found free there can be taken
        # by any outgoing connection of another test before the cluster binds it.
        redis = free_base(6, 10000, 16000, bus=True)          # bus ports 20000-26000
        self.nodes_base = free_base(40, 26000, 32000)
        self.front = free_base(3, 16000, 20000)
        self.env = dict(os.environ, PUSHLAB_BIN=str(wait_for_binary(PUSHLAB_BIN)), PUSHLAB_CLUSTER_DIR=str(directory / "state"),
                        PUSHLAB_CLUSTER_REDIS=str(redis), PUSHLAB_CLUSTER_NODES=str(self.nodes_base),
                        PUSHLAB_CLUSTER_FRONT=str(self.front))
        self.scenario = scenario
        self.redis = redis
        self.serve_flags: list[str] = []

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

    def settled(self) -> bool:
        """Every partition of phones on exactly one node."""
        shares = [self.get("/v1/health", n)["cluster"] for n in (1, 2, 3)]
        owned = sorted(p for share in shares for p in share["ownedPartitions"])
        return owned == list(range(shares[0]["partitions"]))

    def call(self, method: str, path: str, body: dict | None = None, node: int | None = None) -> tuple[int, dict, dict]:
        """Any control API request: its status, headers and JSON body."""
        request = urllib.request.Request(self.control(node) + path, method=method,
                                         data=None if body is None else json.dumps(body).encode(),
                                         headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                text = answer.read()
                return answer.status, dict(answer.headers), (json.loads(text) if text.strip() else {})
        except urllib.error.HTTPError as error:
            text = error.read()
            return error.code, dict(error.headers), (json.loads(text) if text.strip() else {})

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


def curl_push(port: int, device_token: str, body: dict, extra: tuple[str, ...] = (), auth: str | None = None) -> tuple[int, dict]:
    """One push with curl (Debian's, HTTP/2 over TLS, trusting certs/ca.pem)."""
    out = subprocess.run(
        ["curl", "-s", "--http2", "--cacert", str(CERTS / "ca.pem"), "-o", "-", "-w", "\n%{http_code}",
         "-H", f"authorization: bearer {auth or provider_token()}", "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert",
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


@contextlib.contextmanager
def running_cluster(directory: Path, scenario_text: str, *up_flags: str, serve_flags: tuple[str, ...] = ()):
    """A cluster up for the block (`scripts/cluster.sh up *up_flags`, each node with
    `serve_flags`), its logs kept after."""
    made = Cluster(directory, scenario_text)
    made.serve_flags = list(serve_flags)
    up = made.script("up", *up_flags, "--", "--scenario", str(made.scenario), *made.serve_flags)
    if up.returncode != 0:
        made.keep_logs()
        down = made.script("down")
        pytest.fail(f"scripts/cluster.sh up failed:\n{up.stdout}\n{up.stderr}\n{down.stdout}\n(logs in {made.directory / 'logs'})")
    try:
        # Every node has joined and taken its share.
        eventually(lambda: all(made.get("/v1/health", n)["cluster"]["nodes"] == ["node-1", "node-2", "node-3"] for n in (1, 2, 3)),
                   20, "three nodes")
        eventually(made.settled, 20, "each partition on one node")
        yield made
    finally:
        made.keep_logs()
        made.script("down")
