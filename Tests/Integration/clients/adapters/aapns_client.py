"""aapns: asyncio, its own pool of h2 3.x connections, certificate auth only, ALPN h2 only."""

from __future__ import annotations

import asyncio

from aapns.api import Server
from aapns.config import SANDBOX_HOST, Priority
from aapns.errors import ResponseError
from aapns.models import Alert, Notification, PushType

from matrix import Answer

NAME = "aapns"
LIBRARY_PUSH_TYPES = tuple(t.value for t in PushType)   # alert, background, voip, complication, fileprovider, mdm


def notification_of(push) -> Notification:
    """The library's Notification for a matrix push. Its `alert` is mandatory (an Alert with a body):
    a payload without one (background, voip, fileprovider) gets the emptiest Alert it takes, body ""."""
    aps = dict(push.payload.get("aps", {}))
    alert = aps.pop("alert", None)
    if isinstance(alert, dict):
        alert = Alert(**alert)
    elif isinstance(alert, str):
        alert = Alert(body=alert)
    else:
        alert = Alert(body="")
    content_available = bool(aps.pop("content-available", 0))
    assert not aps, f"no Notification argument for {aps}"
    extra = {k: v for k, v in push.payload.items() if k != "aps"} or None
    return Notification(alert=alert, push_type=PushType(push.push_type), content_available=content_available,
                        extra=extra)


class Client:
    def __init__(self, world, auth):
        # Server's own fields: the client certificate (cert and key in one file), the host
        # (api.development.push.apple.com, port 443) and a CA file to trust.
        self.server = Server(client_cert_path=world.path("client-combined.pem"), host=SANDBOX_HOST,
                             ca_file=world.ca)
        self.apns = None
        self.connecting = asyncio.Lock()

    async def send(self, push) -> Answer:
        async with self.connecting:   # create_client() is a coroutine (it connects): on first use
            if self.apns is None:
                self.apns = await self.server.create_client()
        try:
            apns_id = await self.apns.send_notification(
                push.token, notification_of(push), apns_id=push.apns_id, expiration=push.expiration,
                priority=Priority(push.priority or 5), topic=push.topic, collapse_id=push.collapse_id)
        except ResponseError as exc:
            # Raised for any status but 200, carrying APNs's reason and apns-id: the HTTP status and
            # the 410 timestamp are dropped by the library.
            return Answer(reason=exc.reason, apns_id=exc.apns_id)
        return Answer(status=200, apns_id=apns_id)   # returns only when the status is 200

    async def close(self):
        if self.apns is not None:
            await self.apns.close()
