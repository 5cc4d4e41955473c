"""aioapns as Debian packages it (python3-aioapns 2.2, for Debian's own python3). Two differences
from aioapns 4: the key is given as a file path, and the topic belongs to the client, not to the
request, so a provider keeps one client per topic (per push type with a topic suffix)."""

from __future__ import annotations

import ssl

from aioapns import APNs, NotificationRequest, PushType

from matrix import Answer

NAME = "aioapns"
LIBRARY_PUSH_TYPES = tuple(p.value for p in PushType)


class Client:
    def __init__(self, world, auth):
        self.world, self.auth = world, auth
        self.clients: dict[str, APNs] = {}

    def _client(self, topic: str) -> APNs:
        if topic not in self.clients:
            context = ssl.create_default_context(cafile=self.world.ca)
            if self.auth == "token":
                self.clients[topic] = APNs(key=self.world.signing_key, key_id=self.world.key_id,
                                           team_id=self.world.team_id, topic=topic, use_sandbox=True, ssl_context=context)
            else:
                self.clients[topic] = APNs(client_cert=self.world.path("client-combined.pem"), topic=topic,
                                           use_sandbox=True, ssl_context=context)
        return self.clients[topic]

    async def send(self, push) -> Answer:
        request = NotificationRequest(
            device_token=push.token, message=push.payload, push_type=PushType(push.push_type),
            priority=push.priority, time_to_live=push.expiration, collapse_key=push.collapse_id,
            **({"notification_id": push.apns_id} if push.apns_id else {}))
        result = await self._client(push.topic).send_notification(request)
        return Answer(status=int(result.status), reason=result.description, timestamp=None,
                      apns_id=result.notification_id)

    async def close(self):
        for client in self.clients.values():
            client.pool.close()
