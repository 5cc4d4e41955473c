#!/usr/bin/env python3
"""What the provider report costs, and whether the code that carries it costs anything when off.

Three Pushlab variants and nghttpd (the reference of Benchmarks/run.sh) are driven alternately by
h2load with APNs-shaped requests, round after round, on the same machine:

    before   a build without the report (--before BIN; default /tmp/pushlab-before-49)
    off      this build, not recording
    report   this build, recording (PUT /v1/report between runs; cleared before each)

Each cell is pushlab req/s ÷ nghttpd req/s of the same round, so the machine's drift cancels;
the table gives each variant's median ratio, and the report's cost as 1 - report/off and the
off build's change as off/before - 1. With --devices N the tokens belong to N simulated phones
in the background and each Pushlab run is followed by its catch-up (the phones and the store),
as run.sh --devices does: the sustained rate is answered requests ÷ (run time + catch-up).

    Benchmarks/report-cost.py [--before BIN] [--after BIN] [--rounds 5] [--duration 6]
                              [--points 1x100,10x100,100x10] [--devices N] [--threads 2]

The per-token rate limit is off for all three (the off and report runs share one process, so
each token would get twice run.sh's pushes a minute). Not a test: it prints a markdown table
(and writes it to Benchmarks/.work-report/table.md).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

SCRIPT_DIR = Path(__file__).resolve().parent
REPO = SCRIPT_DIR.parent
WORK = SCRIPT_DIR / ".work-report"
TOKENS = 20_000
KEY_ID, TEAM_ID, TOPIC = "PUSHLAB001", "TEAMPUSHLB", "com.pushlab.demo"
PORTS = {"nghttpd": 28543, "before": 28544, "after": 28547}
CONTROL = {"before": 28546, "after": 28549}


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default=os.environ.get("PUSHLAB_BEFORE", "/tmp/pushlab-before-49"))
    parser.add_argument("--after", default=str(REPO / ".build-release" / "release" / "pushlab"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--duration", type=int, default=6)
    parser.add_argument("--warm-up", type=int, default=1)
    parser.add_argument("--points", default="1x100,10x100,100x10")
    parser.add_argument("--devices", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    return parser.parse_args()


def log(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def prepare(options: argparse.Namespace) -> tuple[list[str], Path]:
    shutil.rmtree(WORK, ignore_errors=True)
    device_dir = WORK / "docroot" / "3" / "device"
    device_dir.mkdir(parents=True)
    tokens = [f"be{i:062x}" for i in range(options.devices or TOKENS)]
    for token in tokens:
        (device_dir / token).touch()
    (WORK / "tokens.txt").write_text("\n".join(tokens) + "\n")
    prefix = '{"aps":{"alert":{"title":"Pushlab benchmark","body":"Your order #1234 has shipped and will arrive tomorrow."},"sound":"default","badge":1},"custom":"'
    body = prefix + "x" * (250 - len(prefix) - 2) + '"}'
    assert len(body) == 250
    (WORK / "body.json").write_text(body)
    scenario = [f"name: report-cost", "keys:", f"  - keyId: {KEY_ID}", f"    teamId: {TEAM_ID}",
                f"    publicKey: {REPO / 'certs' / f'AuthKey_{KEY_ID}.pub.pem'}", "apps:", f"  - bundleId: {TOPIC}", f"    teamId: {TEAM_ID}"]
    # One process serves the off and report runs back to back, twice the pushes to each token of
    # a run.sh run: the per-token limit (300 a minute) would answer 429s and measure those.
    scenario += ["policy:", "  deviceTokenRateLimit: off"]
    if options.devices:
        scenario += ["generatedDevices:", f"  - count: {options.devices}", f"    bundleId: {TOPIC}", "    environment: development",
                     "    prefix: be", "    idPrefix: bench", "    state: background"]
    else:
        scenario += ["generatedDeviceTokens:", f"  - count: {TOKENS}", f"    bundleId: {TOPIC}", "    environment: development", "    prefix: be"]
    (WORK / "scenario.yaml").write_text("\n".join(scenario) + "\n")
    jwt = subprocess.run([str(SCRIPT_DIR / "mint-jwt.sh"), str(REPO / "certs" / f"AuthKey_{KEY_ID}.p8"), KEY_ID, TEAM_ID],
                         capture_output=True, text=True, check=True).stdout.strip()
    headers = ["-H", f"apns-topic: {TOPIC}", "-H", "apns-push-type: alert", "-H", "apns-priority: 10", "-H", f"authorization: bearer {jwt}"]
    return headers, WORK / "tokens.txt"


def start(name: str, command: list[str]) -> subprocess.Popen:
    log(f"starting {name}: {' '.join(command)}")
    return subprocess.Popen(command, cwd=REPO, stdout=open(WORK / f"{name}.log", "w"), stderr=subprocess.STDOUT)


def control(name: str, method: str, path: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(f"http://127.0.0.1:{CONTROL[name]}{path}", method=method,
                                     data=None if body is None else json.dumps(body).encode())
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def wait_ready(name: str, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"{name} exited during start-up; see {WORK / f'{name}.log'}")
        probe = subprocess.run(["curl", "--http2", "-sk", "--max-time", "2", "-o", "/dev/null", "-w", "%{http_version}",
                                f"https://127.0.0.1:{PORTS[name]}/"], capture_output=True, text=True)
        if probe.stdout == "2":
            return
        time.sleep(0.3)
    raise SystemExit(f"{name} did not start within 300 s")


def catch_up(name: str) -> float:
    """Seconds until the phones and the store have caught up (0 without phones)."""
    started = time.monotonic()
    while True:
        health = control(name, "GET", "/v1/health")
        left = sum(int(health.get(key, 0) or 0) for key in ("queuedDeliveries", "storeBacklog", "unsavedDevices"))
        if left == 0:
            return time.monotonic() - started
        if time.monotonic() - started > 600:
            raise SystemExit(f"{name} did not catch up within 600 s")
        time.sleep(0.2)


def h2load(port: int, point: str, options: argparse.Namespace, headers: list[str], tokens: Path) -> tuple[float, int, int]:
    connections, streams = (int(part) for part in point.split("x"))
    threads = min(2, connections)
    urls = WORK / f"urls-{port}.txt"
    if not urls.exists():
        urls.write_text("".join(f"https://127.0.0.1:{port}/3/device/{token}\n" for token in tokens.read_text().split()))
    out = subprocess.run(["h2load", f"-t{threads}", f"-c{connections}", f"-m{streams}", "-D", str(options.duration),
                          "--warm-up-time", str(options.warm_up), "--tls13-ciphers=TLS_AES_128_GCM_SHA256", "-d", str(WORK / "body.json"),
                          *headers, "-i", str(urls)], capture_output=True, text=True, timeout=options.duration + options.warm_up + 120).stdout
    rate = re.search(r"finished in [^,]*, ([0-9.]+) req/s", out)
    ok = re.search(r"(\d+) 2xx", out)
    done = re.search(r"(\d+) done", out)
    return (float(rate.group(1)) if rate else 0.0), int(ok.group(1)) if ok else 0, int(done.group(1)) if done else 0


def main() -> None:
    options = arguments()
    for binary in (options.before, options.after):
        if not Path(binary).is_file():
            raise SystemExit(f"no pushlab binary at {binary}")
    headers, tokens = prepare(options)
    servers = {
        "nghttpd": start("nghttpd", ["nghttpd", "-n", str(options.threads), "-a", "127.0.0.1", "-d", str(WORK / "docroot"),
                                     str(PORTS["nghttpd"]), str(REPO / "certs" / "server-key.pem"), str(REPO / "certs" / "server.pem")]),
    }
    for name, binary in (("before", options.before), ("after", options.after)):
        servers[name] = start(name, [binary, "serve", "--host", "127.0.0.1", "--development-port", str(PORTS[name]),
                                     "--production-port", str(PORTS[name] + 1), "--control-port", str(CONTROL[name]),
                                     "--channel-management-port", "off", "--threads", str(options.threads),
                                     "--scenario", str(WORK / "scenario.yaml"), "--db", str(WORK / f"{name}.db")])
    try:
        for name, server in servers.items():
            wait_ready(name, server)
        points = options.points.split(",")
        variants = ["nghttpd", "before", "off", "report"]
        results: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for round_number in range(1, options.rounds + 1):
            for point in points:
                shift = (round_number - 1) % len(variants)
                for variant in variants[shift:] + variants[:shift]:
                    server = "after" if variant in ("off", "report") else variant
                    if variant in ("off", "report"):
                        control("after", "PUT", "/v1/report", {"recording": variant == "report"})
                        control("after", "DELETE", "/v1/report")
                    rate, ok, done = h2load(PORTS[server], point, options, headers, tokens)
                    took = catch_up(server) if options.devices and server != "nghttpd" else 0.0
                    sustained = rate * options.duration / (options.duration + took)
                    results.setdefault((point, variant), []).append((rate, sustained))
                    log(f"round {round_number} {point} {variant}: {rate:.0f} req/s ({ok} of {done} 2xx), caught up in {took:.1f} s")
                    if done and ok != done:
                        log(f"  note: {done - ok} answers were not 2xx")
        rows = ["| point | variant | req/s (median) | / nghttpd (median of rounds) | sustained / nghttpd |", "|---|---|---:|---:|---:|"]
        ratios: dict[tuple[str, str], float] = {}
        for point in points:
            reference = results[(point, "nghttpd")]
            for variant in variants:
                runs = results[(point, variant)]
                per_round = [run[0] / ref[0] for run, ref in zip(runs, reference) if ref[0] > 0]
                sustained = [run[1] / ref[0] for run, ref in zip(runs, reference) if ref[0] > 0]
                ratios[(point, variant)] = statistics.median(per_round)
                rows.append(f"| {point} | {variant} | {statistics.median(r[0] for r in runs):,.0f} | {statistics.median(per_round):.3f} "
                            f"| {statistics.median(sustained):.3f} |")
        rows += ["", "| point | off / before | report / off (the report's cost) |", "|---|---:|---:|"]
        for point in points:
            off, before, report = ratios[(point, "off")], ratios[(point, "before")], ratios[(point, "report")]
            rows.append(f"| {point} | {off / before:.3f} | {report / off:.3f} ({(1 - report / off) * 100:+.1f}% cost) |")
        table = "\n".join(rows)
        (WORK / "table.md").write_text(table + "\n")
        print(table)
    finally:
        for server in servers.values():
            server.send_signal(signal.SIGTERM)
        for server in servers.values():
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()


if __name__ == "__main__":
    main()
