"""nghttp -nv: Pushlab's frames exactly as they come off the wire."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field

import pytest

from conftest import CERTS, REPO, tool
from world import DEV_TOKEN, PROD_TOKEN, TOPIC, dev_token, provider_token

TOKEN = DEV_TOKEN
BODY = b'{"aps":{"alert":"Hello from nghttp"}}'

FRAME = re.compile(r"^\[\s*[\d.]+\]\s+(send|recv)\s+(\w+)\s+frame\s+<length=(\d+),\s*flags=0x([0-9a-f]+),\s*stream_id=(\d+)>")
SETTING = re.compile(r"^\s+\[SETTINGS_(\w+)\(0x[0-9a-f]+\):(\d+)\]")
HEADER = re.compile(r"^\[\s*[\d.]+\]\s+recv\s+\(stream_id=(\d+)(?:, sensitive)?\)\s+(\S+):\s?(.*)$")


@dataclass
class NgFrame:
    direction: str
    type: str
    length: int
    flags: int
    stream_id: int
    details: list = field(default_factory=list)


@dataclass
class NgRun:
    returncode: int
    output: str
    frames: list
    headers: dict            # stream id -> {name: value} received

    def recv(self, type_=None, stream_id=None):
        return [f for f in self.frames if f.direction == "recv"
                and (type_ is None or f.type == type_) and (stream_id is None or f.stream_id == stream_id)]


def auth() -> list[str]:
    return ["-H", f"authorization: bearer {provider_token()}", "-H", f"apns-topic: {TOPIC}",
            "-H", "apns-push-type: alert"]


CERT = ["--cert", str(CERTS / "client.pem"), "--key", str(CERTS / "client-key.pem")]


def nghttp(*args: str) -> NgRun:
    cmd = [tool("nghttp"), "-nv", "--timeout=20", *auth(), *args]
    p = subprocess.run(cmd, cwd=REPO, capture_output=True, timeout=60)
    out = p.stdout.decode(errors="replace") + p.stderr.decode(errors="replace")
    frames, headers = [], {}
    for line in out.splitlines():
        m = FRAME.match(line)
        if m:
            frames.append(NgFrame(m.group(1), m.group(2), int(m.group(3)), int(m.group(4), 16), int(m.group(5))))
            continue
        h = HEADER.match(line)
        if h:
            headers.setdefault(int(h.group(1)), {})[h.group(2)] = h.group(3)
            continue
        if frames and line.startswith(" "):
            frames[-1].details.append(line)
    return NgRun(p.returncode, out, frames, headers)


def settings_of(frame: NgFrame) -> dict:
    out = {}
    for line in frame.details:
        m = SETTING.match(line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


@pytest.fixture
def body_file(tmp_path):
    p = tmp_path / "body.json"
    p.write_bytes(BODY)
    return p


def url(port: int, path: str = f"/3/device/{TOKEN}") -> str:
    return f"https://127.0.0.1:{port}{path}"


def first_server_settings(run: NgRun) -> dict:
    settings = [f for f in run.recv("SETTINGS") if not f.flags & 0x01]
    assert settings, run.output
    assert settings[0].stream_id == 0
    return settings_of(settings[0])


EXPECTED_SETTINGS = {
    "HEADER_TABLE_SIZE": 4096,
    "MAX_CONCURRENT_STREAMS": 1000,
    "INITIAL_WINDOW_SIZE": 65535,
    "MAX_FRAME_SIZE": 16384,
    "MAX_HEADER_LIST_SIZE": 8000,
}


def later_max_streams(run: NgRun) -> list:
    """MAX_CONCURRENT_STREAMS values of the server's SETTINGS frames after the first."""
    frames = [f for f in run.recv("SETTINGS") if not f.flags & 0x01][1:]
    return [settings_of(f).get("MAX_CONCURRENT_STREAMS") for f in frames]


@pytest.mark.parametrize("which", ["dev", "prod"])
def test_initial_settings_token_connection(server, body_file, which):
    """Reference 6.2: a token connection gets one stream until its first valid
    provider token, then the full limit in a new SETTINGS frame."""
    port, token = (server.dev_port, DEV_TOKEN) if which == "dev" else (server.prod_port, PROD_TOKEN)
    run = nghttp("-d", str(body_file), url(port, f"/3/device/{token}"))
    assert run.returncode == 0, run.output
    assert "The negotiated protocol: h2" in run.output
    assert first_server_settings(run) == {**EXPECTED_SETTINGS, "MAX_CONCURRENT_STREAMS": 1}, run.output
    # The server's first frame is its SETTINGS (the connection preface).
    assert run.recv()[0].type == "SETTINGS" and not run.recv()[0].flags & 0x01
    # And it acknowledges ours.
    assert any(f.flags == 0x01 for f in run.recv("SETTINGS")), run.output
    assert later_max_streams(run) == [1000], run.output
    (sid,) = run.headers
    assert run.headers[sid][":status"] == "200"


@pytest.mark.parametrize("which", ["dev", "prod"])
def test_initial_settings_certificate_connection(server, body_file, which):
    port, token = (server.dev_port, DEV_TOKEN) if which == "dev" else (server.prod_port, PROD_TOKEN)
    run = nghttp(*CERT, "-d", str(body_file), url(port, f"/3/device/{token}"))
    assert run.returncode == 0, run.output
    assert first_server_settings(run) == EXPECTED_SETTINGS, run.output
    assert later_max_streams(run) == [], run.output
    (sid,) = run.headers
    assert run.headers[sid][":status"] == "200"


def test_max_concurrent_streams_flag_is_announced(fresh_server, body_file):
    srv = fresh_server("--max-concurrent-streams", "250")
    run = nghttp(*CERT, "-d", str(body_file), url(srv.dev_port))
    assert run.returncode == 0, run.output
    assert first_server_settings(run) == {**EXPECTED_SETTINGS, "MAX_CONCURRENT_STREAMS": 250}
    run = nghttp("-d", str(body_file), url(srv.dev_port))
    assert run.returncode == 0, run.output
    assert first_server_settings(run)["MAX_CONCURRENT_STREAMS"] == 1
    assert later_max_streams(run) == [250], run.output
    assert srv.stop() == 0


def test_success_is_one_headers_frame_with_end_stream(server, body_file):
    run = nghttp("-d", str(body_file), url(server.dev_port))
    assert run.returncode == 0, run.output
    streams = {f.stream_id for f in run.recv("HEADERS")}
    assert len(streams) == 1, run.output
    sid = streams.pop()
    headers = run.recv("HEADERS", sid)
    assert len(headers) == 1, run.output
    assert headers[0].flags == 0x05, f"flags 0x{headers[0].flags:02x}, want END_STREAM|END_HEADERS\n{run.output}"
    assert run.recv("DATA", sid) == [], f"a 200 must carry no DATA frame\n{run.output}"
    assert run.recv("CONTINUATION") == []
    assert run.recv("RST_STREAM") == []
    assert run.headers[sid][":status"] == "200"
    assert re.fullmatch(r"[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}", run.headers[sid]["apns-id"])
    # Development adds apns-unique-id (reference 1.4).
    assert set(run.headers[sid]) == {":status", "apns-id", "apns-unique-id"}, run.headers[sid]


def test_production_success_headers(server, body_file):
    run = nghttp("-d", str(body_file), url(server.prod_port, f"/3/device/{PROD_TOKEN}"))
    assert run.returncode == 0, run.output
    (sid,) = run.headers
    (frame,) = run.recv("HEADERS", sid)
    assert frame.flags == 0x05 and run.recv("DATA", sid) == []
    assert set(run.headers[sid]) == {":status", "apns-id"}, run.headers[sid]


@pytest.mark.parametrize("args,path,status,reason", [
    ((), f"/3/device/{TOKEN}", 405, "MethodNotAllowed"),           # nghttp without -d sends GET
    (("-d", "BODY"), "/3/nope", 404, "BadPath"),
])
def test_error_is_headers_then_one_data_frame(server, body_file, args, path, status, reason):
    args = tuple(str(body_file) if a == "BODY" else a for a in args)
    run = nghttp(*args, url(server.dev_port, path))
    assert run.returncode == 0, run.output
    (sid,) = {f.stream_id for f in run.recv("HEADERS")}
    headers = run.recv("HEADERS", sid)
    data = run.recv("DATA", sid)
    assert len(headers) == 1 and headers[0].flags == 0x04, f"want HEADERS with END_HEADERS only\n{run.output}"
    body = f'{{"reason":"{reason}"}}'.encode()
    assert len(data) == 1, f"want exactly one DATA frame\n{run.output}"
    assert data[0].flags == 0x01 and data[0].length == len(body), run.output
    # The DATA frame comes after the HEADERS frame.
    assert run.frames.index(headers[0]) < run.frames.index(data[0])
    assert run.headers[sid][":status"] == str(status)
    assert run.headers[sid]["content-type"] == "application/json"
    assert "apns-id" in run.headers[sid]


@pytest.mark.parametrize("auth_kind", ["certificate", "token"])
def test_many_streams_one_connection(server, body_file, auth_kind):
    # With a token, nghttp has to wait for the first answer (one stream allowed) before the rest.
    # nghttp fetches each distinct URI once, so vary the device token.
    urls = [url(server.dev_port, f"/3/device/{dev_token(i)}") for i in range(10)] + [url(server.dev_port, "/bad")]
    run = nghttp(*(CERT if auth_kind == "certificate" else []), "-d", str(body_file), *urls)
    assert run.output.count("[WARNING] Certificate verification failed") <= 1
    statuses = sorted(h[":status"] for h in run.headers.values())
    if auth_kind == "certificate":
        assert run.returncode == 0, run.output
        assert statuses == ["200"] * 10 + ["404"], (run.headers, run.output[-6000:])
    else:
        # "APNs allows only one stream until you post a request with a valid authentication
        # token": nghttp opens its streams before it reads SETTINGS, so the ones beyond the
        # first that the server saw before the token was valid are refused, not answered.
        refused = [sid for sid in range(1, 64, 2) if run.recv("RST_STREAM", sid)]
        assert statuses and set(statuses) <= {"200", "404"}, run.output[-6000:]
        assert len(statuses) + len(refused) == 11, (statuses, refused, run.output[-6000:])
        assert all("error_code=REFUSED_STREAM" in run.output or "error_code=7" in run.output for _ in refused[:1])
    ids = [h["apns-id"] for h in run.headers.values()]
    assert len(set(ids)) == len(ids)
    for sid, h in run.headers.items():
        (frame,) = run.recv("HEADERS", sid)
        if h[":status"] == "200":
            assert frame.flags == 0x05 and not run.recv("DATA", sid)
        else:
            assert frame.flags == 0x04 and len(run.recv("DATA", sid)) == 1
