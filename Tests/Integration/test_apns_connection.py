"""APNs connection-level behaviour, out of the box (scenarios/default.yaml):
stream limits (reference 6.2), GOAWAY with a JSON reason (6.3, 5.2), token
rules (4.3, 4.4), the per-token rate limit (7.2). Seen through python-h2."""

from __future__ import annotations

import json
import socket
import time
from collections import Counter

import h2.events
import hpack
import pytest
from h2.errors import ErrorCodes

from h2util import (
    BODY,
    DataFrame,
    GoAwayFrame,
    H2Client,
    HeadersFrame,
    PREFACE,
    RawH2,
    SettingsFrame,
    request_headers,
    tls_context,
)
from conftest import derived_scenario
from world import (
    CERTS,
    DEV_TOKEN,
    DEV_UNREGISTERED_TOKEN,
    DEV_VOIP_TOKEN,
    PROD_TOKEN,
    TOPIC,
    UNKNOWN_TOKEN,
    VOIP_TOPIC,
    mint_provider_token,
    provider_token,
)


def goaway_of(c: H2Client):
    ts = [e for e in c.events if isinstance(e, h2.events.ConnectionTerminated)]
    return ts[0] if ts else None


@pytest.fixture
def client(default_server):
    made = []

    def make(**kw) -> H2Client:
        c = H2Client(default_server.dev_port, **kw)
        made.append(c)
        return c

    yield make
    for c in made:
        c.close()
    assert default_server.alive(), default_server.describe()


def test_one_stream_until_the_first_valid_token(client):
    c = client()
    c.wait_settings()
    assert c.max_streams == 1
    # An invalid token does not lift the limit...
    r = c.request(auth=False, extra=[("authorization", "bearer x.y.z"), ("apns-topic", TOPIC)])
    assert r.status == 403 and json.loads(r.data) == {"reason": "InvalidProviderToken"}
    c.read_once(0.3)
    assert c.max_streams == 1
    # ...a valid one does.
    c.authenticate(want_streams=1000)


def test_stream_limit_drops_after_a_rejection_and_comes_back(client):
    """Observed at Apple (O3, O4): after a rejected push MAX_CONCURRENT_STREAMS
    goes to 1, and back up after the next accepted one. 410 is not an error."""
    c = client()
    c.authenticate(want_streams=1000)
    r = c.request(path=f"/3/device/{UNKNOWN_TOKEN}")
    assert r.status == 400 and json.loads(r.data) == {"reason": "BadDeviceToken"}
    c.wait_for(lambda: c.max_streams == 1, 5, "MAX_CONCURRENT_STREAMS 1 after a rejection")
    assert c.request().status == 200
    c.wait_for(lambda: c.max_streams == 1000, 5, "MAX_CONCURRENT_STREAMS 1000 after a success")
    r = c.request(path=f"/3/device/{DEV_UNREGISTERED_TOKEN}")
    assert r.status == 410
    c.read_once(0.3)
    assert c.max_streams == 1000


def test_too_many_errors_close_the_connection(default_server):
    """"APNs disconnects sooner with certain error conditions, such as
    BadDeviceToken": GOAWAY NO_ERROR with {"reason":"BadDeviceToken"}, and the
    rejected push that tipped it over is still answered in full."""
    port = default_server.dev_port
    c = RawH2(port)
    try:
        c.read_until(lambda f: isinstance(f, SettingsFrame))
        c.authenticate(stream_id=1)
        sid, goaway = 1, None
        for _ in range(100):
            sid += 2
            c.send_headers(sid, request_headers(port, token=UNKNOWN_TOKEN))
            c.send_data(sid, BODY)
            d = c.read_until(lambda f: isinstance(f, DataFrame) and f.stream_id == sid, 10)
            assert d is not None and json.loads(d.data) == {"reason": "BadDeviceToken"}, c.frames[-5:]
            assert "END_STREAM" in d.flags
            # The GOAWAY follows the answer that tipped the budget over, after its DATA.
            c.read_until(lambda f: isinstance(f, GoAwayFrame), 0.3)
            goaway = next((f for f in c.frames if isinstance(f, GoAwayFrame)), None)
            if goaway is not None:
                break
        assert goaway is not None, f"no GOAWAY after {(sid - 1) // 2} BadDeviceToken answers"
        assert goaway.error_code == ErrorCodes.NO_ERROR
        assert json.loads(goaway.additional_data) == {"reason": "BadDeviceToken"}
        assert goaway.last_stream_id == sid, "the stream that tipped it over is covered"
        (h,) = [f for f in c.frames if isinstance(f, HeadersFrame) and f.stream_id == sid]
        assert dict(h.decoded)[":status"] == "400"
        c.read_all(10)
        assert c.closed
    finally:
        c.close()


def _cert_connection(port: int, name: str):
    ctx = tls_context()
    ctx.load_cert_chain(str(CERTS / f"{name}.pem"), str(CERTS / f"{name}-key.pem"))
    raw = socket.create_connection(("127.0.0.1", port), timeout=10)
    c = RawH2.__new__(RawH2)
    c.port, c.sock = port, ctx.wrap_socket(raw, server_hostname="localhost")
    c.encoder, c.decoder = hpack.Encoder(), hpack.Decoder()
    c.buf, c.frames, c.closed, c._header_block = b"", [], False, None
    c.sock.sendall(PREFACE + SettingsFrame(0).serialize())
    return c


@pytest.mark.parametrize("cert,which", [("client-development", "prod"), ("client-production", "dev")])
def test_certificate_for_the_other_environment_gets_goaway(default_server, cert, which):
    """Reference 5.2 / O6, O16: the handshake and SETTINGS go through, then
    GOAWAY last_stream_id=0 NO_ERROR {"reason":"BadCertificateEnvironment"}."""
    port, token = (default_server.prod_port, PROD_TOKEN) if which == "prod" else (default_server.dev_port, DEV_TOKEN)
    c = _cert_connection(port, cert)
    try:
        try:
            c.send_headers(1, request_headers(port, token=token, auth=False, extra=[("apns-topic", TOPIC)]))
            c.send_data(1, BODY)
        except OSError:
            pass
        frames = c.read_all(10)
        assert c.closed
        assert isinstance(frames[0], SettingsFrame) and "ACK" not in frames[0].flags, frames
        goaways = [f for f in frames if isinstance(f, GoAwayFrame)]
        assert len(goaways) >= 1, frames
        g = goaways[0]
        assert (g.error_code, g.last_stream_id) == (ErrorCodes.NO_ERROR, 0)
        assert json.loads(g.additional_data) == {"reason": "BadCertificateEnvironment"}
        assert not any(isinstance(f, HeadersFrame) for f in frames), "no request is served"
    finally:
        c.close()


@pytest.mark.parametrize("cert", ["client-untrusted", "client-expired"])
def test_unusable_certificate_is_403_bad_certificate(default_server, cert):
    port = default_server.dev_port
    c = _cert_connection(port, cert)
    try:
        c.send_headers(1, request_headers(port, auth=False, extra=[("apns-topic", TOPIC)]))
        c.send_data(1, BODY)
        h = c.read_until(lambda f: isinstance(f, (HeadersFrame, GoAwayFrame)), 10)
        assert isinstance(h, HeadersFrame), c.frames
        assert dict(h.decoded)[":status"] == "403"
        d = c.read_until(lambda f: isinstance(f, DataFrame), 10)
        assert d is not None and json.loads(d.data) == {"reason": "BadCertificate"}
    finally:
        c.close()


def test_changing_the_provider_token_too_often_is_429(client):
    c = client()
    c.authenticate(want_streams=1000)
    other = mint_provider_token(issued_at=int(time.time()) - 5)
    r = c.request(auth=False, extra=[("authorization", f"bearer {other}"), ("apns-topic", TOPIC)])
    assert r.status == 429 and json.loads(r.data) == {"reason": "TooManyProviderTokenUpdates"}


def test_expired_provider_token_is_403(client):
    c = client()
    old = mint_provider_token(issued_at=int(time.time()) - 2 * 3600)
    r = c.request(auth=False, extra=[("authorization", f"bearer {old}"), ("apns-topic", TOPIC)])
    assert r.status == 403 and json.loads(r.data) == {"reason": "ExpiredProviderToken"}


def test_per_token_rate_limit_is_429(fresh_server):
    srv = fresh_server(scenario=None)
    c = H2Client(srv.dev_port)
    try:
        c.authenticate(want_streams=1000)        # request 1 of the window
        sids = [c.start_request(flush=False) for _ in range(300)]
        c.flush()
        c.wait_for(lambda: all(c.responses[s].ended for s in sids), 30, "300 answers")
        statuses = Counter(c.responses[s].status for s in sids)
        assert statuses == {200: 299, 429: 1}, statuses
        (last,) = [s for s in sids if c.responses[s].status == 429]
        assert json.loads(c.responses[last].data) == {"reason": "TooManyRequests"}
        # Another token is not affected.
        r = c.request(path=f"/3/device/{DEV_VOIP_TOKEN}", auth=False,
                      extra=[("authorization", f"bearer {provider_token()}"), ("apns-topic", VOIP_TOPIC),
                             ("apns-push-type", "voip")])
        assert r.status == 200, r
    finally:
        c.close()
    assert srv.stop() == 0


def test_idle_connection_gets_goaway_idle_timeout(fresh_server, tmp_path):
    """With idleTimeoutSeconds: 1, a connection that sends nothing for a second gets
    GOAWAY NO_ERROR {"reason":"IdleTimeout"} and is closed; a busy one is not."""
    srv = fresh_server(scenario=derived_scenario(tmp_path, idleTimeoutSeconds=1))
    idle, busy = H2Client(srv.dev_port), H2Client(srv.dev_port)
    try:
        idle.authenticate()
        busy.authenticate()
        deadline = time.monotonic() + 2.5
        while time.monotonic() < deadline:     # busy keeps talking, twice a second
            assert busy.request().status == 200
            time.sleep(0.4)
        idle.wait_for(lambda: goaway_of(idle) is not None, 5, "GOAWAY on the idle connection")
        goaway = goaway_of(idle)
        assert goaway.error_code == ErrorCodes.NO_ERROR
        assert json.loads(goaway.additional_data) == {"reason": "IdleTimeout"}
        assert goaway_of(busy) is None
    finally:
        idle.close()
        busy.close()
    assert srv.stop() == 0
