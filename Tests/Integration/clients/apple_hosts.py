"""Apple's APNs host names resolved to Pushlab, as a line in /etc/hosts does.

A user points an unmodified client library at Pushlab by resolving Apple's names to the address
Pushlab listens on and serving on the ports Apple serves on (443 and 2197): Pushlab tells the
environments apart by the name the client sends (SNI and :authority), as Apple's two hosts do.
The tests may not edit /etc/hosts, so this module does the same inside the client's process: it
wraps `socket.getaddrinfo` (which asyncio, anyio/httpx, hyper and h2-based clients all call)
so that Apple's names resolve to Pushlab's address. Ports and TLS are untouched: the client
dials 443 (or 2197), sends Apple's name as SNI and checks it against Pushlab's certificate,
which carries those names.
"""

from __future__ import annotations

import socket

APPLE_HOSTS = (
    "api.sandbox.push.apple.com", "api.development.push.apple.com", "api.push.apple.com",
    # Broadcast push and channel management (iOS 18 Live Activities).
    "api-broadcast.sandbox.push.apple.com", "api-broadcast.push.apple.com",
    "api-manage-broadcast.sandbox.push.apple.com", "api-manage-broadcast.push.apple.com",
)

_real_getaddrinfo = socket.getaddrinfo


def install(address: str) -> None:
    def getaddrinfo(host, port, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else host
        return _real_getaddrinfo(address if name in APPLE_HOSTS else host, port, *args, **kwargs)

    socket.getaddrinfo = getaddrinfo
