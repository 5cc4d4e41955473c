"""h2load: many streams and many connections. Correctness only, no timing."""

from __future__ import annotations

import re
import subprocess

import pytest

from conftest import REPO, PushlabServer, _finish, derived_scenario, tool
from world import DEV_TOKEN, PROD_TOKEN, TOPIC, provider_token

TOKEN = DEV_TOKEN


def headers() -> list[str]:
    return ["-H", f"authorization: bearer {provider_token()}", "-H", f"apns-topic: {TOPIC}",
            "-H", "apns-push-type: alert", "-H", "apns-priority: 10"]


@pytest.fixture(scope="module")
def load_server(tmp_path_factory):
    """h2load fires a connection's first requests before it has read the
    server's SETTINGS and never retries a refused stream, while APNs (and
    Pushlab) allow a token connection one stream until its first valid token
    and refuse the rest with REFUSED_STREAM (see test_nghttp.py). For load,
    this server announces the full limit from the start."""
    d = tmp_path_factory.mktemp("pushlab-load")
    srv = PushlabServer(d, scenario=derived_scenario(d, streamsBeforeFirstValidToken=1000)).start()
    try:
        yield srv
    finally:
        _finish(srv)


@pytest.fixture
def assert_alive(load_server):
    yield load_server
    assert load_server.alive(), f"pushlab died (exit code {load_server.proc.returncode})\n{load_server.describe()}"

REQUESTS = re.compile(r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, "
                      r"(\d+) errored, (\d+) timeout")
STATUS = re.compile(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx")


def h2load(port: int, *args: str, body=None, path: str = f"/3/device/{TOKEN}") -> dict:
    cmd = [tool("h2load"), "-t1", *headers(), *args]
    if body is not None:
        cmd += ["-d", str(body)]
    cmd.append(f"https://127.0.0.1:{port}{path}")
    p = subprocess.run(cmd, cwd=REPO, capture_output=True, timeout=150)
    out = p.stdout.decode(errors="replace") + p.stderr.decode(errors="replace")
    r, s = REQUESTS.search(out), STATUS.search(out)
    assert r and s, f"cannot parse h2load output (exit {p.returncode}):\n{out}"
    keys = ["total", "started", "done", "succeeded", "failed", "errored", "timeout"]
    res = dict(zip(keys, map(int, r.groups())))
    res.update(zip(["2xx", "3xx", "4xx", "5xx"], map(int, s.groups())))
    res["returncode"] = p.returncode
    res["output"] = out
    return res


@pytest.fixture(scope="module")
def body(tmp_path_factory):
    p = tmp_path_factory.mktemp("h2load") / "body.json"
    p.write_bytes(b'{"aps":{"alert":{"title":"Load","body":"h2load says hi"},"sound":"default"}}')
    return p


def assert_all_ok(res: dict, n: int, status: str = "2xx") -> None:
    out = res["output"]
    assert res["returncode"] == 0, out
    assert "Application protocol: h2" in out, out
    assert (res["total"], res["started"], res["done"]) == (n, n, n), out
    # h2load counts a 4xx/5xx answer as "failed"; "errored" is a stream or
    # connection that got no answer at all.
    ok, failed = (n, 0) if status == "2xx" else (0, n)
    assert (res["succeeded"], res["failed"]) == (ok, failed), out
    assert (res["errored"], res["timeout"]) == (0, 0), out
    assert res[status] == n, out
    assert sum(res[k] for k in ("2xx", "3xx", "4xx", "5xx")) == n, out


def test_one_connection_1000_streams(assert_alive, body):
    res = h2load(assert_alive.dev_port, "-c1", "-m1000", "-n5000", body=body)
    assert_all_ok(res, 5000)


def test_100_connections(assert_alive, body):
    res = h2load(assert_alive.dev_port, "-c100", "-m10", "-n10000", body=body)
    assert_all_ok(res, 10000)
    assert "100 total client(s)" in res["output"], res["output"]


def test_production_port_under_load(assert_alive, body):
    res = h2load(assert_alive.prod_port, "-c10", "-m100", "-n4000", body=body, path=f"/3/device/{PROD_TOKEN}")
    assert_all_ok(res, 4000)


def test_error_responses_under_load(assert_alive):
    # No -d: h2load sends GET, every answer is 405 with a JSON body.
    res = h2load(assert_alive.dev_port, "-c4", "-m100", "-n2000")
    assert_all_ok(res, 2000, status="4xx")
    # 2,000 bodies of exactly {"reason":"MethodNotAllowed"} (29 bytes each).
    m = re.search(r"traffic: .*?\((\d+)\) total, .*?\((\d+)\) headers .*?, .*?\((\d+)\) data", res["output"])
    assert m, res["output"]
    assert int(m.group(3)) == 2000 * len(b'{"reason":"MethodNotAllowed"}'), res["output"]


def test_success_has_no_data_under_load(assert_alive, body):
    res = h2load(assert_alive.dev_port, "-c2", "-m500", "-n3000", body=body)
    assert_all_ok(res, 3000)
    m = re.search(r"traffic: .*?\((\d+)\) total, .*?\((\d+)\) headers .*?, .*?\((\d+)\) data", res["output"])
    assert m, res["output"]
    assert int(m.group(3)) == 0, "200 responses must carry no DATA\n" + res["output"]


def test_a_burst_to_simulated_phones_is_all_observed_by_the_next_read(assert_alive, body, tmp_path):
    """pushlab serve answers before the phones are simulated (the delivery queue); a read through
    the control API right after the burst still sees every push delivered."""
    import json
    import urllib.request

    def call(method: str, path: str, payload: dict | None = None) -> dict:
        data = json.dumps(payload).encode() if payload is not None else None
        request = urllib.request.Request(assert_alive.control_url + path, data=data, method=method)
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())

    devices = [call("POST", "/v1/devices", {"apps": [{"bundleId": TOPIC, "state": "background"}]}) for _ in range(10)]
    uris = tmp_path / "uris.txt"
    uris.write_text("".join(f"https://127.0.0.1:{assert_alive.dev_port}/3/device/{d['apps'][0]['deviceToken']}\n"
                            for d in devices))
    # 200 a token: under the default rate limit of 300 a minute.
    cmd = [tool("h2load"), "-t1", *headers(), "-c10", "-m100", "-n2000", "-d", str(body), "-i", str(uris)]
    p = subprocess.run(cmd, cwd=REPO, capture_output=True, timeout=150)
    out = p.stdout.decode(errors="replace")
    assert p.returncode == 0 and "2000 succeeded" in out, out

    ids = {d["id"] for d in devices}
    seen = call("GET", "/v1/observations?kind=delivered&limit=10000")["observations"]
    per_device = {i: sum(1 for o in seen if o["deviceId"] == i) for i in ids}
    assert per_device == {i: 200 for i in ids}
    assert call("GET", "/v1/health")["queuedDeliveries"] == 0
