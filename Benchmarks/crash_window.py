"""kill -9 under full load, measured: part 1 of Benchmarks/crash-window.sh (which passes every
path and setting; see there).

Per kill: start `pushlab serve` on the store, run h2load at full load beside a tracked h2 client
(100 pushes in flight to tokens h2load does not use, noting the apns-id and arrival time of every
200), read the writer's own measure of the window from /metrics, kill -9, restart on the same
store, and look up every tracked push. Prints one tab-separated line per kill:

mode  acknowledged  stored  tracked  tracked_lost  oldest_lost_ms  undelivered  oldest_undelivered_ms  delivered_twice  server_window_ms  h2load_rps

acknowledged: h2load's 2xx plus the tracked 200s; stored: the requests the store holds after the
restart that were not there before (it may hold more than acknowledged: answers the kill kept
from reaching the client); oldest_lost_ms: how long before the kill the oldest lost tracked push
was acknowledged (what the window cost, seen from the client). The tracked tokens are simulated
phones': undelivered counts the tracked pushes no phone observed as delivered after the restart
(oldest_undelivered_ms as above), delivered_twice the pushes observed as delivered more than once.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests" / "Integration"))

import h2.events  # noqa: E402

from h2util import H2Client  # noqa: E402

IN_FLIGHT = 100
BODY = b'{"aps":{"alert":"crash window"}}'


def stored_requests(db: Path) -> int:
    """Requests in the store: each chunk's count is the varint after its format byte."""
    if not db.exists():
        return 0
    total = 0
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        for (blob,) in connection.execute("SELECT records FROM requestChunks"):
            count, shift, offset = 0, 0, 1
            while True:
                byte = blob[offset]
                count |= (byte & 0x7F) << shift
                offset += 1
                shift += 7
                if byte < 0x80:
                    break
            total += count
    return total


def start(command: list[str], log: Path) -> subprocess.Popen:
    process = subprocess.Popen(command, cwd=REPO, stdout=open(log, "wb"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while "Ready. Press Ctrl-C to stop." not in log.read_text(errors="replace"):
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"pushlab did not start:\n{log.read_text(errors='replace')}")
        time.sleep(0.05)
    return process


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=60) as response:
        return response.read().decode()


def server_window(control: str) -> int:
    match = re.search(r"^pushlab_store_longest_request_wait_milliseconds (\S+)", get(f"{control}/metrics"), re.M)
    return int(float(match.group(1))) if match else -1


def tracked(port: int, tokens: list[str], headers: list[tuple[str, str]], until: float, client_box: list) -> tuple[dict[int, str], dict[str, float]]:
    client = H2Client(port)
    client_box.append(client)
    client.wait_settings()
    acknowledged: dict[str, float] = {}
    in_flight: dict[int, str] = {}
    sent = 0
    while time.time() < until and not client.closed:
        while len(in_flight) < IN_FLIGHT:
            token = tokens[sent % len(tokens)]
            sid = client.conn.get_next_available_stream_id()
            client.conn.send_headers(sid, [(":method", "POST"), (":scheme", "https"), (":authority", f"localhost:{port}"),
                                           (":path", f"/3/device/{token}"), *headers])
            client.conn.send_data(sid, BODY, end_stream=True)
            in_flight[sid] = token
            sent += 1
        client.flush()
        collect(client, in_flight, acknowledged, 0.5)
    return in_flight, acknowledged


def collect(client: H2Client, in_flight: dict, acknowledged: dict, timeout: float) -> None:
    for event in client.read_once(timeout):
        if isinstance(event, (h2.events.StreamEnded, h2.events.StreamReset)) and event.stream_id in in_flight:
            del in_flight[event.stream_id]
            response = client.responses.pop(event.stream_id)
            if response.status == 200:
                acknowledged[response.headers["apns-id"]] = time.time()


def one_kill(args, mode_args: list[str], log_dir: Path, n: int) -> str:
    # Every request kept: the count after the restart is then what the kills left.
    command = [*json.loads(args.serve), "--db", str(args.db), "--history-limit", "0", *mode_args]
    before = stored_requests(args.db)
    process = start(command, log_dir / f"kill-{n}.log")
    control = f"http://127.0.0.1:{args.control_port}"
    headers = json.loads(args.headers)
    h2load_out = log_dir / f"kill-{n}-h2load.txt"
    load = subprocess.Popen(
        ["h2load", f"-t{args.h2load_threads}", "-c10", "-m100", "-D", str(int(args.seconds) + 10),
         "--tls13-ciphers=TLS_AES_128_GCM_SHA256", "-d", args.body,
         *[arg for name, value in headers for arg in ("-H", f"{name}: {value}")],
         "-i", args.uris],
        stdout=open(h2load_out, "wb"), stderr=subprocess.STDOUT)
    started = time.time()
    box: list = []
    try:
        in_flight, acknowledged = tracked(args.port, json.loads(args.tokens), headers, started + args.seconds, box)
        window = server_window(control)
        killed_at = time.time()
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)
    client = box[0]
    while in_flight and not client.closed:
        collect(client, in_flight, acknowledged, 1.0)
    client.close()
    load.wait(60)
    text = h2load_out.read_text(errors="replace")
    succeeded = re.search(r"(\d+) succeeded", text)
    h2load_ok = int(succeeded.group(1)) if succeeded else 0

    process = start(command, log_dir / f"restart-{n}.log")
    try:
        stored_ids: set[str] = set()
        for token in json.loads(args.tokens):
            pushes = json.loads(get(f"{control}/v1/pushes?deviceToken={token}&status=200&limit=10000"))["pushes"]
            stored_ids |= {p["apnsId"] for p in pushes}
        delivered = delivered_counts(control)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(60)
    stored = stored_requests(args.db) - before
    lost = [killed_at - t for i, t in acknowledged.items() if i not in stored_ids]
    oldest = f"{max(lost) * 1000:.0f}" if lost else "-"
    undelivered = [killed_at - t for i, t in acknowledged.items() if i not in delivered]
    oldest_undelivered = f"{max(undelivered) * 1000:.0f}" if undelivered else "-"
    twice = sum(1 for count in delivered.values() if count > 1)
    rps = h2load_ok / (killed_at - started)
    return "\t".join(map(str, [args.mode, h2load_ok + len(acknowledged), stored, len(acknowledged), len(lost), oldest,
                              len(undelivered), oldest_undelivered, twice, window, f"{rps:.0f}"]))


def delivered_counts(control: str) -> dict[str, int]:
    """Every phone's `delivered` observations by apns-id (only the tracked tokens have phones)."""
    counts: dict[str, int] = {}
    since = 0
    while True:
        page = json.loads(get(f"{control}/v1/observations?kind=delivered&since={since}&limit=10000"))["observations"]
        for observation in page:
            counts[observation["notificationId"]] = counts.get(observation["notificationId"], 0) + 1
        if len(page) < 10_000:
            return counts
        since = page[-1]["sequence"]


def main() -> None:
    parser = argparse.ArgumentParser()
    for name in ("serve", "db", "headers", "body", "uris", "tokens", "mode", "log_dir"):
        parser.add_argument(f"--{name.replace('_', '-')}", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--control-port", type=int, required=True)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--h2load-threads", type=int, default=2)
    args = parser.parse_args()
    args.db = Path(args.db)
    mode_args = ["--durable"] if args.mode == "durable" else []
    for n in range(args.kills):
        print(one_kill(args, mode_args, Path(args.log_dir), n), flush=True)


if __name__ == "__main__":
    main()
