"""The provider report (GET /v1/report, `pushlab report`): one purpose-built misbehaving client
per finding, each read back through the control API and the CLI (JSON, text, and
--fail-on-findings); a well-behaved client with no finding; recording on and off; and the latency
profile (GET/PUT/DELETE /v1/latency, `pushlab latency`).

Every push here is signed with the scenario's one key, so every test is the provider
`key:PUSHLAB001`: the shared servers record from the start (--report), and each test starts from
a cleared report with no connection left open (a connection open when the report is cleared is
followed on, and would count in the next test)."""

from __future__ import annotations

import json
import re
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import h2.events
import pytest

from conftest import INTEGRATION_SCENARIO, REPO, PushlabServer, _finish, wait_for_binary
from h2util import GoAwayFrame, H2Client, PingFrame, RawH2, request_headers
from world import (CERTS, DEV_UNREGISTERED_TOKEN, KEY_ID, TEAM_ID, TOPIC, UNKNOWN_TOKEN, dev_token,
                   mint_provider_token, provider_token)

PROVIDER = f"key:{KEY_ID}"
RATE_LIMIT = 3            # requests per token per minute on the limited server
ERROR_BUDGET = 10         # BadDeviceToken weighs 5: the second one closes the connection
STREAM_LIMIT = 4


# --- servers ---------------------------------------------------------------------------------

def scenario_with(directory: Path, **replacements: str) -> Path:
    """scenarios/integration.yaml with some of its policy lines replaced (derived_scenario can only
    add keys, and the integration policy already sets these)."""
    text = INTEGRATION_SCENARIO.read_text().replace("publicKey: ../../../certs/", f"publicKey: {CERTS}/")
    for key, value in replacements.items():
        line = re.compile(rf"^  {key}: .*$", re.M)
        assert line.search(text), f"policy.{key} is not in the integration scenario"
        text = line.sub(f"  {key}: {value}", text)
    path = directory / "scenario.yaml"
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The integration scenario, recording from the start."""
    srv = PushlabServer(tmp_path_factory.mktemp("pushlab-report"), ("--report",)).start()
    try:
        yield srv
    finally:
        _finish(srv)


@pytest.fixture(scope="module")
def limited_server(tmp_path_factory):
    """A per-token rate limit, an error budget and four streams a connection, recording."""
    d = tmp_path_factory.mktemp("pushlab-report-limited")
    scenario = scenario_with(d, deviceTokenRateLimit=f"{{requests: {RATE_LIMIT}, perSeconds: 60}}",
                             errorBudgetPerConnection=str(ERROR_BUDGET))
    srv = PushlabServer(d, ("--report", "--max-concurrent-streams", str(STREAM_LIMIT)), scenario=scenario).start()
    try:
        yield srv
    finally:
        _finish(srv)


@pytest.fixture
def clean(server):
    start_clean(server)
    yield server
    assert server.alive(), server.describe()


@pytest.fixture
def clean_limited(limited_server):
    start_clean(limited_server)
    yield limited_server
    assert limited_server.alive(), limited_server.describe()


def start_clean(srv: PushlabServer) -> None:
    """Every connection of the tests before closed (as the report saw it), then the report cleared."""
    wait_report(srv, lambda r: all("closedAt" in c for c in r["connections"]), "the earlier tests' connections closed")
    status, cleared = call(srv, "DELETE", "/v1/report")
    assert status == 200 and cleared["providers"] == [] and cleared["recording"] is True, cleared


# --- control API and CLI ---------------------------------------------------------------------

def call(srv: PushlabServer, method: str, path: str, body=None) -> tuple[int, dict]:
    data = (body if isinstance(body, bytes) else json.dumps(body).encode()) if body is not None else None
    request = urllib.request.Request(srv.control_url + path, data=data, method=method)
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def report(srv: PushlabServer, provider: str | None = None) -> dict:
    path = "/v1/report" + (f"?provider={urllib.request.quote(provider, safe='')}" if provider else "")
    status, body = call(srv, "GET", path)
    assert status == 200, body
    return body


def wait_report(srv: PushlabServer, check, what: str, timeout: float = 10.0) -> dict:
    """The report once `check(report)` holds (connections tell the report once per read, and a
    closed connection once the server has seen it close)."""
    deadline = time.monotonic() + timeout
    while True:
        r = report(srv)
        try:
            if check(r):
                return r
        except (KeyError, IndexError, TypeError):
            pass
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout}s waiting for {what}; the report:\n{json.dumps(r, indent=1)}")
        time.sleep(0.05)


def provider_of(r: dict, provider_id: str = PROVIDER) -> dict:
    found = [p for p in r["providers"] if p["id"] == provider_id]
    assert len(found) == 1, f"{provider_id} not (once) in the report:\n{json.dumps(r, indent=1)}"
    return found[0]


def settled(srv: PushlabServer, requests: int, provider_id: str = PROVIDER) -> dict:
    """The provider once the report has its `requests` requests and none of its connections is open."""
    def done(r):
        p = provider_of(r, provider_id)
        return p["requests"] == requests and p["connections"]["open"] == 0 and p["latencyMs"]["count"] == requests
    return provider_of(wait_report(srv, lambda r: any(p["id"] == provider_id for p in r["providers"]) and done(r),
                                   f"{requests} requests of {provider_id}, its connections closed"), provider_id)


def findings(p: dict) -> dict[str, int]:
    return {f["id"]: f["count"] for f in p["findings"]}


def pushlab(*args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run([str(wait_for_binary()), *args], cwd=REPO, capture_output=True, text=True, timeout=timeout)


def check_cli(srv: PushlabServer, expected: dict[str, int], provider: str = KEY_ID) -> None:
    """`pushlab report` says what the control API said: the findings and counts in --json, each
    finding's id and count in the text, and --fail-on-findings exits 1 exactly when there is one."""
    control = ["--control", srv.control_url, "--provider", provider]
    out = pushlab("report", *control, "--json")
    assert out.returncode == 0, out.stderr
    as_json = json.loads(out.stdout)
    assert as_json["findings"] == len(expected), out.stdout
    assert findings(provider_of(as_json)) == expected, out.stdout

    text = pushlab("report", *control)
    assert text.returncode == 0, text.stderr
    assert PROVIDER in text.stdout, text.stdout
    for finding, count in expected.items():
        assert re.search(rf"✗ {re.escape(finding)}: .+ \({count} \w+\)$", text.stdout, re.M), text.stdout
    if not expected:
        assert "no findings" in text.stdout and "✗" not in text.stdout, text.stdout
    else:
        assert f"{len(expected)} finding{'s' if len(expected) > 1 else ''}:" in text.stdout, text.stdout

    gate = pushlab("report", *control, "--fail-on-findings")
    assert gate.returncode == (1 if expected else 0), (gate.returncode, gate.stdout, gate.stderr)


# --- pushing ---------------------------------------------------------------------------------

def payload(tag: str) -> bytes:
    return json.dumps({"aps": {"alert": f"report test {tag}"}}).encode()


def push_headers(bearer: str | None = None, push_type: str = "alert", priority: int | None = None,
                 extra: tuple = ()) -> list[tuple[str, str]]:
    headers = [("authorization", f"bearer {bearer or provider_token()}"), ("apns-topic", TOPIC),
               ("apns-push-type", push_type)]
    if priority is not None:
        headers.append(("apns-priority", str(priority)))
    return headers + list(extra)


def push(client: H2Client, token: str, body: bytes, **kw):
    return client.request(body=body, path=f"/3/device/{token}", auth=False, extra=push_headers(**kw))


def one_push_per_connection(port: int, pushes: list[tuple[str, bytes, str | None]]) -> list[int]:
    statuses = []
    for token, body, bearer in pushes:
        c = H2Client(port)
        try:
            statuses.append(push(c, token, body, bearer=bearer).status)
        finally:
            c.close()
    return statuses


# --- findings, one client each ---------------------------------------------------------------

def test_a_connection_per_push(clean):
    n = 5
    statuses = one_push_per_connection(clean.port, [(dev_token(100 + i), payload(f"cpp {i}"), None) for i in range(n)])
    assert statuses == [200] * n
    p = settled(clean, n)
    assert findings(p) == {"connection-per-push": n}, p["findings"]
    assert p["connections"]["opened"] == n
    assert p["connections"]["requestsPerConnection"] == {"min": 1, "median": 1, "max": 1}
    assert p["statuses"] == {"200": n}
    assert p["providerTokens"]["distinct"] == 1
    (finding,) = p["findings"]
    assert finding["unit"] == "connections" and len(finding["examples"]) == 3, finding
    assert finding["source"].startswith("https://developer.apple.com/"), finding
    check_cli(clean, {"connection-per-push": n})


def test_two_pushes_per_connection_are_still_a_connection_per_push_but_three_are_not(clean):
    """The rule's edge: connections that carried at most two requests; three such connections."""
    for i in range(3):
        c = H2Client(clean.port)
        try:
            for j in range(2):
                assert push(c, dev_token(110), payload(f"edge {i} {j}")).status == 200
        finally:
            c.close()
    c = H2Client(clean.port)
    try:
        for j in range(3):
            assert push(c, dev_token(110), payload(f"edge 3 {j}")).status == 200
    finally:
        c.close()
    p = settled(clean, 9)
    assert findings(p) == {"connection-per-push": 3}, p["findings"]
    assert p["connections"]["opened"] == 4


def test_a_fresh_provider_token_for_each_push(clean):
    n = 4
    now = int(time.time())
    bearers = [mint_provider_token(issued_at=now - 60 + i) for i in range(n)]
    statuses = one_push_per_connection(clean.port, [(dev_token(120 + i), payload(f"tpp {i}"), b) for i, b in enumerate(bearers)])
    assert statuses == [200] * n
    p = settled(clean, n)
    # Every token carried one push, with another signed a second away.
    assert p["providerTokens"] == {"distinct": n, "issuedTooSoon": n, "shortestIntervalMs": 1000}, p["providerTokens"]
    # Each token on its own connection: a connection per push as well.
    assert findings(p) == {"token-refreshed-too-often": n, "connection-per-push": n}, p["findings"]
    check_cli(clean, {"token-refreshed-too-often": n, "connection-per-push": n})


def test_the_same_iat_signed_again_is_another_token(clean):
    """ES256 signatures differ each time: the same claims signed twice are two tokens, 0 s apart."""
    iat = int(time.time()) - 30
    bearers = [mint_provider_token(issued_at=iat) for _ in range(3)]
    assert len(set(bearers)) == 3
    c = H2Client(clean.port)
    try:
        for i, bearer in enumerate(bearers):
            # A changed token on one connection within 20 minutes: 429 TooManyProviderTokenUpdates.
            r = push(c, dev_token(130), payload(f"same iat {i}"), bearer=bearer)
            assert (r.status, json.loads(r.data or b"{}").get("reason")) == ((200, None) if i == 0 else (429, "TooManyProviderTokenUpdates")), r
    finally:
        c.close()
    p = settled(clean, 3)
    assert p["statuses"] == {"200": 1, "429": 2}
    assert p["reasons"] == {"TooManyProviderTokenUpdates": 2}
    # Every token the key signed counts, refused or not: three, 0 s apart, one request each.
    assert p["providerTokens"] == {"distinct": 3, "issuedTooSoon": 3, "shortestIntervalMs": 0}, p["providerTokens"]
    # TooManyProviderTokenUpdates is not TooManyRequests: no ignored-429.
    assert p["tooManyRequests"]["answers"] == 0
    assert findings(p) == {"token-refreshed-too-often": 3}, p["findings"]
    check_cli(clean, {"token-refreshed-too-often": 3})

    # The same three tokens again, each on a connection of its own: still three tokens.
    one_push_per_connection(clean.port, [(dev_token(131 + i), payload(f"same iat conn {i}"), b) for i, b in enumerate(bearers)])
    p = settled(clean, 6)
    # Two requests each now: still thrown away after a push or two.
    assert p["providerTokens"] == {"distinct": 3, "issuedTooSoon": 3, "shortestIntervalMs": 0}, p["providerTokens"]
    # The first connection carried three requests; the three after it one each.
    assert findings(p) == {"token-refreshed-too-often": 3, "connection-per-push": 3}, p["findings"]


def test_pushing_again_after_410(clean):
    c = H2Client(clean.port)
    try:
        first = payload("gone 1")
        assert push(c, dev_token(140), payload("before")).status == 200      # authenticates the connection
        statuses = [push(c, DEV_UNREGISTERED_TOKEN, body).status for body in (first, first, first, payload("gone 2"))]
    finally:
        c.close()
    assert statuses == [410] * 4
    p = settled(clean, 5)
    assert p["pushesAfter410"] == 3
    assert p["retries"]["after410"] == 2 and p["retries"]["total"] == 2, p["retries"]
    assert p["reasons"] == {"Unregistered": 4}
    assert findings(p) == {"pushed-after-410": 3}, p["findings"]
    check_cli(clean, {"pushed-after-410": 3})


def test_ignoring_429(clean_limited):
    srv = clean_limited
    n = 8
    c = H2Client(srv.port)
    try:
        statuses = [push(c, dev_token(150), payload(f"flood {i}")).status for i in range(n)]
    finally:
        c.close()
    assert statuses == [200] * RATE_LIMIT + [429] * (n - RATE_LIMIT), statuses
    p = settled(srv, n)
    throttled = p["tooManyRequests"]
    assert throttled["answers"] == n - RATE_LIMIT
    # Each push after the first 429 came well within a second of the 429 before it.
    assert throttled["pushesTooSoon"] == n - RATE_LIMIT - 1
    found = findings(p)
    assert found["ignored-429"] == n - RATE_LIMIT - 1, p["findings"]
    # faster-after-429 depends on where the loop crosses a second boundary.
    assert set(found) <= {"ignored-429", "faster-after-429"}, p["findings"]
    assert p["retries"]["total"] == 0      # distinct payloads: nothing was retried
    check_cli(srv, found)


def test_a_duplicate_push(clean):
    c = H2Client(clean.port)
    try:
        body = payload("twice")
        statuses = [push(c, dev_token(160), body).status for _ in range(3)] + [push(c, dev_token(161), body).status]
    finally:
        c.close()
    assert statuses == [200] * 4
    p = settled(clean, 4)
    # The same payload to another token is not a duplicate.
    assert p["retries"]["afterSuccess"] == 2 and p["retries"]["total"] == 2, p["retries"]
    assert findings(p) == {"duplicate-push": 2}, p["findings"]
    check_cli(clean, {"duplicate-push": 2})


def test_a_refused_request_sent_again(clean):
    c = H2Client(clean.port)
    try:
        assert push(c, dev_token(170), payload("fine")).status == 200
        body = payload("bad priority")
        refused = [push(c, dev_token(170), body, priority=7) for _ in range(3)]
    finally:
        c.close()
    assert [(r.status, json.loads(r.data)["reason"]) for r in refused] == [(400, "BadPriority")] * 3
    p = settled(clean, 4)
    assert p["retries"]["afterRefusal"] == 2 and p["retries"]["total"] == 2, p["retries"]
    assert findings(p) == {"retried-refusal": 2}, p["findings"]
    check_cli(clean, {"retried-refusal": 2})


def test_background_pushes_at_priority_10(clean):
    c = H2Client(clean.port)
    try:
        bodies = [json.dumps({"aps": {"content-available": 1}, "n": i}).encode() for i in range(3)]
        statuses = [push(c, dev_token(180), bodies[0], push_type="background", priority=5).status]
        statuses += [push(c, dev_token(180), b, push_type="background", priority=10).status for b in bodies[1:]]
        statuses += [push(c, dev_token(180), payload("alert 10"), priority=10).status]
    finally:
        c.close()
    assert statuses == [200] * 4, statuses
    p = settled(clean, 4)
    assert findings(p) == {"background-priority-10": 2}, p["findings"]
    check_cli(clean, {"background-priority-10": 2})


def test_expiration_in_milliseconds(clean):
    c = H2Client(clean.port)
    try:
        soon = int(time.time()) + 3600
        statuses = [push(c, dev_token(190), payload("seconds"), extra=(("apns-expiration", str(soon)),)).status]
        statuses += [push(c, dev_token(190), payload(f"ms {i}"), extra=(("apns-expiration", str(soon * 1000)),)).status
                     for i in range(2)]
    finally:
        c.close()
    assert statuses == [200] * 3, statuses
    p = settled(clean, 3)
    assert findings(p) == {"expiration-beyond-storage": 2}, p["findings"]
    check_cli(clean, {"expiration-beyond-storage": 2})


def test_an_expired_provider_token(clean):
    """A token past its hour on a connection its key had authenticated: the key's finding."""
    old = mint_provider_token(issued_at=int(time.time()) - 2 * 3600)
    c = H2Client(clean.port)
    try:
        assert push(c, dev_token(200), payload("fresh")).status == 200
        r = [push(c, dev_token(200), payload(f"old {i}"), bearer=old) for i in range(2)]
    finally:
        c.close()
    assert [(x.status, json.loads(x.data)["reason"]) for x in r] == [(403, "ExpiredProviderToken")] * 2
    p = settled(clean, 3)
    assert findings(p) == {"expired-provider-token": 2}, p["findings"]
    check_cli(clean, {"expired-provider-token": 2})


def test_closed_for_errors(clean_limited):
    srv = clean_limited
    c = H2Client(srv.port)
    try:
        assert push(c, dev_token(210), payload("ok")).status == 200
        statuses = [push(c, UNKNOWN_TOKEN, payload(f"bad token {i}")).status for i in range(2)]
        c.wait_for(lambda: c.closed, 10, "the connection closed after GOAWAY")
    finally:
        c.close()
    assert statuses == [400, 400]
    goaway = [e for e in c.events if isinstance(e, h2.events.ConnectionTerminated)]
    assert goaway and json.loads(goaway[0].additional_data) == {"reason": "BadDeviceToken"}, c.events
    p = settled(srv, 3)
    assert findings(p) == {"closed-for-errors": 1}, p["findings"]
    (connection,) = [x for x in report(srv)["connections"] if x["provider"] == PROVIDER]
    assert connection["goAway"] == "BadDeviceToken" and connection["closedForErrors"] is True, connection
    check_cli(srv, {"closed-for-errors": 1})


LATENCY_MS = 2000


def test_filling_the_stream_limit(clean_limited):
    srv = clean_limited
    status, body = call(srv, "PUT", "/v1/latency", {"both": {"distribution": "fixed", "ms": LATENCY_MS}})
    assert status == 200, body
    c = H2Client(srv.port)
    try:
        c.authenticate(want_streams=STREAM_LIMIT, path=f"/3/device/{dev_token(220)}")
        # Only now is the server's side of the connection surely made (with the profile); it
        # keeps the profile it was made with.
        assert call(srv, "DELETE", "/v1/latency")[0] == 200
        started = time.monotonic()
        sids = [c.start_request(body=payload(f"burst {i}"), path=f"/3/device/{dev_token(221 + i)}", flush=False)
                for i in range(STREAM_LIMIT)]
        c.flush()
        c.wait_for(lambda: all(c.responses[s].ended for s in sids), 30, "the burst's answers")
        took = time.monotonic() - started
    finally:
        c.close()
        call(srv, "DELETE", "/v1/latency")
    assert [c.responses[s].status for s in sids] == [200] * STREAM_LIMIT
    # The answers waited together (one LATENCY_MS), not one after another (STREAM_LIMIT of them);
    # the latency is long enough that a busy machine's delays stay far inside the difference.
    assert took < STREAM_LIMIT * LATENCY_MS / 1000 * 0.75, f"{took:.2f} s: the burst's answers waited one after another"
    p = settled(srv, STREAM_LIMIT + 1)
    assert p["concurrency"]["peak"] == STREAM_LIMIT and p["concurrency"]["streamLimit"] == STREAM_LIMIT, p["concurrency"]
    assert findings(p) == {"stream-limit-reached": 1}, p["findings"]
    assert p["latencyMs"]["p50"] >= 300, p["latencyMs"]
    check_cli(srv, {"stream-limit-reached": 1})


def test_going_over_the_stream_limit(clean_limited):
    srv = clean_limited
    c = RawH2(srv.port)
    try:
        c.authenticate(stream_id=1, want_streams=STREAM_LIMIT)
        c.send(PingFrame(0, opaque_data=b"settled!"))        # our ACK of the new limit is processed
        c.read_until(lambda f: isinstance(f, PingFrame))
        for sid in range(3, 3 + 2 * (STREAM_LIMIT + 1), 2):  # one stream more than allowed, none ended
            c.send_headers(sid, request_headers(srv.port))
        f = c.read_until(lambda f: isinstance(f, GoAwayFrame), 10)
        assert isinstance(f, GoAwayFrame), c.frames
        c.read_all(5)
    finally:
        c.close()
    p = settled(srv, 1)
    assert findings(p) == {"stream-limit-exceeded": 1}, p["findings"]
    check_cli(srv, {"stream-limit-exceeded": 1})


# --- a provider that does everything right ---------------------------------------------------

def test_a_well_behaved_provider_has_no_findings(clean):
    n = 6
    status, body = call(clean, "PUT", "/v1/latency", {"both": {"distribution": "fixed", "ms": 100}})
    assert status == 200 and body["latency"]["development"] == {"distribution": "fixed", "ms": 100}, body
    c = H2Client(clean.port)
    try:
        for i in range(n):
            r = push(c, dev_token(300 + i % 2), payload(f"good {i}"))
            assert r.status == 200, r
            if i == 0:      # the connection keeps the profile it was made with
                assert call(clean, "DELETE", "/v1/latency")[0] == 200
        # Told once per read: the report has every request before the connection closes.
        open_report = provider_of(wait_report(clean, lambda r: provider_of(r)["requests"] == n, f"{n} requests while open"))
        assert open_report["connections"] == {**open_report["connections"], "opened": 1, "open": 1}, open_report["connections"]
    finally:
        c.close()
        call(clean, "DELETE", "/v1/latency")
    p = settled(clean, n)
    assert p["findings"] == [], p["findings"]
    assert p["requests"] == n and p["statuses"] == {"200": n} and p["reasons"] == {}
    assert p["connections"]["opened"] == 1
    assert p["connections"]["requestsPerConnection"] == {"min": n, "median": n, "max": n}
    assert p["providerTokens"] == {**p["providerTokens"], "distinct": 1, "issuedTooSoon": 0}, p["providerTokens"]
    assert p["retries"]["total"] == 0 and p["pushesAfter410"] == 0
    assert p["tooManyRequests"] == {"answers": 0, "pushesTooSoon": 0, "fasterSeconds": 0}
    latency = p["latencyMs"]
    assert latency["count"] == n, latency
    # Buckets are within 7%; the answer waited 100 ms, and a loopback adds little.
    assert 100 <= latency["p50"] <= 150 and latency["max"] >= 100, latency
    assert p["concurrency"]["peak"] == 1
    assert (p["keyId"], p["teamId"], p["kind"]) == (KEY_ID, TEAM_ID, "key")
    check_cli(clean, {})
    # The provider filter takes the key id, the team id or the provider id; anything else is nobody.
    for name in (KEY_ID, TEAM_ID, PROVIDER):
        assert [x["id"] for x in report(clean, name)["providers"]] == [PROVIDER]
    nobody = report(clean, "NOBODY")
    assert nobody["providers"] == [] and nobody["findings"] == 0
    text = pushlab("report", "--control", clean.control_url, "--provider", "NOBODY")
    assert text.returncode == 0 and "No requests from provider NOBODY." in text.stdout, text.stdout


def test_a_certificate_is_its_own_provider(clean):
    c = H2Client(clean.port, client_cert=True)
    try:
        for i in range(2):
            r = c.request(body=payload(f"cert {i}"), path=f"/3/device/{dev_token(310)}", auth=False,
                          extra=[("apns-topic", TOPIC), ("apns-push-type", "alert")])
            assert r.status == 200, r
    finally:
        c.close()
    r = wait_report(clean, lambda r: r["providers"] and r["providers"][0]["requests"] == 2 and r["providers"][0]["connections"]["open"] == 0,
                    "the certificate's two requests")
    (p,) = r["providers"]
    assert p["kind"] == "certificate" and p["id"].startswith("certificate:") and p["certificateSubject"], p
    assert p["connections"]["opened"] == 1 and p["findings"] == [] and p["providerTokens"]["distinct"] == 0, p


# --- recording -------------------------------------------------------------------------------

def test_recording_on_and_off(fresh_server):
    srv = fresh_server()        # without --report

    def pushes(n: int, tag: str) -> None:
        c = H2Client(srv.port)
        try:
            for i in range(n):
                assert push(c, dev_token(400), payload(f"{tag} {i}")).status == 200
        finally:
            c.close()

    r = report(srv)
    assert r["recording"] is False and r["providers"] == [] and r["connections"] == [] and "since" not in r, r
    pushes(2, "unrecorded")
    time.sleep(0.3)
    r = report(srv)
    assert r["providers"] == [] and r["connectionsFollowed"] == 0, r
    text = pushlab("report", "--control", srv.control_url)
    assert text.returncode == 0 and "not recording" in text.stdout and "No requests yet." in text.stdout, text.stdout

    status, r = call(srv, "PUT", "/v1/report", {"recording": True})
    assert status == 200 and r["recording"] is True and "since" in r and r["providers"] == [], r
    pushes(3, "recorded")
    assert settled(srv, 3)["connections"]["opened"] == 1

    status, r = call(srv, "DELETE", "/v1/report")
    assert status == 200 and r["recording"] is True and r["providers"] == [], r
    pushes(1, "after clear")
    settled(srv, 1)

    status, body = call(srv, "POST", "/v1/reset")
    assert status == 200, body
    r = report(srv)
    assert r["recording"] is True and r["providers"] == [], r
    pushes(2, "after reset")
    settled(srv, 2)

    status, r = call(srv, "PUT", "/v1/report", {"recording": False})
    assert status == 200 and r["recording"] is False, r
    pushes(2, "stopped")
    time.sleep(0.3)
    assert provider_of(report(srv))["requests"] == 2, "what was recorded stays; nothing more is"

    # The CLI's --clear and --start, then --stop.
    out = pushlab("report", "--control", srv.control_url, "--clear", "--start", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["recording"] is True and json.loads(out.stdout)["providers"] == []
    pushes(1, "cli")
    settled(srv, 1)
    out = pushlab("report", "--control", srv.control_url, "--stop", "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["providers"][0]["requests"] == 1, out
    assert report(srv)["recording"] is False
    assert pushlab("report", "--control", srv.control_url, "--start", "--stop").returncode != 0

    for bad in ({"recording": "yes"}, {}, {"recording": True, "extra": 1}):
        status, body = call(srv, "PUT", "/v1/report", bad)
        assert status == 400 and body.get("error"), (bad, status, body)
    assert call(srv, "GET", "/v1/report?nope=1")[0] == 400
    nobody = pushlab("report", "--control", "http://127.0.0.1:1")
    assert nobody.returncode != 0 and "does not answer" in nobody.stderr, nobody
    assert srv.stop() == 0


def test_serve_records_from_the_start_with_a_config_file(fresh_server, tmp_path):
    """report: true in the config file records from the start; --latency FILE wins over the
    file's latency, and a reset goes back to it."""
    config = tmp_path / "pushlab.yaml"
    config.write_text("report: true\nlatency: apple-like\n")
    profile = tmp_path / "latency.json"
    profile.write_text(json.dumps({"latency": {"both": {"distribution": "fixed", "ms": 50}}}))
    srv = fresh_server("--config", str(config), "--latency", str(profile))
    assert report(srv)["recording"] is True
    fixed = {"distribution": "fixed", "ms": 50}
    status, body = call(srv, "GET", "/v1/latency")
    assert status == 200 and body["latency"]["development"] == fixed and "preset" not in body["latency"], body
    assert call(srv, "DELETE", "/v1/latency") == (200, {"latency": None})
    assert call(srv, "POST", "/v1/reset")[0] == 200
    assert call(srv, "GET", "/v1/latency")[1]["latency"]["production"] == fixed
    assert report(srv)["recording"] is True
    assert srv.stop() == 0

    srv = fresh_server("--config", str(config))
    assert report(srv)["recording"] is True
    assert call(srv, "GET", "/v1/latency")[1]["latency"]["preset"] == "apple-like"
    assert srv.stop() == 0


# --- latency ---------------------------------------------------------------------------------

def test_latency_through_the_cli_and_the_control_api(clean, tmp_path):
    srv = clean
    control = ["--control", srv.control_url]
    try:
        out = pushlab("latency", *control)
        assert out.returncode == 0 and out.stdout.startswith("off"), out
        out = pushlab("latency", *control, "--set", "apple-like")
        assert out.returncode == 0 and '"preset":"apple-like"' in out.stdout.replace(" ", ""), out
        out = pushlab("latency", *control)
        assert out.returncode == 0 and json.loads(out.stdout)["preset"] == "apple-like", out
        assert call(srv, "GET", "/v1/latency")[1]["latency"]["preset"] == "apple-like"

        f = tmp_path / "latency.yaml"
        f.write_text("policy:\n  latency:\n    both: {distribution: uniform, minMs: 20, maxMs: 40}\n")
        out = pushlab("latency", *control, "--set", str(f))
        assert out.returncode == 0, out
        profile = json.loads(out.stdout)
        assert "preset" not in profile and profile["development"] == {"distribution": "uniform", "minMs": 20, "maxMs": 40}, profile

        out = pushlab("latency", *control, "--off")
        assert out.returncode == 0 and out.stdout.startswith("off"), out
        assert call(srv, "GET", "/v1/latency") == (200, {"latency": None})

        # Readable failures, and nothing changed.
        bad = tmp_path / "bad.yaml"
        bad.write_text("both: {distribution: sideways, ms: 5}\n")
        cases = {    # what the message must name
            "a file that is no profile": (str(bad), "sideways"),
            "neither a preset nor a file": ("no-such-preset", "apple-like"),
            "not YAML": (str(tmp_path / "junk.yaml"), "junk.yaml"),
            "a negative latency": (str(tmp_path / "negative.json"), "-5"),
        }
        (tmp_path / "junk.yaml").write_text("both: [unclosed\n")
        (tmp_path / "negative.json").write_text(json.dumps({"both": {"distribution": "fixed", "ms": -5}}))
        for what, (setting, mention) in cases.items():
            out = pushlab("latency", *control, "--set", setting)
            assert out.returncode != 0, (what, out)
            message = out.stderr.strip()
            assert message and "Traceback" not in message and len(message.splitlines()) <= 4, (what, message)
            assert mention in message, (what, message)
        assert pushlab("latency", *control, "--set", "apple-like", "--off").returncode != 0
        assert call(srv, "GET", "/v1/latency") == (200, {"latency": None})

        for body in ({"preset": "sideways"}, {"both": {"distribution": "fixed"}}, {"both": {"distribution": "fixed", "ms": -1}},
                     {"preset": "apple-like", "both": {"distribution": "fixed", "ms": 1}}, {"nonsense": 1}, b"not json"):
            status, answer = call(srv, "PUT", "/v1/latency", body)
            assert status == 400 and isinstance(answer.get("error"), str) and answer["error"], (body, status, answer)
        assert call(srv, "GET", "/v1/latency") == (200, {"latency": None})
    finally:
        call(srv, "DELETE", "/v1/latency")


def test_serve_refuses_a_bad_latency_setting(tmp_path):
    for setting in ("no-such-preset", str(tmp_path / "missing.yaml")):
        out = subprocess.run([str(wait_for_binary()), "serve", "--latency", setting, "--scenario", str(INTEGRATION_SCENARIO),
                              "--development-port", "0", "--production-port", "0", "--control-port", "0",
                              "--db", str(tmp_path / "pushlab.db"), "--tls-cert", "certs/server.pem",
                              "--tls-key", "certs/server-key.pem"],
                             cwd=REPO, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
        assert out.returncode != 0 and "--latency" in out.stderr, out
