"""pyapns-client3 (module pyapns_client): its AsyncAPNSClient over httpx (HTTP/2); token or certificate; fractional `iat`.

One httpx.AsyncClient with max_connections=1 and max_keepalive_connections=0; retries an
APNSServerException (5xx, 429, ExpiredProviderToken, connection errors) three times on a new client.
"""

from __future__ import annotations

import os

from pyapns_client import (APNSException, AsyncAPNSClient, CertificateBasedAuth, IOSNotification, IOSPayload,
                           TokenBasedAuth)

from adapters.pyapns_rejection import answer_of_rejection
from matrix import Answer

NAME = "pyapns-client3"
LIBRARY_PUSH_TYPES = tuple(getattr(IOSNotification, name) for name in dir(IOSNotification) if name.startswith("PUSH_TYPE_"))
# alert, background, voip, complication, fileprovider, mdm (_Notification.PUSH_TYPE_*)


class Client:
    def __init__(self, world, auth):
        if auth == "token":
            authentificator = TokenBasedAuth(auth_key_path=world.signing_key, auth_key_id=world.key_id,
                                             team_id=world.team_id)
            root_cert_path = world.ca
        else:
            authentificator = CertificateBasedAuth(client_cert_path=world.path("client-combined.pem"))
            # Not root_cert_path: the library hands it to httpx as verify=<str> next to cert=(...), and
            # httpx 0.28's create_ssl_context returns the CA-only context for a str before it loads
            # the cert, so the client certificate is silently never sent (403 MissingProviderToken).
            # The README's other way: root_cert_path=None and httpx reads SSL_CERT_FILE.
            os.environ["SSL_CERT_FILE"] = world.ca
            root_cert_path = None
        self.apns = AsyncAPNSClient(mode=AsyncAPNSClient.MODE_DEV, authentificator=authentificator,
                                    root_cert_path=root_cert_path)

    async def send(self, push) -> Answer:
        notification = IOSNotification(
            payload=IOSPayload(custom=push.payload), topic=push.topic, apns_id=push.apns_id,
            collapse_id=push.collapse_id, push_type=push.push_type, priority=push.priority,
            expiration=push.expiration)
        try:
            await self.apns.push(notification=notification, device_token=push.token)
        except APNSException as rejection:
            return answer_of_rejection(rejection)
        # push() returns None: it raised on every status but 200, and drops the apns-id of a success.
        return Answer(status=200)

    async def close(self):
        await self.apns.close()
