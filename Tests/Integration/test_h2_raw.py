"""Python's h2 (the HTTP/2 stack aioapns uses) over plain `ssl` sockets.

Connection-level behaviour: PING, ALPN (including none at all), stream limits,
flow control, header list limits, a client that does not read.
"""

from __future__ import annotations

import json
import socket
import ssl
import time
import uuid
from collections import Counter

import h2.events
import hpack
import pytest
from h2.errors import ErrorCodes
from h2.settings import SettingCodes

from h2util import (
    BODY,
    GoAwayFrame,
    H2Client,
    PipeH2Client,
    HeadersFrame,
    PingFrame,
    RawH2,
    RstStreamFrame,
    SettingsFrame,
    request_headers,
    tls_connect,
)

SMALL_BODY = b'{"aps":{}}'


def expect_settings(c: H2Client, max_streams: int = 1) -> None:
    """The server's SETTINGS; a token connection gets one stream until its first valid token."""
    rs = c.conn.remote_settings
    assert rs[SettingCodes.HEADER_TABLE_SIZE] == 4096
    assert rs[SettingCodes.MAX_CONCURRENT_STREAMS] == max_streams
    assert rs[SettingCodes.INITIAL_WINDOW_SIZE] == 65535
    assert rs[SettingCodes.MAX_FRAME_SIZE] == 16384
    assert rs[SettingCodes.MAX_HEADER_LIST_SIZE] == 8000


def done(r) -> bool:
    return r.ended or r.reset is not None


@pytest.fixture
def client(assert_alive):
    clients = []

    def make(**kw) -> H2Client:
        c = H2Client(assert_alive.dev_port, **kw)
        clients.append(c)
        return c

    yield make
    for c in clients:
        c.close()


# --- PING ----------------------------------------------------------------------

def test_ping_is_acked_with_the_same_payload(client):
    c = client()
    c.wait_settings()
    payloads = [b"\x00" * 8, b"pushlab!", bytes(range(250, 256)) + b"\x01\x02"]
    for p in payloads:
        c.conn.ping(p)
    c.flush()
    acks = lambda: [e.ping_data for e in c.events if isinstance(e, h2.events.PingAckReceived)]
    c.wait_for(lambda: len(acks()) == len(payloads), what="PING ACKs")
    assert acks() == payloads
    # The connection is still fine afterwards.
    assert c.request().status == 200


def test_ping_ack_frame_on_the_wire(server):
    c = RawH2(server.dev_port)
    try:
        c.send(PingFrame(0, opaque_data=b"\x01\x02\x03\x04\x05\x06\x07\x08"))
        f = c.read_until(lambda f: isinstance(f, PingFrame), 10)
        assert f is not None, c.frames
        assert f.stream_id == 0 and "ACK" in f.flags and f.opaque_data == b"\x01\x02\x03\x04\x05\x06\x07\x08"
        # Exactly one PING back: the server must not answer its own ACK or ping us first.
        assert [x for x in c.frames if isinstance(x, PingFrame)] == [f]
    finally:
        c.close()


# --- ALPN ------------------------------------------------------------------------

def test_alpn_h2_is_selected(client):
    c = client(alpn=["h2", "http/1.1"])
    assert c.sock.selected_alpn_protocol() == "h2"
    assert c.sock.version() in ("TLSv1.2", "TLSv1.3")
    c.wait_settings()
    expect_settings(c)
    c.authenticate()
    expect_settings(c, 1000)


def test_no_alpn_offered_is_still_http2(client):
    # pushy and aioapns connect without ALPN; real APNs serves them HTTP/2.
    c = client(alpn=None)
    assert c.sock.selected_alpn_protocol() is None
    c.wait_settings()
    expect_settings(c)
    r = c.authenticate()
    expect_settings(c, 1000)
    assert r.status == 200 and r.data == b"" and r.data_frames == 0
    e = c.request(method="GET")
    assert e.status == 405 and json.loads(e.data) == {"reason": "MethodNotAllowed"}


def test_http11_only_alpn_gets_no_http1(server):
    """A client offering only http/1.1: no ALPN protocol is selected (the TLS
    handshake still succeeds) and the server speaks HTTP/2 regardless. An
    HTTP/1.1 request is an invalid connection preface: the server answers its
    SETTINGS, then GOAWAY(PROTOCOL_ERROR), then closes. No HTTP/1.x answer."""
    s = tls_connect(server.dev_port, alpn=["http/1.1"])
    try:
        assert s.selected_alpn_protocol() is None
        s.sendall(b"POST /3/device/abcd HTTP/1.1\r\nHost: localhost\r\nContent-Length: 10\r\n\r\n"
                  + SMALL_BODY)
        data = b""
        s.settimeout(10)
        while True:
            try:
                chunk = s.recv(65536)
            except (ConnectionResetError, ssl.SSLError, socket.timeout):
                break
            if not chunk:
                break
            data += chunk
    finally:
        s.close()
    assert not data.startswith(b"HTTP/"), data[:100]
    # What came back parses as HTTP/2 frames.
    frames = []
    buf = memoryview(data)
    from hyperframe.frame import Frame
    while len(buf) >= 9:
        f, length = Frame.parse_frame_header(buf[:9])
        f.parse_body(buf[9:9 + length])
        frames.append(f)
        buf = buf[9 + length:]
    assert len(buf) == 0, data
    assert isinstance(frames[0], SettingsFrame), frames
    goaways = [f for f in frames if isinstance(f, GoAwayFrame)]
    assert len(goaways) == 1 and goaways[0].error_code == ErrorCodes.PROTOCOL_ERROR, frames
    assert not any(isinstance(f, HeadersFrame) for f in frames)
    # The server is fine and serves the next client.
    assert server.alive()
    c = H2Client(server.dev_port)
    try:
        assert c.request().status == 200
    finally:
        c.close()


def test_http11_only_alpn_then_http2_preface_is_served(client):
    # No protocol was selected, so this is the same as offering no ALPN.
    c = client(alpn=["http/1.1"])
    assert c.sock.selected_alpn_protocol() is None
    c.wait_settings()
    assert c.request().status == 200


def test_client_certificate_over_h2(client):
    c = client(client_cert=True)
    c.wait_settings()
    expect_settings(c, 1000)     # a certificate connection gets the full limit at once
    # The authorization header is ignored on a certificate connection (reference 5.2).
    r = c.request(auth=False, extra=[("apns-topic", "com.pushlab.demo"), ("authorization", "bearer not.a.jwt")])
    assert r.status == 200, r


# --- Streams --------------------------------------------------------------------

def test_1000_concurrent_streams_on_one_connection(client):
    c = client()
    c.authenticate()
    assert c.conn.remote_settings.max_concurrent_streams == 1000
    n = 1000
    assert n * len(SMALL_BODY) <= c.conn.outbound_flow_control_window
    ids = [str(uuid.uuid4()).upper() for _ in range(n)]
    # Every request is written before a single byte of response is read.
    sids = [c.start_request(body=SMALL_BODY, extra=[("apns-id", i)], flush=False) for i in ids]
    assert c.conn.open_outbound_streams == n
    c.flush()
    c.wait_for(lambda: all(done(c.responses[s]) for s in sids), 60, "1,000 responses")
    statuses = Counter(c.responses[s].status for s in sids)
    assert statuses == {200: n}, (statuses, Counter(c.responses[s].reset for s in sids))
    got = [c.responses[s].headers["apns-id"] for s in sids]
    assert got == ids, "each stream must get its own request's apns-id back"
    assert all(c.responses[s].data == b"" for s in sids)
    # And 1,000 more with generated ids: all distinct.
    sids = [c.start_request(body=SMALL_BODY, flush=False) for _ in range(n)]
    c.flush()
    c.wait_for(lambda: all(done(c.responses[s]) for s in sids), 60, "1,000 more responses")
    assert Counter(c.responses[s].status for s in sids) == {200: n}
    assert len({c.responses[s].headers["apns-id"] for s in sids}) == n


def test_streams_over_the_limit(fresh_server):
    """A client that opens more streams than MAX_CONCURRENT_STREAMS allows gets
    what real APNs was seen sending (reference 6.2, O1): GOAWAY with error code
    REFUSED_STREAM and the plain-text reason. last_stream_id names only the
    streams already answered, so the unanswered ones may be retried elsewhere."""
    srv = fresh_server("--max-concurrent-streams", "2")
    c = RawH2(srv.dev_port)
    try:
        s = c.read_until(lambda f: isinstance(f, SettingsFrame) and "ACK" not in f.flags)
        assert s.settings[SettingCodes.MAX_CONCURRENT_STREAMS] == 1
        c.authenticate(stream_id=1, want_streams=2)
        c.send(PingFrame(0, opaque_data=b"settled!"))       # our ACK of that SETTINGS is processed
        c.read_until(lambda f: isinstance(f, PingFrame))
        for sid in (3, 5, 7):   # open, no END_STREAM yet
            c.send_headers(sid, request_headers(srv.dev_port))
        f = c.read_until(lambda f: isinstance(f, (RstStreamFrame, GoAwayFrame)), 10)
        assert isinstance(f, GoAwayFrame), f"expected GOAWAY, got {f!r} after {c.frames}"
        assert f.error_code == ErrorCodes.REFUSED_STREAM, ErrorCodes(f.error_code).name
        assert f.additional_data == b"Maximum active streams violated for this endpoint."
        assert f.last_stream_id == 1, "only stream 1 was answered; 3 and 5 may be retried"
        c.read_all(5)
        assert c.closed
    finally:
        c.close()
        assert srv.alive()
        assert srv.stop() == 0


# --- Header list size --------------------------------------------------------------

def _header_list_size(headers) -> int:
    # RFC 9113 6.5.2: name + value + 32 per field.
    return sum(len(k) + len(v) + 32 for k, v in headers)


def _request_of_size(port: int, total: int):
    base = request_headers(port)
    pad = total - _header_list_size(base) - len("x-pad") - 32
    return [("x-pad", "p" * pad)]


def test_header_list_at_the_limit_is_accepted(client):
    c = client()
    c.wait_settings()
    extra = _request_of_size(c.port, 8000)
    assert _header_list_size(request_headers(c.port, extra=extra)) == 8000
    r = c.request(extra=extra)
    assert r.status == 200 and r.reset is None


@pytest.mark.parametrize("total", [8001, 9000])
def test_header_list_over_max_header_list_size_is_refused(client, total):
    c = client()
    c.wait_settings()
    extra = _request_of_size(c.port, total)
    sid = c.start_request(extra=extra)
    r = c.responses[sid]
    c.wait_for(lambda: done(r), 10, "a response or RST_STREAM")
    assert r.status is None and r.reset is not None, f"a {total}-byte header list was answered: {r}"
    # Pushlab answers RST_STREAM(REFUSED_STREAM).
    assert r.reset == ErrorCodes.REFUSED_STREAM, r
    # The connection survives and serves the next request.
    assert not any(isinstance(e, h2.events.ConnectionTerminated) for e in c.events)
    assert c.request().status == 200


# --- Flow control ------------------------------------------------------------------

def test_request_bodies_beyond_the_connection_window(client):
    """300 x 1,000-byte bodies = 300 kB, more than the 65,535-byte connection
    window: the server must give the window back with WINDOW_UPDATEs."""
    c = client()
    c.authenticate()
    body = json.dumps({"aps": {"alert": "x" * 980}}, separators=(",", ":")).encode()
    assert len(body) == 1000
    sids = [c.start_request(body=body, wait_window=True) for _ in range(300)]
    c.wait_for(lambda: all(done(c.responses[s]) for s in sids), 60, "300 responses")
    assert Counter(c.responses[s].status for s in sids) == {200: 300}


def test_request_body_in_many_small_data_frames(server):
    c = RawH2(server.dev_port)
    try:
        c.read_until(lambda f: isinstance(f, SettingsFrame))
        c.send_headers(1, request_headers(server.dev_port, extra=[("apns-id", "0A0B0C0D-0E0F-1011-1213-141516171819")]))
        body = BODY
        for i in range(0, len(body), 3):
            c.send_data(1, body[i:i + 3], end_stream=i + 3 >= len(body))
        f = c.read_until(lambda f: isinstance(f, (HeadersFrame, RstStreamFrame, GoAwayFrame)), 10)
        assert isinstance(f, HeadersFrame) and f.stream_id == 1, c.frames
        assert dict(f.decoded)[":status"] == "200"
        assert dict(f.decoded)["apns-id"] == "0A0B0C0D-0E0F-1011-1213-141516171819"
        assert "END_STREAM" in f.flags
    finally:
        c.close()


def test_tiny_client_receive_window_gets_error_bodies_byte_by_byte(client):
    """INITIAL_WINDOW_SIZE=1 on our side: each error body (a DATA frame) can only
    come one byte per WINDOW_UPDATE. The server must respect the window and
    deliver every body whole."""
    c = client(local_settings={SettingCodes.INITIAL_WINDOW_SIZE: 1})
    c.authenticate()
    c.wait_for(lambda: any(isinstance(e, h2.events.SettingsAcknowledged) for e in c.events), what="SETTINGS ACK")
    sids = [c.start_request(method="GET", body=None, flush=False) for _ in range(50)]
    sids += [c.start_request(body=SMALL_BODY, flush=False) for _ in range(50)]
    c.flush()
    c.wait_for(lambda: all(done(c.responses[s]) for s in sids), 60, "100 responses")
    for s in sids[:50]:
        r = c.responses[s]
        assert r.status == 405 and r.data == b'{"reason":"MethodNotAllowed"}', r
        assert r.data_frames == len(r.data), "with a 1-byte window each DATA frame carries 1 byte"
    for s in sids[50:]:
        assert c.responses[s].status == 200 and c.responses[s].data == b""
    # h2 itself would have raised on a window violation; make sure nothing was reset.
    assert not any(isinstance(e, (h2.events.StreamReset, h2.events.ConnectionTerminated)) for e in c.events)


# --- A client that does not read --------------------------------------------------

def test_slow_reader_does_not_stall_the_server(fresh_server):
    """One client fires 5,000 requests without reading a byte of the responses,
    with a tiny TCP receive buffer and INITIAL_WINDOW_SIZE=0 (so the 500 error
    bodies among them cannot be sent at all). Other clients must be served
    meanwhile. Then it opens its window (SETTINGS INITIAL_WINDOW_SIZE=65535,
    which RFC 9113 6.9.2 applies to every open stream) and reads: all 5,000
    answered, the error bodies complete."""
    srv = fresh_server("--max-concurrent-streams", "10000")
    n, n_errors = 5000, 500
    slow = PipeH2Client(srv.dev_port, rcvbuf=4096, local_settings={SettingCodes.INITIAL_WINDOW_SIZE: 0})
    try:
        slow.wait_for(lambda: any(isinstance(e, h2.events.SettingsAcknowledged) for e in slow.events),
                      what="SETTINGS ACK")
        slow.authenticate(want_streams=10000)
        assert n * len(SMALL_BODY) <= slow.conn.outbound_flow_control_window
        ids = [str(uuid.uuid4()).upper() for _ in range(n)]
        sids = []
        for k, i in enumerate(ids):
            if k % (n // n_errors) == 0:
                sids.append(slow.start_request(method="GET", body=None, extra=[("apns-id", i)], flush=False))
            else:
                sids.append(slow.start_request(body=SMALL_BODY, extra=[("apns-id", i)], flush=False))
        slow.flush()      # queued, not sent

        # Phase 1: write without reading until done or the server stops taking bytes.
        stalled_since = time.monotonic()
        while slow.pipe.pending and time.monotonic() - stalled_since < 2:
            if slow.write_only(0.2):
                stalled_since = time.monotonic()
        sent_all_unread = not slow.pipe.pending

        # Phase 2: meanwhile, others are served normally.
        other = H2Client(srv.dev_port)
        try:
            assert other.authenticate(want_streams=10000).status == 200
            e = other.request(method="GET", body=None)
            assert e.status == 405 and e.data == b'{"reason":"MethodNotAllowed"}'
            other.conn.ping(b"stillok!")
            other.flush()
            other.wait_for(lambda: any(isinstance(e, h2.events.PingAckReceived) for e in other.events), what="PING ACK")
        finally:
            other.close()
        assert srv.alive()

        # Phase 3: read (and finish writing), then open the window and read the rest.
        deadline = time.monotonic() + 90
        while slow.pipe.pending:
            assert time.monotonic() < deadline, "the server stopped reading requests"
            slow.read_once(0.1)
            assert not slow.closed, "the server closed the slow connection"
        errors = sids[::n // n_errors]
        assert not any(slow.responses[s].data for s in errors), "DATA sent into a zero window"
        slow.conn.update_settings({SettingCodes.INITIAL_WINDOW_SIZE: 65535})
        slow.flush()
        while not all(done(slow.responses[s]) for s in sids):
            assert time.monotonic() < deadline, f"{sum(done(slow.responses[s]) for s in sids)}/{n} answered"
            slow.read_once(1.0)
            assert not slow.closed, "the server closed the slow connection"
        statuses = Counter(slow.responses[s].status for s in sids)
        assert statuses == {200: n - n_errors, 405: n_errors}, statuses
        assert all(slow.responses[s].data == b'{"reason":"MethodNotAllowed"}' for s in errors)
        assert [slow.responses[s].headers["apns-id"] for s in sids] == ids
        print(f"slow reader: all {n} requests written before reading: {sent_all_unread}")
    finally:
        slow.close()
    assert srv.stop() == 0


def literal_header_block(headers) -> bytes:
    """HPACK "literal header field without indexing - new name" (RFC 7541 6.2.2), no Huffman."""
    out = bytearray()
    for name, value in headers:
        n, v = name.encode(), value.encode()
        out += b"\x00" + hpack.hpack.encode_integer(len(n), 7) + n + hpack.hpack.encode_integer(len(v), 7) + v
    return bytes(out)


def test_bulk_requests_without_reading(fresh_server):
    """40,000 requests (about 1.4 MB) written as fast as the socket takes them
    while the client reads nothing, through a 4 kB TCP receive buffer. The
    responses cannot all fit in the kernel buffers, so the server has to hold
    back (it pauses reading its peer); once we read, every request must be
    answered, exactly once, with 200."""
    srv = fresh_server("--max-concurrent-streams", "1000000")
    n = 40000
    c = PipeH2Client(srv.dev_port, rcvbuf=4096)
    try:
        c.authenticate(want_streams=1000000)
        # Frames by hand (h2 is too slow for 60,000 streams). The header block
        # uses literals without indexing: it leaves both HPACK tables alone, so
        # one block serves every stream.
        again = literal_header_block(request_headers(srv.dev_port))

        def frame(type_: int, flags: int, sid: int, payload: bytes) -> bytes:
            return len(payload).to_bytes(3, "big") + bytes([type_, flags]) + sid.to_bytes(4, "big") + payload

        first_sid = c.conn.get_next_available_stream_id()
        sids = [first_sid + 2 * i for i in range(n)]
        c.pipe.write(b"".join(frame(0x1, 0x4, sid, again) + frame(0x0, 0x1, sid, SMALL_BODY) for sid in sids))

        stalled_since = time.monotonic()
        while c.pipe.pending and time.monotonic() - stalled_since < 2:
            if c.write_only(0.2):
                stalled_since = time.monotonic()

        # Others are served meanwhile.
        other = H2Client(srv.dev_port)
        try:
            assert other.authenticate(want_streams=1000000).status == 200
        finally:
            other.close()

        # Read the raw frames: h2 does not know the streams we opened by hand.
        dec = c.conn.decoder             # the HPACK state goes on from the first response
        buf = b""
        ended, statuses, goaway = set(), Counter(), None
        deadline = time.monotonic() + 90
        while len(ended) < n:
            assert time.monotonic() < deadline, f"{len(ended)}/{n} answered, {len(c.pipe.pending)} bytes unsent"
            data = c.pipe.pump(write=True, read=True, timeout=0.2)
            assert data or not c.pipe.eof, f"server closed the connection after {len(ended)}/{n} (GOAWAY {goaway})"
            buf += data
            pos = 0
            while len(buf) - pos >= 9:
                length = int.from_bytes(buf[pos:pos + 3], "big")
                if len(buf) - pos < 9 + length:
                    break
                type_, flags = buf[pos + 3], buf[pos + 4]
                sid = int.from_bytes(buf[pos + 5:pos + 9], "big") & 0x7FFFFFFF
                payload = buf[pos + 9:pos + 9 + length]
                if type_ == 0x1:
                    assert flags & 0x4, "CONTINUATION not expected for a 200"
                    h = dict(dec.decode(payload))
                    statuses[h[":status"]] += 1
                    assert flags & 0x1, f"stream {sid}: a 200 ends with its HEADERS"
                    assert sid not in ended, f"stream {sid} answered twice"
                    ended.add(sid)
                elif type_ == 0x0:
                    raise AssertionError(f"unexpected DATA on stream {sid}")
                elif type_ == 0x3:
                    raise AssertionError(f"RST_STREAM on stream {sid}: {int.from_bytes(payload, 'big')}")
                elif type_ == 0x4 and not flags & 0x1:
                    c.pipe.write(SettingsFrame(0, flags=["ACK"]).serialize())
                elif type_ == 0x7:
                    goaway = payload
                pos += 9 + length
            buf = buf[pos:]
        assert statuses == {"200": n}
        assert ended == set(sids)
    finally:
        c.close()
    assert srv.alive()
    assert srv.stop() == 0
