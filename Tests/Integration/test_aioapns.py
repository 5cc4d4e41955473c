"""aioapns, a real APNs client library from PyPI, pointed at Pushlab.

aioapns has no host/port option: it connects to
`APNs{Development,Production}ClientProtocol.APNS_SERVER` on `APNS_PORT` (443)
(see aioapns/connection.py, `_create_connection`). We patch those class
attributes, or resolve Apple's host names to 127.0.0.1, and hand it an
ssl_context that trusts certs/ca.pem. aioapns never offers ALPN, so this also
checks that Pushlab serves HTTP/2 to a client that negotiated no protocol.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import ssl
import uuid

import pytest
from aioapns import APNs, NotificationRequest, PushType
from aioapns import connection as aioapns_connection

from conftest import CERTS
from world import (
    DEV_TOKEN,
    DEV_UNREGISTERED_TOKEN,
    DEV_VOIP_TOKEN,
    GONE_SINCE_MS,
    KEY_ID,
    OTHER_TOPIC,
    PROD_EXPIRED_TOKEN,
    PROD_TOKEN,
    TEAM_ID,
    TOPIC,
    UNKNOWN_KEY_ID,
    UNKNOWN_TOKEN,
    VOIP_TOPIC,
    dev_token,
)


def _point_at(server, monkeypatch):
    dev, prod = aioapns_connection.APNsDevelopmentClientProtocol, aioapns_connection.APNsProductionClientProtocol
    monkeypatch.setattr(dev, "APNS_SERVER", "127.0.0.1")
    monkeypatch.setattr(dev, "APNS_PORT", server.dev_port)
    monkeypatch.setattr(prod, "APNS_SERVER", "127.0.0.1")
    monkeypatch.setattr(prod, "APNS_PORT", server.prod_port)
    return server


@pytest.fixture
def at_pushlab(default_server, monkeypatch):
    """aioapns at Pushlab out of the box (scenarios/default.yaml), by IP: SNI
    and the `host` header become 127.0.0.1."""
    return _point_at(default_server, monkeypatch)


@pytest.fixture
def at_pushlab_many_tokens(server, monkeypatch):
    """The same against the integration scenario (2,000 generated tokens, no rate limit)."""
    return _point_at(server, monkeypatch)


@pytest.fixture
def apple_names_at_pushlab(default_server, monkeypatch):
    """Keep aioapns's own Apple host names (SNI, `host` header, certificate
    check) and only resolve them to 127.0.0.1 and Pushlab's ports."""
    real = socket.getaddrinfo

    def fake(host, port, *args, **kw):
        if host in ("api.development.push.apple.com", "api.sandbox.push.apple.com", "api.push.apple.com"):
            host = "127.0.0.1"
        return real(host, port, *args, **kw)

    monkeypatch.setattr(socket, "getaddrinfo", fake)
    monkeypatch.setattr(aioapns_connection.APNsDevelopmentClientProtocol, "APNS_PORT", default_server.dev_port)
    monkeypatch.setattr(aioapns_connection.APNsProductionClientProtocol, "APNS_PORT", default_server.prod_port)
    return default_server


@pytest.fixture
def no_aioapns_warnings(caplog):
    caplog.set_level(logging.DEBUG, logger="aioapns")
    yield caplog
    # At teardown caplog.records holds only teardown's records: read the test's own phases.
    records = caplog.get_records("setup") + caplog.get_records("call")
    bad = [r for r in records if r.name.startswith("aioapns") and r.levelno >= logging.WARNING]
    assert not bad, "aioapns logged: " + "; ".join(f"{r.levelname} {r.getMessage()}" for r in bad)


def trust_ca() -> ssl.SSLContext:
    # No set_alpn_protocols(): aioapns's own default context offers none either.
    return ssl.create_default_context(cafile=str(CERTS / "ca.pem"))


def key_client(**kw) -> APNs:
    return APNs(key=(CERTS / f"AuthKey_{KEY_ID}.p8").read_text(), key_id=KEY_ID, team_id=TEAM_ID,
                topic=TOPIC, ssl_context=trust_ca(), **kw)


def cert_client(**kw) -> APNs:
    # client-combined.pem holds the certificate and its private key together.
    return APNs(client_cert=str(CERTS / "client-combined.pem"), ssl_context=trust_ca(), **kw)


def requests_of_each_kind(sandbox: bool = True) -> list[NotificationRequest]:
    token = DEV_TOKEN if sandbox else PROD_TOKEN
    reqs = [
        NotificationRequest(device_token=token, message={"aps": {"alert": {"title": "Hi", "body": "from aioapns"}}},
                            notification_id=str(uuid.uuid4()), push_type=PushType.ALERT, priority=10,
                            time_to_live=3600, collapse_key="greeting"),
        NotificationRequest(device_token=token, message={"aps": {"content-available": 1}},
                            notification_id=str(uuid.uuid4()), push_type=PushType.BACKGROUND, priority=5),
    ]
    if sandbox:   # the default scenario has a VoIP (PushKit) token in development only
        reqs.append(NotificationRequest(device_token=DEV_VOIP_TOKEN, message={"aps": {}, "caller": "Alice"},
                                        notification_id=str(uuid.uuid4()), push_type=PushType.VOIP,
                                        apns_topic=VOIP_TOPIC))
    return reqs


async def send_all(client: APNs, reqs: list[NotificationRequest]):
    try:
        results = [await asyncio.wait_for(client.send_notification(r), 15) for r in reqs]
        # All used connections negotiated no ALPN protocol, and still got HTTP/2.
        alpn = {c.transport.get_extra_info("ssl_object").selected_alpn_protocol() for c in client.pool.connections}
        return results, alpn
    finally:
        client.pool.close()
        await asyncio.sleep(0.05)   # let the transports close inside the loop


def check(results, reqs) -> None:
    assert len(results) == len(reqs)
    for res, req in zip(results, reqs):
        assert res.is_successful, (req.push_type, res.status, res.description)
        assert res.status == "200"
        assert res.notification_id == req.notification_id
        assert res.description is None


@pytest.mark.parametrize("sandbox", [True, False], ids=["development", "production"])
def test_token_auth_alert_background_voip(at_pushlab, no_aioapns_warnings, sandbox):
    reqs = requests_of_each_kind(sandbox)

    async def main():
        return await send_all(key_client(use_sandbox=sandbox), reqs)

    results, alpn = asyncio.run(main())
    check(results, reqs)
    assert alpn == {None}


@pytest.mark.parametrize("sandbox", [True, False], ids=["development", "production"])
def test_certificate_auth_alert_background_voip(at_pushlab, no_aioapns_warnings, sandbox):
    reqs = requests_of_each_kind(sandbox)

    async def main():
        client = cert_client(use_sandbox=sandbox)
        # aioapns read the topic from the certificate's UID.
        assert client.pool.apns_topic == TOPIC
        return await send_all(client, reqs)

    results, alpn = asyncio.run(main())
    check(results, reqs)
    assert alpn == {None}


def test_generated_notification_id_round_trips(at_pushlab, no_aioapns_warnings):
    # aioapns makes a lower-case uuid4 and matches the response by apns-id:
    # Pushlab must echo it byte for byte, or aioapns never completes the send.
    req = NotificationRequest(device_token=DEV_TOKEN, message={"aps": {"alert": "x"}})
    assert req.notification_id == req.notification_id.lower()

    async def main():
        return await send_all(key_client(use_sandbox=True), [req])

    (res,), _ = asyncio.run(main())
    assert res.is_successful and res.notification_id == req.notification_id


def test_many_concurrent_notifications(at_pushlab_many_tokens, caplog):
    # aioapns warns "Pool is completely busy" while it waits for free streams: its own
    # back-off, expected under this load. Errors are not.
    caplog.set_level(logging.DEBUG, logger="aioapns")
    reqs = [NotificationRequest(device_token=dev_token(i), message={"aps": {"alert": f"#{i}"}},
                                push_type=PushType.ALERT) for i in range(500)]

    async def main():
        client = key_client(use_sandbox=True, max_connections=1)
        try:
            # One push first: a token connection gets one stream until its first
            # valid token (reference 6.2), and aioapns opens more before it knows.
            first = await asyncio.wait_for(client.send_notification(reqs[0]), 15)
            rest = await asyncio.wait_for(asyncio.gather(*(client.send_notification(r) for r in reqs[1:])), 60)
            return [first, *rest]
        finally:
            client.pool.close()
            await asyncio.sleep(0.05)

    results = asyncio.run(main())
    check(results, reqs)
    errors = [r for r in caplog.get_records("call") if r.name.startswith("aioapns") and r.levelno >= logging.ERROR]
    assert not errors, "; ".join(r.getMessage() for r in errors)


@pytest.mark.parametrize("sandbox", [True, False], ids=["development", "production"])
@pytest.mark.parametrize("auth", ["token", "certificate"])
def test_apple_host_names(apple_names_at_pushlab, no_aioapns_warnings, sandbox, auth):
    reqs = requests_of_each_kind(sandbox)[:1]

    async def main():
        client = key_client(use_sandbox=sandbox) if auth == "token" else cert_client(use_sandbox=sandbox)
        return await send_all(client, reqs)

    results, alpn = asyncio.run(main())
    check(results, reqs)
    assert alpn == {None}


def test_rejection_is_reported_with_its_reason(at_pushlab, caplog):
    """A 410 reaches aioapns as a failed result with its reason and timestamp."""
    req = NotificationRequest(device_token=DEV_UNREGISTERED_TOKEN, message={"aps": {"alert": "gone?"}},
                              push_type=PushType.ALERT)

    async def main():
        return await send_all(key_client(use_sandbox=True), [req])

    (res,), _ = asyncio.run(main())
    assert not res.is_successful
    assert (res.status, res.description) == ("410", "Unregistered")
    assert res.timestamp == 1767225600000     # 2026-01-01T00:00:00Z in the scenario
    assert res.notification_id == req.notification_id


def test_connection_closed_for_too_many_errors_loses_no_answer(at_pushlab, caplog):
    """After enough BadDeviceToken answers APNs closes the connection with
    GOAWAY {"reason":"BadDeviceToken"} (reference 6.3). aioapns must still get
    every answer, on the connection that carried the push: no connection error,
    no re-send on a new connection. (A GOAWAY sent between the HEADERS and the
    DATA frame of the last answer makes python-h2 reject that DATA frame: the
    connection dies with a ProtocolError and aioapns sends the push again.)"""
    # aioapns warns about the GOAWAY itself ("terminated: code=0 …"): that is the point.
    caplog.set_level(logging.DEBUG, logger="aioapns")
    reqs = [NotificationRequest(device_token=UNKNOWN_TOKEN, message={"aps": {"alert": f"#{i}"}},
                                push_type=PushType.ALERT) for i in range(25)]
    failures = []

    async def err_func(request, result):
        failures.append((request.notification_id, result.status, result.description))

    async def main():
        client = key_client(use_sandbox=True, err_func=err_func)
        try:
            out = []
            for r in reqs:
                out.append(await asyncio.wait_for(client.send_notification(r), 20))
            return out
        finally:
            client.pool.close()
            await asyncio.sleep(0.05)

    results = asyncio.run(main())
    assert [(r.status, r.description) for r in results] == [("400", "BadDeviceToken")] * len(reqs)
    errors = [r for r in caplog.get_records("call") if r.levelno >= logging.ERROR]
    assert not errors, "logged: " + "; ".join(f"{r.name}: {r.getMessage()} {r.exc_text or ''}"[:300] for r in errors)


# --- APNs rules as aioapns sees them (provider tokens with raw R||S signatures, from PyJWT) ---
# (BadDeviceToken and 410 Unregistered with its timestamp are covered above.)
# These check aioapns's log inside the test: at teardown, caplog.records only
# holds the teardown phase's records, so no_aioapns_warnings cannot see them.

def send_one(make_client, req: NotificationRequest, caplog):
    """One push through a client from make_client(err_func=...) (called inside
    the event loop, as aioapns needs). aioapns must hand the failure to
    err_func and log no warning or error of its own."""
    caplog.set_level(logging.DEBUG, logger="aioapns")
    failures = []

    async def err_func(request, result):
        failures.append((request.notification_id, result.status, result.description))

    async def main():
        (res,), _ = await send_all(make_client(err_func=err_func), [req])
        return res

    res = asyncio.run(main())
    assert failures == [(req.notification_id, res.status, res.description)]
    bad = [r for r in caplog.get_records("call") if r.name.startswith("aioapns") and r.levelno >= logging.WARNING]
    assert not bad, "aioapns logged: " + "; ".join(f"{r.levelname} {r.getMessage()}" for r in bad)
    return res


def assert_rejected(res, req: NotificationRequest, status: str, reason: str, timestamp=None) -> None:
    assert not res.is_successful
    assert (res.status, res.description, res.timestamp) == (status, reason, timestamp)
    assert res.notification_id == req.notification_id


def test_unknown_key_id_is_invalid_provider_token(at_pushlab, caplog, throwaway_key):
    req = NotificationRequest(device_token=DEV_TOKEN, message={"aps": {"alert": "x"}}, push_type=PushType.ALERT)

    def client(**kw):
        return APNs(key=throwaway_key.read_text(), key_id=UNKNOWN_KEY_ID, team_id=TEAM_ID, topic=TOPIC,
                    ssl_context=trust_ca(), use_sandbox=True, **kw)
    assert_rejected(send_one(client, req, caplog), req, "403", "InvalidProviderToken")


def test_expired_token_on_production_is_410_expired_token(at_pushlab, caplog):
    req = NotificationRequest(device_token=PROD_EXPIRED_TOKEN, message={"aps": {"alert": "x"}},
                              push_type=PushType.ALERT)
    res = send_one(lambda **kw: key_client(use_sandbox=False, **kw), req, caplog)
    assert_rejected(res, req, "410", "ExpiredToken", timestamp=GONE_SINCE_MS)


def test_topic_of_another_app_is_topic_disallowed(at_pushlab, caplog):
    req = NotificationRequest(device_token=DEV_TOKEN, message={"aps": {"alert": "x"}}, push_type=PushType.ALERT,
                              apns_topic=OTHER_TOPIC)
    res = send_one(lambda **kw: key_client(use_sandbox=True, **kw), req, caplog)
    assert_rejected(res, req, "400", "TopicDisallowed")


@pytest.mark.parametrize("token", [DEV_VOIP_TOKEN, DEV_TOKEN], ids=["voip-token", "app-token"])
def test_voip_push_to_the_base_topic_is_device_token_not_for_topic(at_pushlab, caplog, token):
    """Reference 1.3 (O13): apns-push-type voip with the bundle id as topic."""
    req = NotificationRequest(device_token=token, message={"aps": {}, "caller": "Alice"}, push_type=PushType.VOIP)

    def client(**kw):
        c = key_client(use_sandbox=True, **kw)
        assert c.pool.apns_topic == TOPIC and req.apns_topic is None   # aioapns sends the base topic
        return c
    assert_rejected(send_one(client, req, caplog), req, "400", "DeviceTokenNotForTopic")
