"""Graceful shutdown: SIGTERM/SIGINT -> GOAWAY {"reason":"Shutdown"}, in-flight
streams finish, the process exits 0. Each test runs its own server."""

from __future__ import annotations

import signal
import subprocess
import time

import h2.events
import pytest
from h2.errors import ErrorCodes

from h2util import (
    BODY,
    GoAwayFrame,
    H2Client,
    HeadersFrame,
    PingFrame,
    RawH2,
    RstStreamFrame,
    SettingsFrame,
    request_headers,
)

SHUTDOWN = b'{"reason":"Shutdown"}'
EXIT_WITHIN = 8.0   # a hang guard, well below the default 10 s grace period


def sync(c: RawH2, payload: bytes = b"syncsync") -> None:
    """PING round trip: everything we sent before it has been processed."""
    c.send(PingFrame(0, opaque_data=payload))
    f = c.read_until(lambda f: isinstance(f, PingFrame) and "ACK" in f.flags and f.opaque_data == payload, 10)
    assert f is not None, c.frames


def connect(port: int) -> RawH2:
    c = RawH2(port)
    s = c.read_until(lambda f: isinstance(f, SettingsFrame) and "ACK" not in f.flags, 10)
    assert s is not None
    return c


def wait_exit(srv, timeout: float = EXIT_WITHIN) -> int:
    try:
        return srv.wait(timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"pushlab still running {timeout}s after the signal\n{srv.describe()}")


def test_sigterm_in_flight_stream_finishes(fresh_server):
    srv = fresh_server()
    port = srv.dev_port
    c = connect(port)
    try:
        c.authenticate(stream_id=1)      # the connection may now open many streams
        apns_id = "5A1B2C3D-4E5F-4061-8273-94A5B6C7D8E9"
        # A request in flight: HEADERS only, no END_STREAM.
        c.send_headers(3, request_headers(port, extra=[("apns-id", apns_id)]))
        sync(c)
        srv.send_signal(signal.SIGTERM)
        g = c.read_until(lambda f: isinstance(f, GoAwayFrame), 10)
        assert g is not None, f"no GOAWAY after SIGTERM: {c.frames}"
        assert g.error_code == ErrorCodes.NO_ERROR
        assert g.additional_data == SHUTDOWN
        assert g.last_stream_id == 3, f"GOAWAY last_stream_id={g.last_stream_id}, in-flight stream is 3"
        # The stream is finished after the GOAWAY and is still answered.
        c.send_data(3, BODY, end_stream=True)
        # And a new stream, above last_stream_id, must not be processed.
        try:
            c.send_headers(5, request_headers(port))
            c.send_data(5, BODY, end_stream=True)
        except OSError:
            pass    # already closed: the server was done with stream 3
        rest = c.read_all(10)
        assert c.closed, f"the connection was not closed after the last stream: {rest}"
        resp = [f for f in rest if isinstance(f, HeadersFrame) and f.stream_id == 3]
        assert len(resp) == 1, rest
        assert dict(resp[0].decoded)[":status"] == "200"
        assert dict(resp[0].decoded)["apns-id"] == apns_id
        assert "END_STREAM" in resp[0].flags
        # RFC 9113 6.8: streams above last_stream_id are ignored (or refused); never answered.
        later = [f for f in rest if f.stream_id == 5]
        assert all(isinstance(f, RstStreamFrame) and f.error_code == ErrorCodes.REFUSED_STREAM for f in later), later
        # Any further GOAWAY must not raise last_stream_id (RFC 9113 6.8).
        for f in rest:
            if isinstance(f, GoAwayFrame):
                assert f.last_stream_id <= g.last_stream_id
    finally:
        c.close()
    assert wait_exit(srv) == 0


def test_sigint_idle_connections_on_both_ports(fresh_server):
    srv = fresh_server()
    conns = [connect(srv.dev_port), connect(srv.prod_port), connect(srv.dev_port)]
    try:
        for c in conns:
            sync(c)
        srv.send_signal(signal.SIGINT)
        for c in conns:
            g = c.read_until(lambda f: isinstance(f, GoAwayFrame), 10)
            assert g is not None, c.frames
            assert (g.error_code, g.additional_data, g.last_stream_id) == (ErrorCodes.NO_ERROR, SHUTDOWN, 0)
            c.read_all(10)
            assert c.closed
    finally:
        for c in conns:
            c.close()
    assert wait_exit(srv) == 0


def test_completed_streams_then_sigterm(fresh_server):
    srv = fresh_server()
    c = H2Client(srv.dev_port)
    try:
        for _ in range(5):
            assert c.request().status == 200
        srv.send_signal(signal.SIGTERM)
        c.wait_for(lambda: any(isinstance(e, h2.events.ConnectionTerminated) for e in c.events), 10, "GOAWAY")
        (t,) = [e for e in c.events if isinstance(e, h2.events.ConnectionTerminated)]
        # h2's view, as aioapns sees it.
        assert t.error_code == ErrorCodes.NO_ERROR
        assert t.additional_data == SHUTDOWN
        assert t.last_stream_id == 9
    finally:
        c.close()
    assert wait_exit(srv) == 0


def test_grace_period_ends_an_unfinished_stream(fresh_server):
    srv = fresh_server("--shutdown-grace-period", "1")
    c = connect(srv.dev_port)
    try:
        c.send_headers(1, request_headers(srv.dev_port))   # never finished
        sync(c)
        srv.send_signal(signal.SIGTERM)
        g = c.read_until(lambda f: isinstance(f, GoAwayFrame), 10)
        assert g is not None and g.additional_data == SHUTDOWN and g.last_stream_id == 1
        rest = c.read_all(EXIT_WITHIN)
        assert c.closed, f"connection still open {EXIT_WITHIN}s after a 1 s grace period: {rest}"
        assert not any(isinstance(f, HeadersFrame) for f in rest), rest
    finally:
        c.close()
    assert wait_exit(srv) == 0


def test_no_new_connections_after_sigterm(fresh_server):
    srv = fresh_server("--shutdown-grace-period", "5")
    c = connect(srv.dev_port)
    try:
        c.send_headers(1, request_headers(srv.dev_port))   # keeps the server in its grace period
        sync(c)
        srv.send_signal(signal.SIGTERM)
        assert c.read_until(lambda f: isinstance(f, GoAwayFrame), 10) is not None
        # A new connection now is refused, or gets GOAWAY at once and no service.
        try:
            late = H2Client(srv.dev_port, timeout=5)
        except OSError:
            late = None
        if late is not None:
            try:
                late.start_request()
                deadline = time.monotonic() + 5
                while not late.closed and time.monotonic() < deadline:
                    late.read_once(0.5)
                assert all(r.status != 200 for r in late.responses.values()), late.responses
            finally:
                late.close()
        c.send_data(1, BODY)
        f = c.read_until(lambda f: isinstance(f, HeadersFrame), 10)
        assert f is not None and dict(f.decoded)[":status"] == "200"
    finally:
        c.close()
    assert wait_exit(srv) == 0
