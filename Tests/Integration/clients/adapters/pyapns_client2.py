"""pyapns-client 2.x (module pyapns_client): synchronous httpx (HTTP/2), token auth only; fractional `iat`.

One httpx.Client with max_connections=1 and max_keepalive_connections=0; retries an
APNSServerException (5xx, 429, ExpiredProviderToken, connection errors) three times on a new client.
"""

from __future__ import annotations

from pyapns_client import APNSClient, APNSException, IOSNotification, IOSPayload

from adapters.pyapns_rejection import answer_of_rejection
from matrix import Answer

NAME = "pyapns-client"
LIBRARY_PUSH_TYPES = tuple(getattr(IOSNotification, name) for name in dir(IOSNotification) if name.startswith("PUSH_TYPE_"))
# alert, background, voip, complication, fileprovider, mdm (IOSNotification.PUSH_TYPE_*)
# Its one httpx.Client is not safe to share among threads: httpx's sync HTTP/2 connection then
# interleaves two threads' frames and fails with KeyError or "Received pseudo-header in trailer"
# (pydantic/httpx2#808), and the library's retry closes the client under the other threads.
THREAD_SAFE = False


class Client:
    def __init__(self, world, auth):
        self.apns = APNSClient(mode=APNSClient.MODE_DEV, root_cert_path=world.ca, auth_key_path=world.signing_key,
                               auth_key_id=world.key_id, team_id=world.team_id)

    def send(self, push) -> Answer:
        # The library copies priority and expiration into the header dict as given: httpx takes only
        # str (its own PRIORITY_HIGH = 10 raises TypeError), so they go as strings.
        notification = IOSNotification(
            payload=IOSPayload(custom=push.payload), topic=push.topic, apns_id=push.apns_id,
            collapse_id=push.collapse_id, push_type=push.push_type,
            priority=None if push.priority is None else str(push.priority),
            expiration=None if push.expiration is None else str(push.expiration))
        try:
            self.apns.push(notification=notification, device_token=push.token)
        except APNSException as rejection:
            return answer_of_rejection(rejection)
        # push() returns None: it raised on every status but 200, and drops the apns-id of a success.
        return Answer(status=200)

    def close(self):
        self.apns.close()
