"""HTTP/2 client helpers for the integration tests.

Two clients, both over a real TLS socket from Python's ``ssl`` module:

* ``H2Client`` drives the ``h2`` library (the HTTP/2 implementation that
  aioapns uses) and is the normal way to talk to Pushlab.
* ``RawH2`` writes and reads individual frames with ``hyperframe`` and
  ``hpack`` (h2's own building blocks). It is for tests where h2's state
  machine would stop us, e.g. it refuses to send anything once a GOAWAY has
  arrived, while RFC 9113 lets a client finish the streams the GOAWAY covers.
"""

from __future__ import annotations

import socket
import ssl
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional

import h2.config
import h2.connection
import h2.events
import hpack
from hyperframe.frame import (
    ContinuationFrame,
    DataFrame,
    Frame,
    GoAwayFrame,
    HeadersFrame,
    PingFrame,
    RstStreamFrame,
    SettingsFrame,
    WindowUpdateFrame,
)

from world import CERTS, DEV_TOKEN, REPO, auth_headers

CA = CERTS / "ca.pem"

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
BODY = b'{"aps":{"alert":"hi"}}'


def tls_context(alpn: Optional[Iterable[str]] = ("h2",), client_cert: bool = False) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=str(CA))
    if alpn is not None:
        ctx.set_alpn_protocols(list(alpn))
    if client_cert:
        ctx.load_cert_chain(str(CERTS / "client.pem"), str(CERTS / "client-key.pem"))
    return ctx


def tls_connect(port: int, alpn: Optional[Iterable[str]] = ("h2",), server_hostname: str = "localhost",
                timeout: float = 10.0, client_cert: bool = False, rcvbuf: Optional[int] = None) -> ssl.SSLSocket:
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        if rcvbuf:
            # Before connect(), so that the TCP window stays small: a slow reader.
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        raw.settimeout(timeout)
        raw.connect(("127.0.0.1", port))
        return tls_context(alpn, client_cert).wrap_socket(raw, server_hostname=server_hostname)
    except BaseException:
        raw.close()
        raise


class TLSPipe:
    """TLS over a non-blocking socket through memory BIOs, so that the test
    decides exactly when bytes are written and read (an SSLSocket with a
    timeout can leave a half-written record behind). Single-threaded."""

    def __init__(self, port: int, alpn: Optional[Iterable[str]] = ("h2",), rcvbuf: Optional[int] = None,
                 server_hostname: str = "localhost", timeout: float = 10.0):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(timeout)
        self.sock.connect(("127.0.0.1", port))
        self.sock.setblocking(False)
        self.incoming, self.outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.tls = tls_context(alpn).wrap_bio(self.incoming, self.outgoing, server_hostname=server_hostname)
        self.pending = b""        # ciphertext not yet taken by the kernel
        self.eof = False
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                self._flush_outgoing()
                self.pump(write=True, read=True, timeout=max(0.0, deadline - time.monotonic()))
                if time.monotonic() > deadline or self.eof:
                    raise ConnectionError("TLS handshake did not complete")
        self._flush_outgoing()

    def _flush_outgoing(self) -> None:
        data = self.outgoing.read()
        if data:
            self.pending += data

    def write(self, plaintext: bytes) -> None:
        """Queue bytes: encrypted now, sent by pump()."""
        self.tls.write(plaintext)
        self._flush_outgoing()

    def pump(self, write: bool = True, read: bool = True, timeout: float = 0.1) -> bytes:
        """Wait up to `timeout` for the socket; send queued ciphertext if `write`
        and it is writable, receive if `read` and readable. Returns plaintext read."""
        import select
        rlist = [self.sock] if read and not self.eof else []
        wlist = [self.sock] if write and self.pending else []
        if not rlist and not wlist:
            return b""
        r, w, _ = select.select(rlist, wlist, [], timeout)
        if w:
            try:
                n = self.sock.send(self.pending)
                self.pending = self.pending[n:]
            except (BlockingIOError, InterruptedError):
                pass
        out = b""
        if r:
            try:
                data = self.sock.recv(1 << 20)
            except (BlockingIOError, InterruptedError):
                data = None
            except ConnectionResetError:
                data = b""
            if data == b"":
                self.eof = True
                self.incoming.write_eof()
            elif data:
                self.incoming.write(data)
            while True:
                try:
                    chunk = self.tls.read(1 << 20)
                except (ssl.SSLWantReadError, ssl.SSLZeroReturnError, ssl.SSLEOFError):
                    break
                if not chunk:
                    break
                out += chunk
            self._flush_outgoing()     # e.g. TLS 1.3 session tickets, key updates
        return out

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


def request_headers(port: int, path: Optional[str] = None, method: str = "POST",
                    authority: str = "localhost", extra: Iterable[tuple[str, str]] = (),
                    token: str = DEV_TOKEN, auth: bool = True) -> list[tuple[str, str]]:
    """A valid APNs request to the development token (a provider token, the
    demo topic, push type alert) unless told otherwise."""
    return [
        (":method", method),
        (":scheme", "https"),
        (":authority", f"{authority}:{port}"),
        (":path", path or f"/3/device/{token}"),
        *(auth_headers() if auth else []),
        *extra,
    ]


@dataclass
class Response:
    headers: dict = field(default_factory=dict)   # str -> str (response HEADERS)
    data: bytes = b""
    data_frames: int = 0
    ended: bool = False
    reset: Optional[int] = None                    # RST_STREAM error code

    @property
    def status(self) -> Optional[int]:
        s = self.headers.get(":status")
        return int(s) if s is not None else None


class H2Client:
    """A client connection driven by the h2 library."""

    def __init__(self, port: int, alpn: Optional[Iterable[str]] = ("h2",), server_hostname: str = "localhost",
                 local_settings: Optional[dict] = None, timeout: float = 10.0, client_cert: bool = False,
                 rcvbuf: Optional[int] = None):
        self.port = port
        self.sock = tls_connect(port, alpn=alpn, server_hostname=server_hostname, timeout=timeout,
                                client_cert=client_cert, rcvbuf=rcvbuf)
        config = h2.config.H2Configuration(client_side=True, header_encoding="utf-8")
        self.conn = h2.connection.H2Connection(config=config)
        self.conn.initiate_connection()
        if local_settings:
            self.conn.update_settings(local_settings)
        self.events: list = []
        self.responses: dict[int, Response] = {}
        self.remote_settings_seen = False
        self.closed = False
        self.auto_ack_data = True
        self.flush()

    # -- plumbing -----------------------------------------------------------
    def flush(self) -> None:
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def read_once(self, timeout: float = 10.0, flush: bool = True) -> list:
        """Read one chunk from the socket and process it; [] on timeout or EOF.

        flush=False leaves h2's replies (ACKs, WINDOW_UPDATEs) queued, for when
        the socket is in the middle of another write.
        """
        if self.closed:
            return []
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(65536)
        except socket.timeout:
            return []
        except (ConnectionResetError, ssl.SSLError, OSError):
            data = b""
        if not data:
            self.closed = True
            return []
        events = self.conn.receive_data(data)
        for ev in events:
            self._track(ev)
        self.events.extend(events)
        if flush:
            self.flush()
        return events

    def _resp(self, stream_id: int) -> Response:
        return self.responses.setdefault(stream_id, Response())

    def _track(self, ev) -> None:
        if isinstance(ev, h2.events.RemoteSettingsChanged):
            self.remote_settings_seen = True
        elif isinstance(ev, h2.events.ResponseReceived):
            self._resp(ev.stream_id).headers.update(dict(ev.headers))
        elif isinstance(ev, h2.events.DataReceived):
            r = self._resp(ev.stream_id)
            r.data += ev.data
            r.data_frames += 1
            if self.auto_ack_data:
                self.conn.acknowledge_received_data(ev.flow_controlled_length, ev.stream_id)
        elif isinstance(ev, h2.events.StreamEnded):
            self._resp(ev.stream_id).ended = True
        elif isinstance(ev, h2.events.StreamReset):
            self._resp(ev.stream_id).reset = ev.error_code

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 15.0, what: str = "condition") -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"timed out after {timeout}s waiting for {what}")
            if self.closed:
                raise ConnectionError(f"connection closed while waiting for {what}")
            self.read_once(min(left, 1.0))

    def wait_settings(self, timeout: float = 10.0) -> None:
        self.wait_for(lambda: self.remote_settings_seen, timeout, "server SETTINGS")

    @property
    def max_streams(self) -> int:
        return self.conn.remote_settings.max_concurrent_streams

    def authenticate(self, want_streams: int = 1000, **kw) -> "Response":
        """A first valid push: APNs allows a token connection one stream until
        then, and announces the full limit after it (reference 6.2)."""
        self.wait_settings()
        r = self.request(**kw)
        assert r.status == 200, r
        self.wait_for(lambda: self.max_streams == want_streams, 10,
                      f"MAX_CONCURRENT_STREAMS {want_streams} after the first valid token (now {self.max_streams})")
        return r

    # -- requests -------------------------------------------------------------
    def start_request(self, body: Optional[bytes] = BODY, path: Optional[str] = None, method: str = "POST",
                      extra: Iterable[tuple[str, str]] = (), flush: bool = True,
                      wait_window: bool = False, auth: bool = True) -> int:
        sid = self.conn.get_next_available_stream_id()
        hdrs = request_headers(self.port, path=path, method=method, extra=extra, auth=auth)
        self.conn.send_headers(sid, hdrs, end_stream=not body)
        if body:
            if self.conn.local_flow_control_window(sid) < len(body):
                if not wait_window:
                    raise AssertionError("no flow-control window left for the request body")
                self.flush()
                self.wait_for(lambda: self.conn.local_flow_control_window(sid) >= len(body), 15,
                              f"a WINDOW_UPDATE from the server to send {len(body)} bytes on stream {sid}")
            self.conn.send_data(sid, body, end_stream=True)
        self._resp(sid)
        if flush:
            self.flush()
        return sid

    def request(self, timeout: float = 15.0, **kw) -> Response:
        sid = self.start_request(**kw)
        r = self.responses[sid]
        self.wait_for(lambda: r.ended or r.reset is not None, timeout, f"response on stream {sid}")
        return r

    def close(self) -> None:
        try:
            if not self.closed:
                self.conn.close_connection()
                self.flush()
        except Exception:
            pass
        try:
            self.sock.close()
        except Exception:
            pass


class PipeH2Client(H2Client):
    """H2Client over a TLSPipe: flush() only queues; bytes move in read_once()
    or write_only(). For tests that must write without reading."""

    def __init__(self, port: int, local_settings: Optional[dict] = None, rcvbuf: Optional[int] = None,
                 timeout: float = 10.0):
        self.port = port
        self.pipe = TLSPipe(port, rcvbuf=rcvbuf, timeout=timeout)
        self.sock = self.pipe.sock
        config = h2.config.H2Configuration(client_side=True, header_encoding="utf-8")
        self.conn = h2.connection.H2Connection(config=config)
        self.conn.initiate_connection()
        if local_settings:
            self.conn.update_settings(local_settings)
        self.events = []
        self.responses = {}
        self.remote_settings_seen = False
        self.closed = False
        self.auto_ack_data = True
        self.flush()

    def flush(self) -> None:
        data = self.conn.data_to_send()
        if data:
            self.pipe.write(data)

    def write_only(self, timeout: float = 0.2) -> bool:
        """Send queued bytes without reading; False if the socket took nothing."""
        before = len(self.pipe.pending)
        self.pipe.pump(write=True, read=False, timeout=timeout)
        return len(self.pipe.pending) < before

    def read_once(self, timeout: float = 10.0, flush: bool = True) -> list:
        if self.closed:
            return []
        data = self.pipe.pump(write=True, read=True, timeout=timeout)
        if not data:
            if self.pipe.eof:
                self.closed = True
            return []
        events = self.conn.receive_data(data)
        for ev in events:
            self._track(ev)
        self.events.extend(events)
        self.flush()
        return events

    def close(self) -> None:
        self.pipe.close()


class RawH2:
    """A frame-level HTTP/2 client: hpack + hyperframe over TLS, no state machine."""

    def __init__(self, port: int, alpn: Optional[Iterable[str]] = ("h2",), server_hostname: str = "localhost",
                 settings: Optional[dict] = None, timeout: float = 10.0, send_preface: bool = True,
                 rcvbuf: Optional[int] = None):
        self.port = port
        self.sock = tls_connect(port, alpn=alpn, server_hostname=server_hostname, timeout=timeout, rcvbuf=rcvbuf)
        self.encoder = hpack.Encoder()
        self.decoder = hpack.Decoder(max_header_list_size=1 << 20)
        self.buf = b""
        self.frames: list[Frame] = []
        self.closed = False
        self._header_block: Optional[tuple[Frame, bytes]] = None
        if send_preface:
            self.sock.sendall(PREFACE + SettingsFrame(0, settings=settings or {}).serialize())

    def send(self, *frames: Frame) -> None:
        self.sock.sendall(b"".join(f.serialize() for f in frames))

    def headers_frame(self, stream_id: int, headers: list[tuple[str, str]], end_stream: bool = False) -> HeadersFrame:
        flags = ["END_HEADERS"] + (["END_STREAM"] if end_stream else [])
        return HeadersFrame(stream_id, data=self.encoder.encode(headers), flags=flags)

    def send_headers(self, stream_id: int, headers: list[tuple[str, str]], end_stream: bool = False) -> None:
        self.send(self.headers_frame(stream_id, headers, end_stream))

    def send_data(self, stream_id: int, data: bytes, end_stream: bool = True) -> None:
        self.send(DataFrame(stream_id, data=data, flags=["END_STREAM"] if end_stream else []))

    def read_frame(self, timeout: float = 10.0) -> Optional[Frame]:
        """Next frame, or None on timeout/EOF (self.closed tells which).

        SETTINGS are acknowledged automatically. Complete header blocks get a
        ``decoded`` attribute (list of (name, value) str tuples).
        """
        deadline = time.monotonic() + timeout
        while True:
            if len(self.buf) >= 9:
                frame, length = Frame.parse_frame_header(memoryview(self.buf[:9]))
                if len(self.buf) >= 9 + length:
                    frame.parse_body(memoryview(self.buf[9:9 + length]))
                    self.buf = self.buf[9 + length:]
                    self._on_frame(frame)
                    self.frames.append(frame)
                    return frame
            if self.closed:
                return None
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                return None
            except (ConnectionResetError, ssl.SSLError, OSError):
                data = b""
            if not data:
                self.closed = True
            self.buf += data

    def _on_frame(self, frame: Frame) -> None:
        if isinstance(frame, SettingsFrame) and "ACK" not in frame.flags:
            try:
                self.send(SettingsFrame(0, flags=["ACK"]))
            except OSError:
                pass
        if isinstance(frame, HeadersFrame):
            if "END_HEADERS" in frame.flags:
                frame.decoded = [(k.decode(), v.decode()) for k, v in self.decoder.decode(frame.data, raw=True)]
            else:
                self._header_block = (frame, frame.data)
        elif isinstance(frame, ContinuationFrame) and self._header_block:
            first, block = self._header_block
            block += frame.data
            if "END_HEADERS" in frame.flags:
                first.decoded = [(k.decode(), v.decode()) for k, v in self.decoder.decode(block, raw=True)]
                self._header_block = None
            else:
                self._header_block = (first, block)

    def read_until(self, predicate: Callable[[Frame], bool], timeout: float = 10.0) -> Optional[Frame]:
        """Read frames until one matches; returns it, or None on timeout/EOF."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            f = self.read_frame(left)
            if f is None:
                if self.closed or time.monotonic() >= deadline:
                    return None
                continue
            if predicate(f):
                return f

    def max_streams_announced(self) -> Optional[int]:
        """The latest MAX_CONCURRENT_STREAMS the server announced."""
        value = None
        for f in self.frames:
            if isinstance(f, SettingsFrame) and "ACK" not in f.flags and SettingsFrame.MAX_CONCURRENT_STREAMS in f.settings:
                value = f.settings[SettingsFrame.MAX_CONCURRENT_STREAMS]
        return value

    def authenticate(self, stream_id: int = 1, want_streams: Optional[int] = 1000, body: bytes = BODY,
                     timeout: float = 10.0) -> HeadersFrame:
        """A first valid push on `stream_id`; waits for its 200 and (when
        want_streams is set) for the SETTINGS that lifts the stream limit."""
        self.send_headers(stream_id, request_headers(self.port))
        self.send_data(stream_id, body)
        f = self.read_until(lambda f: isinstance(f, (HeadersFrame, RstStreamFrame, GoAwayFrame))
                            and f.stream_id in (stream_id, 0), timeout)
        assert isinstance(f, HeadersFrame), f"no response to the first push: {self.frames}"
        assert dict(f.decoded)[":status"] == "200", f.decoded
        if want_streams is not None and self.max_streams_announced() != want_streams:
            self.read_until(lambda f: self.max_streams_announced() == want_streams, timeout)
            assert self.max_streams_announced() == want_streams, self.frames
        return f

    def read_all(self, timeout: float = 10.0) -> list[Frame]:
        """Read frames until EOF or until `timeout` passes with nothing new."""
        out = []
        while True:
            f = self.read_frame(timeout)
            if f is None:
                return out
            out.append(f)

    def close(self) -> None:
        try:
            self.sock.close()
        except Exception:
            pass


def is_stream_frame(f: Frame, stream_id: int, kind: type) -> bool:
    return isinstance(f, kind) and f.stream_id == stream_id


__all__ = [
    "BODY", "CA", "CERTS", "PREFACE", "REPO", "H2Client", "RawH2", "Response",
    "request_headers", "tls_connect", "tls_context", "is_stream_frame",
    "ContinuationFrame", "DataFrame", "GoAwayFrame", "HeadersFrame", "PingFrame", "RstStreamFrame",
    "SettingsFrame", "WindowUpdateFrame",
]
