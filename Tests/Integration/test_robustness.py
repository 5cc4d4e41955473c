"""Misbehaving clients and protocol edges (RFC 9113, TLS): the server answers
per the RFC, and always keeps serving everyone else."""

from __future__ import annotations

import json
import socket
import ssl
import struct
import subprocess

import h2.config
import h2.connection
import h2.events
import hpack
import pytest
from h2.errors import ErrorCodes
from h2.settings import SettingCodes

from conftest import REPO, tool
from h2util import (
    CA,
    PREFACE,
    GoAwayFrame,
    H2Client,
    HeadersFrame,
    PingFrame,
    RawH2,
    RstStreamFrame,
    SettingsFrame,
    request_headers,
)

BODY = b'{"aps":{}}'


def raw_frame(type_: int, flags: int, sid: int, payload: bytes, length: int | None = None) -> bytes:
    n = len(payload) if length is None else length
    return n.to_bytes(3, "big") + bytes([type_, flags]) + sid.to_bytes(4, "big") + payload


def connect(port: int) -> RawH2:
    c = RawH2(port)
    assert c.read_until(lambda f: isinstance(f, SettingsFrame) and "ACK" not in f.flags, 10) is not None
    return c


def still_serves(port: int) -> None:
    c = H2Client(port)
    try:
        assert c.request().status == 200
    finally:
        c.close()


def answer(c: RawH2, sid: int, timeout: float = 10):
    return c.read_until(lambda f: f.stream_id == sid and isinstance(f, (HeadersFrame, RstStreamFrame))
                        or isinstance(f, GoAwayFrame), timeout)


# --- Malformed requests: stream errors, the connection lives on ------------------------

MALFORMED = {
    # RFC 9113 8.1.1: content-length must equal the DATA received.
    "content-length too big": (lambda p: request_headers(p, extra=[("content-length", "100")]), BODY),
    "content-length too small": (lambda p: request_headers(p, extra=[("content-length", "2")]), BODY),
    # 8.3.1: :method is mandatory.
    "no :method": (lambda p: [h for h in request_headers(p) if h[0] != ":method"], BODY),
    # 8.2: field names are lower case.
    "upper-case header name": (lambda p: request_headers(p, extra=[("Apns-Topic", "com.pushlab.demo")]), BODY),
    # 8.2.2: connection-specific header fields are malformed.
    "connection header": (lambda p: request_headers(p, extra=[("connection", "keep-alive")]), BODY),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_request_is_a_stream_error(assert_alive, case):
    make_headers, body = MALFORMED[case]
    c = connect(assert_alive.dev_port)
    try:
        c.send_headers(1, make_headers(assert_alive.dev_port))
        c.send_data(1, body)
        f = answer(c, 1)
        assert isinstance(f, RstStreamFrame), f"{case}: want RST_STREAM(PROTOCOL_ERROR), got {f}"
        assert f.error_code == ErrorCodes.PROTOCOL_ERROR
        # Same connection, next stream: fine.
        c.send_headers(3, request_headers(assert_alive.dev_port))
        c.send_data(3, BODY)
        f = answer(c, 3)
        assert isinstance(f, HeadersFrame) and dict(f.decoded)[":status"] == "200", f
    finally:
        c.close()


# --- Connection errors: GOAWAY with the RFC's code, then close ------------------------

CONNECTION_ERRORS = {
    # 5.1.1: a client-initiated stream must have an odd id.
    "even stream id": (lambda p, enc: raw_frame(0x1, 0x5, 2, enc(request_headers(p))), ErrorCodes.PROTOCOL_ERROR),
    # 6.1: DATA on stream 0.
    "DATA on stream 0": (lambda p, enc: raw_frame(0x0, 0x0, 0, b"x"), ErrorCodes.PROTOCOL_ERROR),
    # 4.2: a frame larger than SETTINGS_MAX_FRAME_SIZE (16,384).
    "oversized frame": (lambda p, enc: raw_frame(0x0, 0x0, 1, b"", length=32768), ErrorCodes.FRAME_SIZE_ERROR),
    # 6.9: WINDOW_UPDATE with a 0 increment on the connection.
    "zero WINDOW_UPDATE": (lambda p, enc: raw_frame(0x8, 0x0, 0, b"\x00\x00\x00\x00"), ErrorCodes.PROTOCOL_ERROR),
    # 6.7: PING must be 8 bytes.
    "short PING": (lambda p, enc: raw_frame(0x6, 0x0, 0, b"1234"), ErrorCodes.FRAME_SIZE_ERROR),
    # 6.5: SETTINGS ENABLE_PUSH must be 0 or 1.
    "bad SETTINGS value": (lambda p, enc: raw_frame(0x4, 0x0, 0, struct.pack(">HI", 2, 7)), ErrorCodes.PROTOCOL_ERROR),
    # 6.5.2: INITIAL_WINDOW_SIZE above 2^31-1.
    "window too big": (lambda p, enc: raw_frame(0x4, 0x0, 0, struct.pack(">HI", 4, 2**31)),
                       ErrorCodes.FLOW_CONTROL_ERROR),
    # 8.4: a client must not send PUSH_PROMISE.
    "PUSH_PROMISE from client": (lambda p, enc: raw_frame(0x5, 0x4, 1, b"\x00\x00\x00\x02" + enc(request_headers(p))),
                                 ErrorCodes.PROTOCOL_ERROR),
    # 4.3: a header block that is not valid HPACK.
    "broken HPACK": (lambda p, enc: raw_frame(0x1, 0x5, 1, b"\xff\xff\xff\xff\xff\xff"), ErrorCodes.COMPRESSION_ERROR),
}


@pytest.mark.parametrize("case", list(CONNECTION_ERRORS))
def test_connection_error_is_goaway(assert_alive, case):
    make, code = CONNECTION_ERRORS[case]
    c = connect(assert_alive.dev_port)
    try:
        try:
            c.sock.sendall(make(assert_alive.dev_port, c.encoder.encode))
        except OSError:
            pass   # the server may close while we are still writing
        g = c.read_until(lambda f: isinstance(f, GoAwayFrame), 10)
        assert g is not None, f"{case}: no GOAWAY, got {c.frames}"
        assert g.error_code == code, f"{case}: GOAWAY {ErrorCodes(g.error_code).name}, want {code.name}"
        c.read_all(10)
        assert c.closed, f"{case}: connection still open after GOAWAY({code.name})"
    finally:
        c.close()
    still_serves(assert_alive.dev_port)


def test_a_flood_of_empty_data_frames_is_goaway_enhance_your_calm(assert_alive):
    """Empty DATA frames without END_STREAM are legal and useless; a client that sends them in a
    row (CVE-2019-9518) gets GOAWAY ENHANCE_YOUR_CALM once past the bound (100), as strict
    servers answer, and the connection closes. The request before them was answered."""
    port = assert_alive.dev_port
    c = connect(port)
    try:
        c.send_headers(1, request_headers(port))
        c.send_data(1, BODY, end_stream=True)
        first = answer(c, 1)
        assert isinstance(first, HeadersFrame), c.frames
        c.send_headers(3, request_headers(port))
        try:
            c.sock.sendall(raw_frame(0x0, 0x0, 3, b"") * 1000)
        except OSError:
            pass   # the server may close while we are still writing
        g = c.read_until(lambda f: isinstance(f, GoAwayFrame), 10)
        assert g is not None, f"no GOAWAY, got {c.frames}"
        assert g.error_code == ErrorCodes.ENHANCE_YOUR_CALM, ErrorCodes(g.error_code).name
        assert g.last_stream_id == 1, "stream 1 was answered, stream 3 was not"
        c.read_all(10)
        assert c.closed
    finally:
        c.close()
    still_serves(port)


def test_a_few_empty_data_frames_between_payloads_are_tolerated(assert_alive):
    """Below the bound, and counted again after every frame with payload: a client splitting a body
    oddly keeps its connection."""
    port = assert_alive.dev_port
    c = connect(port)
    try:
        c.send_headers(1, request_headers(port))
        for chunk in (BODY[:10], BODY[10:]):
            c.sock.sendall(raw_frame(0x0, 0x0, 1, b"") * 90)
            c.send_data(1, chunk, end_stream=False)
        c.send_data(1, b"", end_stream=True)
        f = answer(c, 1)
        assert isinstance(f, HeadersFrame) and dict(f.decoded)[":status"] == "200", c.frames
    finally:
        c.close()


# --- Frames the server must ignore or tolerate ------------------------------------------

def test_ignorable_frames(assert_alive):
    """PRIORITY (APNs ignores it), an unknown frame type and an unknown
    SETTINGS id (RFC 9113 4.1, 5.5, 6.5.2) are ignored; trailers are allowed."""
    port = assert_alive.dev_port
    c = connect(port)
    try:
        c.sock.sendall(raw_frame(0x2, 0x0, 1, b"\x00\x00\x00\x00\x10"))          # PRIORITY for idle stream 1
        c.sock.sendall(raw_frame(0xFA, 0x3, 0, b"ext"))                         # unknown type
        c.sock.sendall(raw_frame(0x4, 0x0, 0, struct.pack(">HI", 0x7777, 42)))  # unknown setting
        c.send_headers(1, request_headers(port))
        c.send_data(1, BODY, end_stream=False)
        c.send_headers(1, [("x-trailer", "yes")], end_stream=True)             # trailers end the stream
        f = answer(c, 1)
        assert isinstance(f, HeadersFrame) and dict(f.decoded)[":status"] == "200", c.frames
    finally:
        c.close()


def test_client_reset_of_its_own_stream(assert_alive):
    port = assert_alive.dev_port
    c = connect(port)
    try:
        c.send_headers(1, request_headers(port))
        c.send(RstStreamFrame(1, error_code=ErrorCodes.CANCEL))
        c.send_headers(3, request_headers(port))
        c.send_data(3, BODY)
        f = answer(c, 3)
        assert isinstance(f, HeadersFrame) and dict(f.decoded)[":status"] == "200", c.frames
        # Nothing is ever sent for the cancelled stream.
        c.send(PingFrame(0, opaque_data=b"afterrst"))
        c.read_until(lambda f: isinstance(f, PingFrame), 10)
        assert not [f for f in c.frames if f.stream_id == 1], c.frames
    finally:
        c.close()


def test_request_body_over_several_windows(assert_alive):
    """A body larger than the 65,535-byte initial stream window: the server
    must send WINDOW_UPDATEs for the stream and the connection as it reads,
    and answer once the request is complete."""
    port = assert_alive.dev_port
    c = H2Client(port)
    try:
        c.wait_settings()
        body = b'{"aps":{"alert":"' + b"y" * 150_000 + b'"}}'
        sid = c.conn.get_next_available_stream_id()
        c.conn.send_headers(sid, request_headers(port))
        r = c._resp(sid)
        sent = 0
        while sent < len(body):
            c.wait_for(lambda: c.conn.local_flow_control_window(sid) > 0, 15, "a WINDOW_UPDATE")
            n = min(c.conn.local_flow_control_window(sid), c.conn.max_outbound_frame_size, len(body) - sent)
            c.conn.send_data(sid, body[sent:sent + n], end_stream=sent + n == len(body))
            sent += n
            c.flush()
        c.wait_for(lambda: r.ended or r.reset is not None, 15, "the response")
        # Read to the end, then judged: far over the 4 kB payload limit (reference 3.1).
        assert r.status == 413 and json.loads(r.data) == {"reason": "PayloadTooLarge"}, r
    finally:
        c.close()


def test_hpack_with_no_dynamic_table(assert_alive):
    """A client that allows no HPACK dynamic table (HEADER_TABLE_SIZE=0): the
    server's encoder must not index anything (h2's decoder would fail)."""
    c = H2Client(assert_alive.dev_port, local_settings={SettingCodes.HEADER_TABLE_SIZE: 0})
    try:
        c.wait_settings()
        for _ in range(20):
            r = c.request()
            assert r.status == 200 and len(r.headers["apns-id"]) == 36
        e = c.request(method="GET", body=None)
        assert e.status == 405 and e.headers["content-type"] == "application/json"
    finally:
        c.close()


# --- Transport abuse ------------------------------------------------------------------------

def _rst_close(s: socket.socket) -> None:
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()


def test_abrupt_disconnects(assert_alive):
    port = assert_alive.dev_port
    ctx = ssl.create_default_context(cafile=str(CA))
    ctx.set_alpn_protocols(["h2"])
    for i in range(30):
        raw = socket.create_connection(("127.0.0.1", port), timeout=10)
        mode = i % 3
        if mode == 0:
            raw.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")   # half a ClientHello
            _rst_close(raw)
            continue
        s = ctx.wrap_socket(raw, server_hostname="localhost")
        if mode == 1:
            s.sendall(PREFACE + SettingsFrame(0).serialize())               # then a request in flight
            s.sendall(raw_frame(0x1, 0x4, 1, hpack.Encoder().encode(request_headers(port))))
        else:
            s.sendall(PREFACE[:10])                                          # half a preface
        _rst_close(s)
    still_serves(port)


def test_plaintext_http2_on_the_tls_port(assert_alive):
    s = socket.create_connection(("127.0.0.1", assert_alive.dev_port), timeout=10)
    try:
        s.sendall(PREFACE + SettingsFrame(0).serialize())
        data = b""
        while True:
            try:
                chunk = s.recv(4096)
            except (ConnectionResetError, socket.timeout):
                break
            if not chunk:
                break
            data += chunk
        # No HTTP/2 in the clear: at most a TLS alert record (content type 21).
        assert data == b"" or data[0] == 0x15, data[:50]
    finally:
        s.close()
    still_serves(assert_alive.dev_port)


def test_tls_1_1_is_refused_by_the_server(assert_alive):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(str(CA))
    ctx.minimum_version = ctx.maximum_version = ssl.TLSVersion.TLSv1_1
    ctx.set_ciphers("DEFAULT:@SECLEVEL=0")   # so that it is the server, not our OpenSSL, that says no
    raw = socket.create_connection(("127.0.0.1", assert_alive.dev_port), timeout=10)
    with pytest.raises(ssl.SSLError) as err:
        ctx.wrap_socket(raw, server_hostname="localhost")
    raw.close()
    assert "PROTOCOL_VERSION" in str(err.value).upper() or "UNSUPPORTED_PROTOCOL" in str(err.value).upper(), err.value
    still_serves(assert_alive.dev_port)


def test_server_requests_a_client_certificate(assert_alive):
    p = subprocess.run([tool("openssl"), "s_client", "-connect", f"127.0.0.1:{assert_alive.dev_port}",
                        "-alpn", "h2", "-CAfile", str(CA), "-servername", "localhost"],
                       input=b"", capture_output=True, timeout=30, cwd=REPO)
    out = p.stdout.decode(errors="replace")
    assert "Acceptable client certificate CA names" in out, out
    assert "Pushlab Test CA" in out.split("Acceptable client certificate CA names", 1)[1].split("---")[0], out
    assert "ALPN protocol: h2" in out, out
    assert "Verify return code: 0 (ok)" in out, out


@pytest.mark.parametrize("sni", [None, "example.com"])
def test_any_sni_or_none_is_served(assert_alive, sni):
    ctx = ssl.create_default_context(cafile=str(CA))
    ctx.set_alpn_protocols(["h2"])
    if sni == "example.com":
        ctx.check_hostname = False    # the certificate does not name it; the server must still serve it
    raw = socket.create_connection(("127.0.0.1", assert_alive.dev_port), timeout=10)
    s = ctx.wrap_socket(raw, server_hostname=sni) if sni else _no_sni(raw)
    try:
        assert s.selected_alpn_protocol() == "h2"
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        conn.initiate_connection()
        conn.send_headers(1, request_headers(assert_alive.dev_port), end_stream=False)
        conn.send_data(1, BODY, end_stream=True)
        s.sendall(conn.data_to_send())
        status = None
        while status is None:
            data = s.recv(65536)
            assert data, "closed before the response"
            for ev in conn.receive_data(data):
                if isinstance(ev, h2.events.ResponseReceived):
                    status = dict(ev.headers)[":status"]
            s.sendall(conn.data_to_send())
        assert status == "200"
    finally:
        s.close()


def _no_sni(raw: socket.socket) -> ssl.SSLSocket:
    # Python sends no SNI when server_hostname is None (hostname checking off).
    ctx = ssl.create_default_context(cafile=str(CA))
    ctx.check_hostname = False
    ctx.set_alpn_protocols(["h2"])
    return ctx.wrap_socket(raw, server_hostname=None)


def test_many_short_connections(assert_alive):
    for _ in range(60):
        c = H2Client(assert_alive.dev_port)
        try:
            assert c.request().status == 200
        finally:
            c.close()
