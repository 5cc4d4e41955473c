"""apns2-up, the maintained fork of PyAPNs2 (package `apns2`, on hyper-up): sync, hyper's HTTP/2.

Also the adapter of the original apns2 and of compat-fork-apns2 (apns2_original.py,
compat_fork_apns2.py): the three ship the same `apns2` client code.

What the library surfaces: 'Success', APNs's reason, and for a 410 the timestamp; never the
HTTP status of an error nor any apns-id (it cannot send one either).
"""

from __future__ import annotations

import os

from apns2.client import APNsClient, Notification, NotificationPriority, NotificationType
from apns2.credentials import TokenCredentials
from apns2.payload import Payload, PayloadAlert

from matrix import Answer

NAME = "apns2-up"
LIBRARY_PUSH_TYPES = tuple(t.value for t in NotificationType)   # alert, background, voip, complication, fileprovider, mdm


def payload_of(payload: dict) -> Payload:
    """The matrix's payload as the library's own Payload (the only thing its client sends)."""
    aps = dict(payload.get("aps", {}))
    alert = aps.pop("alert", None)
    if isinstance(alert, dict):
        alert = PayloadAlert(**alert)
    content_available = bool(aps.pop("content-available", False))
    assert not aps, f"apns2's Payload cannot express aps keys {sorted(aps)}"
    custom = {k: v for k, v in payload.items() if k != "aps"}
    return Payload(alert=alert, content_available=content_available, custom=custom or None)


def answer_of(result) -> Answer:
    """get_notification_result's 'Success' (its name for status 200), reason, or (reason, timestamp)."""
    if result == "Success":
        return Answer(status=200)
    if isinstance(result, tuple):
        reason, timestamp = result
        return Answer(reason=reason, timestamp=timestamp)
    return Answer(reason=result)


class Client:
    def __init__(self, world, auth):
        # apns2 has no option for the CA to trust: neither APNsClient nor TokenCredentials takes an
        # SSL context or CA file (CertificateCredentials only a client chain). hyper's init_context
        # calls SSLContext.set_default_verify_paths(), which reads SSL_CERT_FILE: trust Pushlab's CA
        # that way, as a user would in the environment.
        os.environ["SSL_CERT_FILE"] = world.ca
        if auth == "token":
            credentials = TokenCredentials(auth_key_path=world.signing_key, auth_key_id=world.key_id,
                                           team_id=world.team_id)
        else:
            credentials = world.path("client-combined.pem")   # README: APNsClient('key.pem', ...)
        # use_sandbox: api.development.push.apple.com:443 (apns2's SANDBOX_SERVER).
        self.apns = APNsClient(credentials=credentials, use_sandbox=True)

    @staticmethod
    def _options(push):
        return dict(topic=push.topic,
                    priority=NotificationPriority(str(push.priority or 10)),
                    expiration=push.expiration, collapse_id=push.collapse_id,
                    push_type=NotificationType(push.push_type))

    def send(self, push) -> Answer:
        # send_notification() takes no push type (it infers one from the topic and the payload) and
        # raises reason-named exceptions; it is send_notification_async() + get_notification_result(),
        # the two public calls used here, which take the push type and return the result as is.
        # push.apns_id: apns2 has no way to set apns-id.
        stream_id = self.apns.send_notification_async(push.token, payload_of(push.payload), **self._options(push))
        return answer_of(self.apns.get_notification_result(stream_id))

    def send_many(self, pushes) -> list[Answer]:
        # send_notification_batch: one topic, priority, ... for the whole batch.
        options = self._options(pushes[0])
        assert all(self._options(p) == options for p in pushes), "one batch, one set of options"
        results = self.apns.send_notification_batch(
            [Notification(token=p.token, payload=payload_of(p.payload)) for p in pushes], **options)
        return [answer_of(results[p.token]) for p in pushes]
