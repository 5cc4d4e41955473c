"""Broadcast push and channel management (iOS 18 Live Activities) against the built binary:
Python's h2 over TLS for the wire shapes, curl for GET and DELETE, and `pushlab channels` /
`pushlab send --channel` as a user runs them."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import time
import urllib.request
import uuid

import pytest

from conftest import CERTS, REPO, PushlabServer, _finish, tool, wait_for_binary
from h2util import H2Client
from world import DEV_TOKEN, KEY_ID, OTHER_TOPIC, TEAM_ID, TOPIC, provider_token

BANNER_MANAGEMENT = re.compile(
    r"^\s*development\s+https://([^\s:]+):(\d+)\s+\(as api-manage-broadcast\.sandbox\.push\.apple\.com\)", re.M)
LOWER_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
STORE_RECENT = b'{"message-storage-policy":1,"push-type":"LiveActivity"}'
STORE_NONE = b'{"message-storage-policy":0,"push-type":"LiveActivity"}'
UPDATE = b'{"aps":{"timestamp":1767225600,"event":"update","content-state":{"score":1}}}'
KEY = ["--key", str(CERTS / f"AuthKey_{KEY_ID}.p8"), "--key-id", KEY_ID, "--team-id", TEAM_ID]


@pytest.fixture(scope="module")
def broadcast_server(tmp_path_factory) -> PushlabServer:
    """A pushlab with its channel management listener on a free port (`management_port`)."""
    srv = PushlabServer(tmp_path_factory.mktemp("pushlab"), extra_args=("--channel-management-port", "0")).start()
    match = BANNER_MANAGEMENT.search(srv.stdout())
    assert match, srv.stdout()
    srv.management_port = int(match.group(2))
    try:
        yield srv
    finally:
        _finish(srv)


class ChannelAPI:
    """One h2 connection speaking the broadcast and channel management API."""

    def __init__(self, port: int, client_cert: bool = False):
        self.client = H2Client(port, client_cert=client_cert)
        self.client.wait_settings()
        self.client_cert = client_cert

    def __call__(self, method: str, path: str, headers=(), body: bytes | None = None, auth: bool = True):
        extra = [("authorization", f"bearer {provider_token()}")] if auth and not self.client_cert else []
        return self.client.request(method=method, path=path, body=body, extra=[*extra, *headers], auth=False)

    def create(self, bundle: str = TOPIC, body: bytes = STORE_RECENT, headers=()):
        return self("POST", f"/1/apps/{bundle}/channels", headers, body)

    def new_channel(self, body: bytes = STORE_RECENT) -> str:
        r = self.create(body=body)
        assert r.status == 201, (r.headers, r.data)
        return r.headers["apns-channel-id"]

    def broadcast(self, channel: str | None, bundle: str = TOPIC, push_type: str | None = "liveactivity",
                  headers=(), body: bytes | None = UPDATE):
        extra = [*([("apns-channel-id", channel)] if channel is not None else []),
                 *([("apns-push-type", push_type)] if push_type else []), *headers]
        return self("POST", f"/4/broadcasts/apps/{bundle}", extra, body)

    def close(self):
        self.client.close()


@pytest.fixture
def management(broadcast_server):
    api = ChannelAPI(broadcast_server.management_port)
    yield api
    api.close()


@pytest.fixture
def provider(broadcast_server):
    api = ChannelAPI(broadcast_server.dev_port)
    yield api
    api.close()


def reason(r) -> str | None:
    assert r.headers.get("content-type") == "application/json", r.headers
    # Unnamed or badly named requests get a fresh lower-case id, as Apple's (A10).
    assert LOWER_UUID.match(r.headers.get("apns-request-id", "")), r.headers
    assert "apns-id" not in r.headers, r.headers
    return json.loads(r.data)["reason"]


def test_create_read_list_broadcast_delete(management, provider):
    request_id = str(uuid.uuid4())
    created = management.create(headers=[("apns-request-id", request_id)])
    assert created.status == 201, created.data
    assert created.headers["apns-request-id"] == request_id
    assert created.data == b"" and "content-type" not in created.headers
    channel = created.headers["apns-channel-id"]
    assert len(base64.b64decode(channel, validate=True)) == 16

    read = management("GET", f"/1/apps/{TOPIC}/channels", [("apns-channel-id", channel)])
    assert read.status == 200
    assert read.headers["content-type"] == "application/json"
    assert LOWER_UUID.match(read.headers["apns-request-id"])
    assert json.loads(read.data) == {"message-storage-policy": 1, "push-type": "LiveActivity"}

    listed = management("GET", f"/1/apps/{TOPIC}/all-channels")
    assert listed.status == 200 and channel in json.loads(listed.data)["channels"]

    sent = provider.broadcast(channel, headers=[("apns-priority", "5"), ("apns-expiration", "0")])
    assert sent.status == 200, sent.data
    assert sent.data == b"" and LOWER_UUID.match(sent.headers["apns-request-id"]) and "apns-id" not in sent.headers

    deleted = management("DELETE", f"/1/apps/{TOPIC}/channels", [("apns-channel-id", channel)])
    assert deleted.status == 204 and deleted.data == b""
    gone = management("GET", f"/1/apps/{TOPIC}/channels", [("apns-channel-id", channel)])
    assert gone.status == 400 and reason(gone) == "ChannelNotRegistered"
    assert reason(provider.broadcast(channel)) == "ChannelNotRegistered"


def test_each_listener_serves_its_apis(broadcast_server, management, provider):
    on_management = management("POST", f"/3/device/{DEV_TOKEN}", [("apns-topic", TOPIC)], b'{"aps":{"alert":"hi"}}')
    assert on_management.status == 404 and reason(on_management) == "BadPath"
    assert reason(management.broadcast("dHN0LXNyY2gtY2hubA==")) == "BadPath"
    # The development provider listener serves channel management too (lenient, as 2196 does).
    channel = provider.new_channel()
    assert provider.broadcast(channel).status == 200


def test_a_certificate_connection_manages_its_topics_channels(broadcast_server):
    api = ChannelAPI(broadcast_server.management_port, client_cert=True)
    try:
        assert api.create().status == 201
        assert reason(api.create(bundle=OTHER_TOPIC)) == "TopicMismatch"
    finally:
        api.close()


@pytest.mark.parametrize("case,expected", [
    ("missing channel id", "MissingChannelId"),
    ("bad channel id", "BadChannelId"),
    ("unknown channel", "ChannelNotRegistered"),
    ("missing push type", "MissingPushType"),
    ("alert push type", "InvalidPushType"),
    ("expiration on a channel that stores nothing", "BadExpirationDate"),
    ("5121 bytes", "PayloadTooLarge"),
    ("suffixed bundle", "TopicDisallowed"),
    ("another team's bundle", "TopicMismatch"),
    ("priority 7", "BadPriority"),
    ("not json", "BadRequestPayload"),
    ("no body", "PayloadEmpty"),
    ("bad request id", "BadMessageId"),
    ("GET", "MethodNotAllowed"),
])
def test_broadcast_errors(provider, case, expected):
    channel = provider.new_channel(body=STORE_NONE)
    r = {
        "missing channel id": lambda: provider.broadcast(None),
        "bad channel id": lambda: provider.broadcast("not base64!"),
        "unknown channel": lambda: provider.broadcast("dHN0LXNyY2gtY2hubA=="),
        "missing push type": lambda: provider.broadcast(channel, push_type=None),
        "alert push type": lambda: provider.broadcast(channel, push_type="alert"),
        "expiration on a channel that stores nothing": lambda: provider.broadcast(channel, headers=[("apns-expiration", "1767229200")]),
        "5121 bytes": lambda: provider.broadcast(channel, body=b'{"pad":"' + b"x" * 5111 + b'"}'),
        "suffixed bundle": lambda: provider.broadcast(channel, bundle=TOPIC + ".push-type.liveactivity"),
        "another team's bundle": lambda: provider.broadcast(channel, bundle=OTHER_TOPIC),
        "priority 7": lambda: provider.broadcast(channel, headers=[("apns-priority", "7")]),
        "not json": lambda: provider.broadcast(channel, body=b"hello"),
        "no body": lambda: provider.broadcast(channel, body=None),
        "bad request id": lambda: provider.broadcast(channel, headers=[("apns-request-id", "nope")]),
        "GET": lambda: provider("GET", f"/4/broadcasts/apps/{TOPIC}", [("apns-channel-id", channel)]),
    }[case]()
    assert reason(r) == expected
    status = {"PayloadTooLarge": 413, "TopicMismatch": 403, "MethodNotAllowed": 405}.get(expected, 400)
    assert r.status == status


@pytest.mark.parametrize("body,expected", [
    (b'{"message-storage-policy":1,"push-type":"LiveActivity","extra":1}', "BadRequestParams"),
    (b'{"message-storage-policy":3,"push-type":"LiveActivity"}', "BadRequestParams"),
    (b'{"message-storage-policy":1,"push-type":"alert"}', "BadRequestParams"),
    (b"{not json", "BadRequestPayload"),
])
def test_create_errors(management, body, expected):
    assert reason(management.create(body=body)) == expected


def test_authentication_errors(management):
    assert reason(management("GET", f"/1/apps/{TOPIC}/all-channels", auth=False)) == "MissingProviderToken"
    r = management("GET", f"/1/apps/{TOPIC}/all-channels", [("authorization", "bearer a.b.c")], auth=False)
    assert r.status == 403 and reason(r) == "InvalidProviderToken"


@pytest.mark.parametrize("api", ["provider", "management"])
def test_authentication_is_checked_before_the_channel(request, api):
    """ "If authentication succeeds, APNs then validates the channel ID" (Apple, "Sending
    broadcast push notification requests to APNs"): no token and a malformed channel is 403."""
    client = request.getfixturevalue(api)
    bad = [("apns-channel-id", "not base64!")]
    if api == "provider":
        r = client("POST", f"/4/broadcasts/apps/{TOPIC}", [*bad, ("apns-push-type", "liveactivity")], UPDATE, auth=False)
        assert r.status == 403 and reason(r) == "MissingProviderToken"
    for method in ("GET", "DELETE"):
        r = client(method, f"/1/apps/{TOPIC}/channels", bad, auth=False)
        assert r.status == 403 and reason(r) == "MissingProviderToken"
        r = client(method, f"/1/apps/{TOPIC}/channels", [*bad, ("authorization", "bearer a.b.c")], auth=False)
        assert r.status == 403 and reason(r) == "InvalidProviderToken"
    # Authenticated, the same channel id is the channel's error.
    assert reason(client(method, f"/1/apps/{TOPIC}/channels", bad)) == "BadChannelId"


def curl(*args: str) -> tuple[int, dict, bytes]:
    p = subprocess.run([tool("curl"), "-sS", "--max-time", "20", "--http2", "--cacert", str(CERTS / "ca.pem"),
                        "-D", "-", "-H", f"authorization: bearer {provider_token()}", *args],
                       cwd=REPO, capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr.decode()
    head, _, body = p.stdout.partition(b"\r\n\r\n")
    lines = head.decode().splitlines()
    headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:] if ":" in line)}
    return int(lines[0].split()[1]), headers, body


def test_curl_creates_reads_and_deletes(broadcast_server):
    base = f"https://127.0.0.1:{broadcast_server.management_port}/1/apps/{TOPIC}"
    status, headers, _ = curl("-X", "POST", "--data-binary", STORE_NONE.decode(), f"{base}/channels")
    assert status == 201, headers
    channel = headers["apns-channel-id"]
    status, headers, body = curl("-H", f"apns-channel-id: {channel}", f"{base}/channels")
    assert status == 200 and json.loads(body) == {"message-storage-policy": 0, "push-type": "LiveActivity"}
    status, headers, body = curl("-X", "DELETE", "-H", f"apns-channel-id: {channel}", f"{base}/channels")
    assert status == 204 and body == b"" and "apns-request-id" in headers
    status, _, body = curl(f"{base}/all-channels")
    assert status == 200 and channel not in json.loads(body)["channels"]


def pushlab(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(wait_for_binary()), *args, "--ca", str(CERTS / "ca.pem"), *KEY],
                          cwd=REPO, capture_output=True, text=True, timeout=60)


def test_pushlab_channels_and_send_channel(broadcast_server):
    server = ["--server", f"127.0.0.1:{broadcast_server.management_port}"]
    created = pushlab("channels", "create", TOPIC, "--storage", "most-recent", "--json", *server)
    assert created.returncode == 0, created.stderr
    answer = json.loads(created.stdout)
    assert answer["status"] == 201 and LOWER_UUID.match(answer["apnsRequestId"])
    channel = answer["channelId"]

    listed = pushlab("channels", "list", TOPIC, *server)
    assert listed.returncode == 0 and channel in listed.stdout.splitlines()
    read = pushlab("channels", "read", TOPIC, channel, *server)
    assert read.returncode == 0 and '"message-storage-policy":1' in read.stdout

    sent = pushlab("send", "--channel", channel, "--topic", TOPIC, "--payload", UPDATE.decode(),
                   "--server", f"127.0.0.1:{broadcast_server.dev_port}")
    assert sent.returncode == 0, sent.stderr
    assert sent.stdout.startswith("200  accepted  apns-request-id: ")

    deleted = pushlab("channels", "delete", TOPIC, channel, *server)
    assert deleted.returncode == 0 and "204  deleted" in deleted.stdout
    again = pushlab("channels", "delete", TOPIC, channel, *server)
    assert again.returncode == 1 and again.stdout.startswith("400  ChannelNotRegistered")


def test_broadcasts_are_in_the_request_history(broadcast_server, provider):
    channel = provider.new_channel()
    assert provider.broadcast(channel).status == 200
    deadline = time.monotonic() + 10
    while True:
        with urllib.request.urlopen(f"{broadcast_server.control_url}/v1/pushes?limit=20") as response:
            pushes = json.loads(response.read())["pushes"]
        broadcasts = [p for p in pushes if p.get("pushType") == "liveactivity" and p["status"] == 200]
        if broadcasts or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert broadcasts, pushes
    assert broadcasts[0]["topic"] == TOPIC and "deviceToken" not in broadcasts[0]
