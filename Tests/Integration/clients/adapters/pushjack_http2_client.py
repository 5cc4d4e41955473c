"""pushjack-http2 on hyper-up (the maintained fork of hyper, same `hyper` package): token auth only
over HTTP/2 (its certificate client speaks the legacy binary protocol on gateway.sandbox.push.apple.com:2195),
no apns-push-type header, one topic per client; any rejection is one APNSUnsendableError."""

from __future__ import annotations

import contextlib
import datetime
import os
import types
from unittest import mock

from pushjack_http2 import APNSAuthToken, APNSHTTP2SandboxClient

from matrix import Answer

NAME = "pushjack-http2"


@contextlib.contextmanager
def stale_clock(timestamp):
    """Its JWT's iat (and the token's freshness) is datetime.datetime.utcnow(), not time.time():
    pushjack's own `datetime` name is pointed at a datetime whose utcnow() reads `timestamp`."""
    class StaleDatetime(datetime.datetime):
        @classmethod
        def utcnow(cls):
            return datetime.datetime.fromtimestamp(timestamp, datetime.timezone.utc).replace(tzinfo=None)

    with mock.patch("pushjack_http2.apns.datetime", types.SimpleNamespace(datetime=StaleDatetime,
                                                                           timedelta=datetime.timedelta)):
        yield


class Client:
    def __init__(self, world, auth):
        # pushjack takes no CA and opens hyper's HTTP20Connection without an SSLContext: hyper's
        # default context calls set_default_verify_paths(), which reads SSL_CERT_FILE. So
        # Pushlab's CA is trusted process-wide.
        os.environ["SSL_CERT_FILE"] = world.ca
        self.world = world
        token = APNSAuthToken(token=open(world.signing_key).read(), team_id=world.team_id, key_id=world.key_id)
        # The sandbox client: api.sandbox.push.apple.com:443. The topic is the bundle id, per client.
        self.apns = APNSHTTP2SandboxClient(token=token, bundle_id=world.topic)

    def send(self, push) -> Answer:
        assert push.topic in (None, self.world.topic), f"one topic per client: {push.topic}"
        aps = dict(push.payload.get("aps", {}))
        alert = aps.pop("alert", None)
        options = {}
        if isinstance(alert, dict):   # its alert dict: message is the body, the rest are options
            alert = dict(alert)
            options["title"] = alert.pop("title", None)
            message = alert.pop("body", None)
            assert not alert, f"no send() option for {alert}"
        else:
            message = alert
        if aps.pop("content-available", 0):
            options["content_available"] = True
        assert not aps, f"no send() option for {aps}"
        extra = {k: v for k, v in push.payload.items() if k != "aps"}
        # No apns-id or collapse-id argument (it sends a uuid4 of its own); expiration is sent as is.
        # send() swallows every failure of a token into APNSUnsendableError("Unable to send
        # messages"): neither status, reason, timestamp nor apns-id is surfaced, so a rejection
        # stays that error. It returns None when every token got a 200.
        result = self.apns.send(push.token, message, expiration=push.expiration, low_priority=push.priority == 5,
                                extra=extra or None, **options)
        assert result is None, result
        return Answer(status=200)

    def close(self):
        if self.apns._conn is not None:   # README: client.conn.close() (conn connects lazily)
            self.apns.conn.close()
