"""kill -9 at random moments under a steady load of pushes to simulated phones, four times on
one store: every acknowledged push is in the request log and reaches its phone exactly once.

h2load keeps the server busy (faster than the 10,000 pushes a second at which the delivery worker
and the store hold off), so pushes wait for their phones and records for the disk when the kill
comes. An h2 client sends the tracked pushes, to phones of their own, and notes the time each 200
arrived. After each kill -9 the server restarts on the same file and resumes what its log of
accepted pushes kept. At the end every tracked push is looked up in the request log, and its
`delivered` observations are counted on its phone:

* never delivered twice, in either mode;
* default: every push acknowledged more than the crash window (250 ms) plus SLACK before the kill
  is in the request log and was delivered once;
* --durable: every acknowledged push is, whenever it was acknowledged.

The client's time of an answer is later than the server's, and the kill's time is taken before
the signal: both make the check stricter, never looser. PUSHLAB_SOAK_SEED repeats a run's kill
times.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import h2.events
import pytest

from conftest import background_phones_scenario, tool, wait_for_binary
from h2util import H2Client
from world import REPO, TOPIC, provider_token

WINDOW = 0.250        # pushlab serve's default --crash-window-ms
SLACK = 0.250         # the writer thread's turn: a debug build beside h2load and the client on 2 cores
CYCLES = 4
PHONES_PER_CYCLE = 10  # each phone's pushes of a cycle fit one query of /v1/pushes (10,000)
PHONES = 1 + CYCLES * PHONES_PER_CYCLE  # phone 0 takes h2load's load
IN_FLIGHT = 100
# h2load's pushes a second: above the 10,000 a second at which the worker and the store hold off,
# and short of what takes the whole CPU of a 2-core machine running a debug build (the window is
# for a writer that gets its turn).
BACKGROUND_RATE = 12_000
BODY = b'{"aps":{"alert":"soak","badge":1}}'


def token(phone: int) -> str:
    return "de" + format(phone, "x").rjust(62, "0")


def control(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=60) as answer:
        return json.loads(answer.read())


def background_load(port: int, seconds: float, body: Path, rate: int = BACKGROUND_RATE) -> subprocess.Popen:
    """h2load on phone 0 at `rate`, for longer than the cycle: the kill stops it."""
    return subprocess.Popen(
        [tool("h2load"), "-t1", "-c2", "-m100", f"--rps={rate // 2}", "-D", str(int(seconds) + 5),
         "-H", f"authorization: bearer {provider_token()}", "-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert",
         "-d", str(body), f"https://127.0.0.1:{port}/3/device/{token(0)}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )


def collect(client: H2Client, in_flight: set[int], acknowledged: dict[str, float], timeout: float) -> None:
    """Reads once; every answered stream leaves `in_flight`, a 200 goes into `acknowledged`."""
    for event in client.read_once(timeout):
        if isinstance(event, (h2.events.StreamEnded, h2.events.StreamReset)) and event.stream_id in in_flight:
            in_flight.discard(event.stream_id)
            response = client.responses.pop(event.stream_id)
            if response.status == 200:
                acknowledged[response.headers["apns-id"]] = time.monotonic()


def one_cycle(srv, phones: list[int], body: Path, seconds: float) -> tuple[dict[str, float], float]:
    """Load, tracked pushes to `phones` and kill -9 after `seconds`: the tracked apns-ids
    acknowledged, with the time of their answer, and the time of the kill."""
    load = background_load(srv.dev_port, seconds, body)
    acknowledged: dict[str, float] = {}
    try:
        client = H2Client(srv.dev_port)
        client.authenticate(want_streams=1000, path=f"/3/device/{token(0)}")
        in_flight: set[int] = set()
        sent = 0
        until = time.monotonic() + seconds
        while time.monotonic() < until and not client.closed:
            while len(in_flight) < IN_FLIGHT:
                in_flight.add(client.start_request(body=BODY, path=f"/3/device/{token(phones[sent % len(phones)])}", flush=False))
                sent += 1
            client.flush()
            collect(client, in_flight, acknowledged, timeout=0.5)
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
    return acknowledged, killed_at


def logged_ids(control_url: str, phone: int) -> set[str]:
    pushes = control(f"{control_url}/v1/pushes?deviceToken={token(phone)}&status=200&limit=10000")["pushes"]
    assert len(pushes) < 10000, f"phone {phone} has more pushes than one query returns"
    return {p["apnsId"] for p in pushes}


def delivered_counts(control_url: str) -> tuple[dict[str, int], set[str]]:
    """Every phone's `delivered` observations by apns-id, a page at a time (one scan reads each
    stored chunk once, where a query per phone would read every chunk holding one of its pushes),
    and the apns-ids whose delivery says it came after a restart."""
    counts: dict[str, int] = {}
    after_restart: set[str] = set()
    since = 0
    while True:
        page = control(f"{control_url}/v1/observations?kind=delivered&since={since}&limit=10000")["observations"]
        for observation in page:
            counts[observation["notificationId"]] = counts.get(observation["notificationId"], 0) + 1
            if observation.get("afterRestart"):
                after_restart.add(observation["notificationId"])
        if len(page) < 10_000:
            return counts, after_restart
        since = page[-1]["sequence"]


def resumed_count(line: str) -> int:
    """N of the banner's "resumed N push(es) …" line (0 for "resumed nothing")."""
    words = line.split()
    return int(words[1]) if len(words) > 1 and words[0] == "resumed" and words[1].isdigit() else 0


def soak(fresh_server, tmp_path, *extra: str) -> list[dict]:
    """CYCLES rounds of load and kill -9 on one store; then one more start, and each round's
    acknowledged pushes next to what the request log kept and what the phones observed."""
    scenario = background_phones_scenario(tmp_path / "soak.yaml", "crash-soak", PHONES, prefix="de", id_prefix="soak")
    db = tmp_path / "soak.db"
    body = tmp_path / "body.json"
    body.write_bytes(BODY)
    seed = os.environ.get("PUSHLAB_SOAK_SEED", str(time.time_ns()))
    chance = random.Random(seed)
    rounds = []
    for cycle in range(CYCLES):
        srv = fresh_server("--db", str(db), *extra, scenario=scenario)
        health = control(f"{srv.control_url}/v1/health")
        assert (health["durable"], health["crashWindowMs"]) == (("--durable" in extra), 0 if "--durable" in extra else 250)
        phones = [1 + cycle * PHONES_PER_CYCLE + k for k in range(PHONES_PER_CYCLE)]
        seconds = chance.uniform(1.0, 2.5)
        acknowledged, killed_at = one_cycle(srv, phones, body, seconds)
        assert len(acknowledged) >= 200, f"cycle {cycle}: only {len(acknowledged)} pushes acknowledged"
        rounds.append({"phones": phones, "seconds": seconds, "killed_at": killed_at, "acknowledged": acknowledged,
                       "started": srv.stdout(), "seed": seed})

    final = fresh_server("--db", str(db), *extra, scenario=scenario)
    delivered, after_restart = delivered_counts(final.control_url)
    for n, r in enumerate(rounds):
        r["resumed"] = next((line.strip() for line in (rounds[n + 1]["started"] if n + 1 < CYCLES else final.stdout()).splitlines()
                             if "resumed" in line), "resumed nothing")
        r["logged"] = set().union(*(logged_ids(final.control_url, p) for p in r["phones"]))
        r["delivered"] = {i: delivered[i] for i in r["acknowledged"] if i in delivered}
        r["unlogged"] = {i: r["killed_at"] - t for i, t in r["acknowledged"].items() if i not in r["logged"]}
        r["undelivered"] = {i: r["killed_at"] - t for i, t in r["acknowledged"].items() if i not in r["delivered"]}
        r["twice"] = {i for i, count in r["delivered"].items() if count > 1}
        r["after_restart"] = after_restart
    # Any push at all, tracked or h2load's: a phone never observes one delivery twice.
    rounds[-1]["twice"] |= {i for i, count in delivered.items() if count > 1}
    return rounds


def describe(rounds: list[dict]) -> str:
    return f"seed {rounds[0]['seed']}: " + "; ".join(
        f"cycle {n} (kill after {r['seconds']:.1f} s): {len(r['acknowledged'])} acknowledged, {len(r['unlogged'])} not in the "
        f"request log, {len(r['undelivered'])} not delivered, {len(r['twice'])} delivered twice, then {r['resumed']}"
        for n, r in enumerate(rounds))


def check(rounds: list[dict], window: float | None) -> None:
    """Nothing delivered twice; nothing acknowledged more than `window` before the kill (None:
    nothing at all) missing from the request log or from its phone."""
    for n, r in enumerate(rounds):
        assert not r["twice"], f"cycle {n}: {len(r['twice'])} pushes reached their phone twice ({describe(rounds)})"
        for what in ("unlogged", "undelivered"):
            late = {i: ago for i, ago in r[what].items() if window is None or ago > window}
            assert not late, (f"cycle {n}: {len(late)} pushes acknowledged up to {max(late.values()) * 1000:.0f} ms before "
                              f"kill -9 are {what} ({describe(rounds)})")
    # The soak is about what waits: some restart must have had pushes to hand over.
    assert any(r["resumed"] != "resumed nothing" for r in rounds), describe(rounds)
    # Each push resumed is delivered once, saying so; one resumed by two restarts (the kill came
    # before its phone took it again) is counted by both banners.
    resumed = sum(resumed_count(r["resumed"]) for r in rounds)
    marked = len(rounds[-1]["after_restart"])
    assert 0 < marked <= resumed, f"{marked} deliveries say afterRestart, {resumed} pushes resumed ({describe(rounds)})"


def test_kill_9_loses_no_push_acknowledged_before_the_crash_window(fresh_server, tmp_path):
    rounds = soak(fresh_server, tmp_path)
    check(rounds, window=WINDOW + SLACK)
    print(describe(rounds))


def test_durable_kill_9_loses_no_acknowledged_push(fresh_server, tmp_path):
    rounds = soak(fresh_server, tmp_path, "--durable")
    check(rounds, window=None)
    print(describe(rounds))


def test_a_push_stored_for_an_offline_phone_survives_kill_9(fresh_server, tmp_path):
    """A push APNs stored for an offline phone is taken (stored) at once, while the other phones'
    snapshots wait seconds: kill -9 a second after it, under a load that keeps the store busy,
    and the phone still gets it, once, when it comes online after the restart."""
    scenario = background_phones_scenario(tmp_path / "offline.yaml", "offline", 2, prefix="de", id_prefix="soak")
    db = tmp_path / "offline.db"
    body = tmp_path / "body.json"
    body.write_bytes(BODY)
    srv = fresh_server("--db", str(db), scenario=scenario)
    request = urllib.request.Request(f"{srv.control_url}/v1/devices/soak-1", data=b'{"online":false}', method="PATCH")
    with urllib.request.urlopen(request, timeout=30) as answer:
        assert json.loads(answer.read())["online"] is False
    # Well below the rate at which the store holds its writes (each push is several records), so
    # that takings commit at once; batches keep coming, none of them quiet.
    load = background_load(srv.dev_port, 5, body, rate=400)
    try:
        time.sleep(0.5)  # the load under way: from now on no batch is quiet
        client = H2Client(srv.dev_port)
        client.authenticate(path=f"/3/device/{token(0)}")
        response = client.request(body=BODY, path=f"/3/device/{token(1)}")
        assert response.status == 200, response
        stored = response.headers["apns-id"]
        time.sleep(1.0)
        os.kill(srv.proc.pid, signal.SIGKILL)
        srv.proc.wait(10)
        client.close()
    finally:
        load.kill()
        load.wait(10)

    again = fresh_server("--db", str(db), scenario=scenario)
    request = urllib.request.Request(f"{again.control_url}/v1/devices/soak-1", data=b'{"online":true}', method="PATCH")
    with urllib.request.urlopen(request, timeout=30):
        pass
    seen = control(f"{again.control_url}/v1/observations?deviceId=soak-1&limit=10000")["observations"]
    about = [o["kind"] for o in seen if o.get("notificationId") == stored]
    assert about.count("delivered") == 1, (about, again.stdout())
    assert about.count("stored") <= 1, about


@pytest.mark.parametrize("args, named", [
    (["--crash-window-ms", "5"], "--crash-window-ms"),
    (["--crash-window-ms", "soon"], "--crash-window-ms"),
    (["--durable", "--db", ":memory:"], "--durable"),
])
def test_a_crash_window_or_durable_store_that_cannot_be_kept_is_refused(args, named):
    out = subprocess.run([str(wait_for_binary()), "serve", *args], cwd=REPO, capture_output=True, text=True, timeout=30)
    assert out.returncode != 0
    assert named in out.stderr, out.stderr
