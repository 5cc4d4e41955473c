"""mopyapns (import name `apns2`, a PyAPNs2 fork on sync httpx): fractional-second `iat` in its JWT."""

from __future__ import annotations

from apns2.client import Notification, NotificationPriority, NotificationType

from adapters import apns2_up
from adapters.apns2_up import answer_of, payload_of   # the same Payload and result shapes (PyAPNs2's API)
from matrix import Answer

NAME = "mopyapns"
LIBRARY_PUSH_TYPES = tuple(t.value for t in NotificationType)   # alert, background, voip, complication, fileprovider, mdm


class Client(apns2_up.Client):
    """PyAPNs2's constructor as it is (the same CA story: TokenCredentials leaves httpx's
    verify=True, which reads SSL_CERT_FILE, and CertificateCredentials builds
    ssl.create_default_context(), whose default paths SSL_CERT_FILE sets); its own send calls."""

    def send(self, push) -> Answer:
        # send_notification() returns None or raises an exception named after the reason (no status,
        # and it takes no push_type); send_notification_async() is the library's public one-push call
        # that takes push_type and hands back the httpx.Response, which get_notification_result()
        # reads ('Success', reason, or (reason, timestamp) for a 410).
        response = self.apns.send_notification_async(
            push.token, payload_of(push.payload), topic=push.topic,
            priority=NotificationPriority(str(push.priority or 10)), expiration=push.expiration,
            collapse_id=push.collapse_id, push_type=NotificationType(push.push_type))
        answer = answer_of(self.apns.get_notification_result(response))
        # The library has no apns-id parameter: push.apns_id is not sent; the answer's status and
        # apns-id are the server's, read off the response the library returns.
        answer.status, answer.apns_id = response.status_code, response.headers.get("apns-id")
        return answer

    def send_many(self, pushes) -> list[Answer]:
        # The library's batch API (README: "To send multiple notifications in a batch"): one topic,
        # priority and push type for the batch; it answers token -> 'Success', reason, or
        # (reason, timestamp) for a 410; 'Success' is exactly a 200, and a rejection's status is not
        # kept. (Sharing one APNsClient among threads instead makes httpx's sync HTTP/2 connection
        # read and write its TLS socket from several threads at once, which fails now and then with
        # "Server disconnected" while the server keeps the connection open.)
        (common,) = {(p.topic, p.priority, p.expiration, p.collapse_id, p.push_type) for p in pushes}
        topic, priority, expiration, collapse_id, push_type = common
        results = self.apns.send_notification_batch(
            [Notification(token=p.token, payload=payload_of(p.payload)) for p in pushes], topic=topic,
            priority=NotificationPriority(str(priority or 10)), expiration=expiration, collapse_id=collapse_id,
            push_type=NotificationType(push_type))
        return [answer_of(results[push.token]) for push in pushes]
