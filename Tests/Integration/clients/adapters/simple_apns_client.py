"""simple-apns: sync httpx, token auth only, one topic per client; rejections become exception messages."""

from __future__ import annotations

import os

from simple_apns import APNSClient, APNSException, APNSServerError, APNSTokenError

from matrix import Answer

NAME = "simple-apns"
# Its httpx.Client (sync HTTP/2) is not safe to share among threads (pydantic/httpx2#808): each
# thread of the concurrent step gets a client of its own.
THREAD_SAFE = False


class Client:
    def __init__(self, world, auth):
        # simple-apns takes no CA (it builds httpx.Client(http2=True) itself, verify=True), and
        # httpx then trusts SSL_CERT_FILE: Pushlab's CA is trusted process-wide.
        os.environ["SSL_CERT_FILE"] = world.ca
        self.world = world
        # The topic is fixed per client (apns_topic, default bundle_id): a VoIP or complication push
        # needs a client of its own, as a user of the library would make one.
        self.clients: dict[str, APNSClient] = {}

    def client_for(self, topic: str) -> APNSClient:
        if topic not in self.clients:
            # use_sandbox: https://api.development.push.apple.com (port 443)
            self.clients[topic] = APNSClient(
                team_id=self.world.team_id, auth_key_id=self.world.key_id, auth_key_path=self.world.signing_key,
                bundle_id=self.world.topic, apns_topic=topic, use_sandbox=True)
        return self.clients[topic]

    def send(self, push) -> Answer:
        client = self.client_for(push.topic or self.world.topic)
        # No apns-id parameter (push.apns_id is not sent) and no apns-id in what it returns.
        try:
            sent = client.send_notification(push.token, push.payload, push_type=push.push_type,
                                            priority=push.priority or 10, expiration=push.expiration,
                                            collapse_id=push.collapse_id)
        except APNSServerError:
            raise   # 404/405/413/429/500/503 after retries: neither status nor reason is kept
        except APNSTokenError as exc:
            # Raised for exactly two answers (client.py): 400 BadDeviceToken ("Invalid device token:
            # ...") and any 410 ("Token is no longer valid: ...", reason and timestamp dropped).
            if str(exc).startswith("Invalid device token:"):
                return Answer(status=400, reason="BadDeviceToken")
            if str(exc).startswith("Token is no longer valid:"):
                return Answer(status=410)
            raise
        except APNSException as exc:
            # Any other 400: "Bad request: <reason>"; any 403: "Certificate or token is not valid"
            # (reason dropped). Anything else (network errors) stays an error.
            text = str(exc)
            if text.startswith("Bad request: "):
                return Answer(status=400, reason=text[len("Bad request: "):])
            if text == "Certificate or token is not valid":
                return Answer(status=403)
            raise
        assert sent is True, sent   # True only for a 200
        return Answer(status=200)

    def close(self):
        for client in self.clients.values():
            client.close()
