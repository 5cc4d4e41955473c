"""kalyke-apns: asyncio over httpx2 (HTTP/2), one new client and connection per push; string `iat`.

Token auth: `ApnsClient` (and its `VoIPClient` and `LiveActivityClient` for those push types).
Certificate auth: kalyke has only `VoIPCertificateClient` (deprecated), which sends voip pushes
only, so the certificate row is that push alone.
kalyke surfaces APNs's reason as an exception class named after it and the rest of the error body
(the 410 timestamp) as `exc.error`, but neither the HTTP status nor the apns-id of an error.
"""

from __future__ import annotations

import contextlib
import datetime
import os
from unittest import mock

from kalyke import (ApnsClient, ApnsConfig, ApnsPriority, ApnsPushType, LiveActivityApnsConfig, LiveActivityClient,
                    VoIPApnsConfig, VoIPCertificateClient, VoIPClient)
from kalyke.exceptions import ApnsProviderException

from matrix import Answer

NAME = "kalyke-apns"
LIBRARY_PUSH_TYPES = tuple(p.value for p in ApnsPushType)   # alert, background, location, voip, complication, fileprovider, mdm, liveactivity


@contextlib.contextmanager
def stale_clock(timestamp: float):
    """kalyke signs with `datetime.now().timestamp()` (kalyke/clients/apns.py), not time.time(): the
    provider's clock is behind when that module's `datetime` says so."""
    class Then(datetime.datetime):
        @classmethod
        def now(cls, tz=None):
            return datetime.datetime.fromtimestamp(timestamp, tz)

    with mock.patch("kalyke.clients.apns.datetime", Then):
        yield


class Client:
    def __init__(self, world, auth):
        # kalyke offers no CA option: its clients build `httpx2.AsyncClient(...)` with httpx2's default
        # verification (ApnsClient) or `httpx2.create_ssl_context()` (VoIPCertificateClient), and
        # httpx2 reads SSL_CERT_FILE when it makes that context (once per push).
        os.environ["SSL_CERT_FILE"] = world.ca
        self.auth = auth
        if auth == "token":
            key = dict(use_sandbox=True, team_id=world.team_id, auth_key_id=world.key_id,
                       auth_key_filepath=world.signing_key)
            self.apns, self.voip, self.live = ApnsClient(**key), VoIPClient(**key), LiveActivityClient(**key)
        else:
            self.voip = VoIPCertificateClient(use_sandbox=True, auth_key_filepath=world.path("client-combined.pem"))

    async def send(self, push) -> Answer:
        options = dict(topic=push.topic, identifier=push.apns_id, collapse_id=push.collapse_id)
        if push.priority is not None:
            options["priority"] = ApnsPriority(push.priority)
        if push.expiration is not None:
            options["expiration"] = push.expiration
        if push.push_type == "voip":
            client, config = self.voip, VoIPApnsConfig(**options)
        elif push.push_type == "liveactivity":
            client, config = self.live, LiveActivityApnsConfig(**options)
        else:
            client, config = self.apns, ApnsConfig(push_type=ApnsPushType(push.push_type), **options)
        try:
            apns_id = await client.send_message(device_token=push.token, payload=push.payload, apns_config=config)
        except ApnsProviderException as rejection:
            # The class is named after APNs's reason (kalyke looks it up by that name); the status and
            # the apns-id of a rejection are not surfaced.
            return Answer(reason=type(rejection).__name__, timestamp=rejection.error.get("timestamp"))
        # send_message returns (the apns-id) only when the response is a success (httpx2's
        # is_success, 2xx): APNs's one success status is 200.
        return Answer(status=200, apns_id=apns_id)
