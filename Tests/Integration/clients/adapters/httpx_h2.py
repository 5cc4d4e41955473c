"""httpx with http2=True, as a provider writes its own APNs client: PyJWT for the token."""

from __future__ import annotations

import ssl
import time

import httpx
import jwt

from matrix import Answer

NAME = "httpx"
BASE_URL = "https://api.sandbox.push.apple.com"


class Client:
    def __init__(self, world, auth):
        self.token = None
        context = ssl.create_default_context(cafile=world.ca)
        if auth == "token":
            self.token = jwt.encode({"iss": world.team_id, "iat": int(time.time())}, open(world.signing_key).read(),
                                    algorithm="ES256", headers={"kid": world.key_id})
        else:
            context.load_cert_chain(world.path("client.pem"), world.path("client-key.pem"))
        self.http = httpx.AsyncClient(http2=True, verify=context, base_url=BASE_URL, timeout=20)

    async def send(self, push) -> Answer:
        headers = {"apns-push-type": push.push_type, "apns-topic": push.topic}
        if self.token:
            headers["authorization"] = f"bearer {self.token}"
        for name, value in (("apns-priority", push.priority), ("apns-expiration", push.expiration),
                            ("apns-collapse-id", push.collapse_id), ("apns-id", push.apns_id)):
            if value is not None:
                headers[name] = str(value)
        response = await self.http.post(f"/3/device/{push.token}", json=push.payload, headers=headers)
        body = response.json() if response.content else {}
        assert response.http_version == "HTTP/2", response.http_version
        return Answer(status=response.status_code, reason=body.get("reason"), timestamp=body.get("timestamp"),
                      apns_id=response.headers.get("apns-id"))

    async def close(self):
        await self.http.aclose()
