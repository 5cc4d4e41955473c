"""A latency profile (`policy.latency`): answers wait and the connection goes on, thousands of
answers wait at once on one connection and on many, and a provider's rate is bounded as Little's
law says: connections × streams in flight ÷ latency. The durations are bounds that hold on any
machine: no answer can come before its latency, and answers that waited one after another
would take hundreds of seconds."""

from __future__ import annotations

import json
import re
import subprocess
import time
import urllib.request

import pytest

from conftest import REPO, PushlabServer, _finish, derived_scenario, tool
from test_load import assert_all_ok, h2load
from world import provider_token

LATENCY_MS = 200


@pytest.fixture(scope="module")
def slow_server(tmp_path_factory):
    d = tmp_path_factory.mktemp("pushlab-latency")
    scenario = derived_scenario(
        d, streamsBeforeFirstValidToken=1000, maxConcurrentStreams=1000, latency=f"{{both: {{distribution: fixed, ms: {LATENCY_MS}}}}}",
    )
    srv = PushlabServer(d, scenario=scenario).start()
    try:
        yield srv
    finally:
        _finish(srv)


@pytest.fixture(scope="module")
def body(tmp_path_factory):
    p = tmp_path_factory.mktemp("latency-body") / "body.json"
    p.write_bytes(b'{"aps":{"alert":"slow"}}')
    return p


FINISHED = re.compile(r"finished in ([\d.]+)(ms|s),")


def seconds(result: dict) -> float:
    match = FINISHED.search(result["output"])
    assert match, result["output"]
    value = float(match.group(1))
    return value / 1000 if match.group(2) == "ms" else value


@pytest.mark.parametrize("connections, streams, pushes", [(1, 1000, 3000), (4, 500, 6000)])
def test_thousands_of_answers_wait_at_once(slow_server, body, connections, streams, pushes):
    result = h2load(slow_server.port, f"-c{connections}", f"-m{streams}", f"-n{pushes}", body=body)
    assert_all_ok(result, pushes)
    in_flight = connections * streams
    waves = pushes / in_flight
    took = seconds(result)
    # Little's law: at most `in_flight` answers every 200 ms.
    assert took >= waves * LATENCY_MS / 1000 * 0.95, f"{pushes} pushes in {took:.2f} s beat the latency"
    # One after another they would take pushes × 200 ms (600 s and more).
    assert took < 60, f"{took:.1f} s: the answers did not wait together"


def test_a_provider_with_few_streams_is_bounded_by_the_latency(slow_server, body):
    """Ten streams on one connection, as a careful provider might run: 50 answers a second."""
    result = h2load(slow_server.port, "-c1", "-m10", "-n100", body=body)
    assert_all_ok(result, 100)
    assert seconds(result) >= 10 * LATENCY_MS / 1000 * 0.95


@pytest.mark.parametrize("name", ["apple-like", "bad-day"])
def test_the_shipped_load_profiles_serve(tmp_path, name):
    """Each loads, and a push to one of its phones is answered (a 500 or 503 is Apple's own
    failure at the profile's rate) after at least its connection's start and latency."""
    scenario = REPO / "scenarios" / "load" / f"{name}.yaml"
    srv = PushlabServer(tmp_path, scenario=scenario).start()
    try:
        token = "be" + "0" * 61 + "7"
        out = subprocess.run(
            [tool("curl"), "-sk", "--http2", "-o", "/dev/null", "-w", "%{http_code} %{time_total}",
             "-H", f"authorization: bearer {provider_token()}", "-H", "apns-topic: com.pushlab.demo", "-H", "apns-push-type: alert",
             "-d", '{"aps":{"alert":"hi"}}', f"https://127.0.0.1:{srv.port}/3/device/{token}"],
            capture_output=True, text=True, timeout=60,
        ).stdout.split()
        status, took = int(out[0]), float(out[1])
        assert status in (200, 500, 503), out
        assert took >= 0.06, f"answered in {took:.3f} s: before the connection's start-up cost"
    finally:
        _finish(srv)


def test_the_100k_phones_scenario_serves_and_records_the_report(tmp_path):
    """100,000 phones: the last one's token is accepted, its phone shows the banner, and the
    provider report (on from the scenario's `report: true`) counts the push."""
    scenario = REPO / "scenarios" / "load" / "100k-phones.yaml"
    srv = PushlabServer(tmp_path, scenario=scenario).start()
    try:
        token = f"be{99_999:062x}"
        out = subprocess.run(
            [tool("curl"), "-sk", "--http2", "-o", "/dev/null", "-w", "%{http_code}",
             "-H", f"authorization: bearer {provider_token()}", "-H", "apns-topic: com.pushlab.demo", "-H", "apns-push-type: alert",
             "-d", '{"aps":{"alert":"the last phone"}}', f"https://127.0.0.1:{srv.port}/3/device/{token}"],
            capture_output=True, text=True, timeout=60,
        ).stdout
        assert out == "200", out
        with urllib.request.urlopen(f"{srv.control_url}/v1/report", timeout=30) as answer:
            report = json.loads(answer.read())
        assert report["recording"] and report["providers"][0]["requests"] == 1, report
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with urllib.request.urlopen(f"{srv.control_url}/v1/devices/phone-99999/observations?kind=banner", timeout=30) as answer:
                if json.loads(answer.read())["observations"]:
                    break
            time.sleep(0.2)
        else:
            raise AssertionError("phone-99999 showed no banner")
    finally:
        _finish(srv)
