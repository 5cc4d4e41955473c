"""kill -9 under a steady load, again and again on one store: the acknowledged pushes reconcile
with the store.

h2load keeps the server busy (faster than the 10,000 records a second at which the store holds
the simulated phones' observations back), while an h2 client sends the tracked pushes and notes
the time each 200 arrived. After each kill -9 the server restarts on the same file; at the end
every tracked push is looked up in the store:

* default: every push acknowledged more than the crash window (250 ms) plus SLACK before the
  kill is there;
* --durable: every acknowledged push is there.

The client's time of an answer is later than the server's, and the kill's time is taken before
the signal: both make the check stricter, never looser.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import h2.events
import pytest

from conftest import derived_scenario, tool, wait_for_binary
from h2util import H2Client
from world import DEV_TOKEN, REPO, auth_headers, dev_token

WINDOW = 0.250        # pushlab serve's default --crash-window-ms
SLACK = 0.250         # the writer thread's turn: a debug build beside h2load and the client on 2 cores
CYCLES = 4
LOAD_SECONDS = 2.5
TOKENS_PER_CYCLE = 4  # each under /v1/pushes' limit of 10,000 a query
IN_FLIGHT = 100
# h2load's pushes a second: above the 10,000 records a second at which the store holds the
# phones' observations back, and short of what takes the whole CPU of a 2-core machine running
# a debug build (the window is for a writer that gets its turn).
BACKGROUND_RATE = 12_000
BODY = b'{"aps":{"alert":"soak"}}'


def background_load(port: int, seconds: float, body: Path) -> subprocess.Popen:
    """h2load on DEV_TOKEN at BACKGROUND_RATE, for longer than the cycle: the kill stops it."""
    headers = [arg for name, value in auth_headers() for arg in ("-H", f"{name}: {value}")]
    return subprocess.Popen(
        [tool("h2load"), "-t1", "-c2", "-m100", f"--rps={BACKGROUND_RATE // 2}", "-D", str(int(seconds) + 5), *headers,
         "-d", str(body), f"https://127.0.0.1:{port}/3/device/{DEV_TOKEN}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )


def tracked_pushes(port: int, tokens: list[str], until: float) -> tuple[H2Client, dict[int, str], dict[str, float]]:
    """Keeps IN_FLIGHT pushes in flight until `until`; returns the client (still open), the
    streams in flight with their token, and the apns-id of every 200 with its arrival time."""
    client = H2Client(port)
    client.authenticate(want_streams=1000)
    acknowledged: dict[str, float] = {}
    in_flight: dict[int, str] = {}
    sent = 0
    while time.monotonic() < until and not client.closed:
        while len(in_flight) < IN_FLIGHT:
            token = tokens[sent % len(tokens)]
            sid = client.start_request(body=BODY, path=f"/3/device/{token}", flush=False)
            in_flight[sid] = token
            sent += 1
        client.flush()
        collect(client, in_flight, acknowledged, timeout=0.5)
    return client, in_flight, acknowledged


def collect(client: H2Client, in_flight: dict[int, str], acknowledged: dict[str, float], timeout: float) -> None:
    """Reads once; every answered stream leaves `in_flight`, a 200 goes into `acknowledged`."""
    for event in client.read_once(timeout):
        if isinstance(event, (h2.events.StreamEnded, h2.events.StreamReset)) and event.stream_id in in_flight:
            del in_flight[event.stream_id]
            response = client.responses.pop(event.stream_id)
            if response.status == 200:
                acknowledged[response.headers["apns-id"]] = time.monotonic()


def writer_window_ms(control_url: str) -> int:
    """The writer's own measure: the longest a request can have waited to be committed."""
    with urllib.request.urlopen(f"{control_url}/metrics", timeout=30) as response:
        for line in response.read().decode().splitlines():
            if line.startswith("pushlab_store_longest_request_wait_milliseconds "):
                return int(float(line.split()[1]))
    return -1


def stored_ids(control_url: str, token: str) -> set[str]:
    url = f"{control_url}/v1/pushes?deviceToken={token}&status=200&limit=10000"
    with urllib.request.urlopen(url, timeout=60) as response:
        pushes = json.loads(response.read())["pushes"]
    assert len(pushes) < 10000, f"{token} has more pushes than one query returns"
    return {p["apnsId"] for p in pushes}


def soak(fresh_server, tmp_path, *extra: str) -> list[dict]:
    """CYCLES rounds of load and kill -9 on one store; then one more start, and each round's
    acknowledged pushes next to what the store kept."""
    db = tmp_path / "soak.db"
    body = tmp_path / "body.json"
    body.write_bytes(BODY)
    # h2load sends its first requests before it reads SETTINGS, and never retries a refused stream.
    scenario = derived_scenario(tmp_path, streamsBeforeFirstValidToken=1000)
    rounds = []
    for cycle in range(CYCLES):
        srv = fresh_server("--db", str(db), *extra, scenario=scenario)
        health = json.loads(urllib.request.urlopen(f"{srv.control_url}/v1/health", timeout=30).read())
        assert (health["durable"], health["crashWindowMs"]) == (("--durable" in extra), 0 if "--durable" in extra else 250)
        tokens = [dev_token(100 + cycle * TOKENS_PER_CYCLE + k) for k in range(TOKENS_PER_CYCLE)]
        load = background_load(srv.dev_port, LOAD_SECONDS, body)
        try:
            client, in_flight, acknowledged = tracked_pushes(srv.dev_port, tokens, time.monotonic() + LOAD_SECONDS)
            window_ms = writer_window_ms(srv.control_url)
            killed_at = time.monotonic()
            os.kill(srv.proc.pid, signal.SIGKILL)
            srv.proc.wait(10)
            # Answers the server sent before it died may still be on their way.
            while in_flight and not client.closed:
                collect(client, in_flight, acknowledged, timeout=1.0)
            client.close()
        finally:
            load.kill()
            load.wait(10)
        assert len(acknowledged) >= 200, f"cycle {cycle}: only {len(acknowledged)} pushes acknowledged"
        rounds.append({"tokens": tokens, "killed_at": killed_at, "acknowledged": acknowledged, "window_ms": window_ms})

    final = fresh_server("--db", str(db), *extra, scenario=scenario)
    for r in rounds:
        r["stored"] = set().union(*(stored_ids(final.control_url, t) for t in r["tokens"]))
        r["lost"] = {i: r["killed_at"] - t for i, t in r["acknowledged"].items() if i not in r["stored"]}
    return rounds


def describe(rounds: list[dict]) -> str:
    return "; ".join(
        f"cycle {n}: {len(r['acknowledged'])} acknowledged, {len(r['lost'])} lost"
        + (f" (acknowledged {max(r['lost'].values()) * 1000:.0f} ms before the kill at most)" if r["lost"] else "")
        + f", the writer's longest wait {r['window_ms']} ms"
        for n, r in enumerate(rounds))


def test_kill_9_loses_no_push_acknowledged_before_the_crash_window(fresh_server, tmp_path):
    rounds = soak(fresh_server, tmp_path)
    for n, r in enumerate(rounds):
        late = {i: ago for i, ago in r["lost"].items() if ago > WINDOW + SLACK}
        assert not late, (f"cycle {n}: {len(late)} pushes acknowledged more than {WINDOW + SLACK:.3f} s before "
                          f"kill -9 are not in the store ({describe(rounds)})")
    print(describe(rounds))


def test_durable_kill_9_loses_no_acknowledged_push(fresh_server, tmp_path):
    rounds = soak(fresh_server, tmp_path, "--durable")
    for n, r in enumerate(rounds):
        assert not r["lost"], f"cycle {n}: acknowledged pushes missing from the store ({describe(rounds)})"
    print(describe(rounds))


@pytest.mark.parametrize("args, named", [
    (["--crash-window-ms", "5"], "--crash-window-ms"),
    (["--crash-window-ms", "soon"], "--crash-window-ms"),
    (["--durable", "--db", ":memory:"], "--durable"),
])
def test_a_crash_window_or_durable_store_that_cannot_be_kept_is_refused(args, named):
    out = subprocess.run([str(wait_for_binary()), "serve", *args], cwd=REPO, capture_output=True, text=True, timeout=30)
    assert out.returncode != 0
    assert named in out.stderr, out.stderr
