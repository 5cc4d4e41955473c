"""gobiko.apns on hyper-up (the maintained fork of hyper, same `hyper` package): token auth only,
a new HTTP/2 connection and a new fractional-`iat` JWT for every push; rejections are exception
classes named after the reason."""

from __future__ import annotations

import os

from gobiko.apns import APNsClient
from gobiko.apns import exceptions
from gobiko.apns.client import APNS_PUSH_TYPES

from matrix import Answer

NAME = "gobiko.apns"
LIBRARY_PUSH_TYPES = APNS_PUSH_TYPES   # alert, background, voip, complication, fileprovider, mdm
# Raised by gobiko itself, not named after an APNs reason.
NOT_REASONS = (exceptions.InternalException, exceptions.ImproperlyConfigured, exceptions.InvalidPushType,
               exceptions.PartialBulkMessage)


class Client:
    def __init__(self, world, auth):
        # gobiko takes no CA and opens hyper's HTTP20Connection without an SSLContext: hyper's
        # default context calls set_default_verify_paths(), which reads SSL_CERT_FILE. So
        # Pushlab's CA is trusted process-wide.
        os.environ["SSL_CERT_FILE"] = world.ca
        # use_sandbox: api.development.push.apple.com:443
        self.apns = APNsClient(team_id=world.team_id, auth_key_id=world.key_id, auth_key_filepath=world.signing_key,
                               bundle_id=world.topic, use_sandbox=True)

    def send(self, push) -> Answer:
        aps = dict(push.payload.get("aps", {}))
        alert = aps.pop("alert", None)
        content_available = bool(aps.pop("content-available", 0))
        assert not aps, f"no send_message argument for {aps}"
        extra = {k: v for k, v in push.payload.items() if k != "aps"}
        # No collapse-id argument: push.collapse_id is not sent.
        try:
            response = self.apns.send_message(
                push.token, alert, content_available=content_available, extra=extra, identifier=push.apns_id,
                expiration=push.expiration, priority=push.priority or 10, topic=push.topic,
                push_type=push.push_type)
        except exceptions.APNsException as exc:
            if isinstance(exc, NOT_REASONS):
                raise
            # The class is looked up by the body's reason (getattr(exceptions, reason)): the reason
            # is kept, the HTTP status and the 410 timestamp are not (nor the answer's apns-id).
            return Answer(reason=type(exc).__name__)
        # Returned only when the status is 200: hyper's response.
        (apns_id,) = response.headers.get(b"apns-id", [None])
        return Answer(status=response.status, apns_id=apns_id.decode() if apns_id else None)
