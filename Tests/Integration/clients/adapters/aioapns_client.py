"""aioapns: asyncio, PyJWT tokens (raw R||S signatures), no ALPN offered."""

from __future__ import annotations

import ssl

from aioapns import APNs, NotificationRequest, PushType

from matrix import Answer

NAME = "aioapns"
LIBRARY_PUSH_TYPES = tuple(p.value for p in PushType)   # alert, background, voip, complication, fileprovider, mdm, liveactivity, ...


class Client:
    def __init__(self, world, auth):
        # aioapns dials api.sandbox.push.apple.com:443 itself; it only needs to trust Pushlab's CA.
        context = ssl.create_default_context(cafile=world.ca)
        if auth == "token":
            self.apns = APNs(key=open(world.signing_key).read(), key_id=world.key_id, team_id=world.team_id,
                             topic=world.topic, use_sandbox=True, ssl_context=context)
        else:
            self.apns = APNs(client_cert=world.path("client-combined.pem"), use_sandbox=True, ssl_context=context)

    async def send(self, push) -> Answer:
        request = NotificationRequest(
            device_token=push.token, message=push.payload, push_type=PushType(push.push_type),
            apns_topic=push.topic, priority=push.priority, time_to_live=push.expiration,
            collapse_key=push.collapse_id, **({"notification_id": push.apns_id} if push.apns_id else {}))
        result = await self.apns.send_notification(request)
        return Answer(status=int(result.status), reason=result.description, timestamp=result.timestamp,
                      apns_id=result.notification_id)

    async def close(self):
        self.apns.pool.close()
