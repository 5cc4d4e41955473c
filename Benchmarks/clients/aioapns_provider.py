#!/usr/bin/env python3
"""A push backend written with aioapns (a real APNs client from PyPI), pointed at Pushlab: the
worked example of docs/LOAD-TESTING.md.

It sends --pushes alerts to the phones of scenarios/load/100k-phones.yaml (tokens "be" then the
phone's number in hex, 64 digits), each with its own text, --concurrency at a time, and prints
the answers it got. With --client-per-push it makes a new aioapns client for every push, as a
backend does that builds its client inside a request handler: a connection and a provider token
per push, which Pushlab's provider report finds.

    pip install aioapns
    python3 Benchmarks/clients/aioapns_provider.py --pushes 1000 --concurrency 100
    python3 Benchmarks/clients/aioapns_provider.py --pushes 20 --client-per-push

aioapns has no host or port setting: it always dials Apple. Pushlab's CA is trusted through
ssl_context, and the connection is pointed at Pushlab by changing the class attributes aioapns
reads (APNS_SERVER, APNS_PORT); on a real backend, /etc/hosts or DNS does the same.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import ssl
import time
import uuid
from pathlib import Path

from aioapns import APNs, NotificationRequest, PushType
from aioapns import connection as aioapns_connection

REPO = Path(__file__).resolve().parents[2]


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pushes", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=200, help="pushes in flight at once")
    parser.add_argument("--phones", type=int, default=100_000, help="the scenario's phones the pushes cycle through")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=2197, help="Pushlab's development (sandbox) port")
    parser.add_argument("--client-per-push", action="store_true", help="a new aioapns client (connection, token) per push")
    parser.add_argument("--max-connections", type=int, default=10, help="aioapns's connection pool (its default is 10)")
    return parser.parse_args()


def make_client(options: argparse.Namespace) -> APNs:
    return APNs(
        key=(REPO / "certs" / "AuthKey_PUSHLAB001.p8").read_text(), key_id="PUSHLAB001", team_id="TEAMPUSHLB",
        topic="com.pushlab.demo", use_sandbox=True, max_connections=options.max_connections,
        ssl_context=ssl.create_default_context(cafile=str(REPO / "certs" / "ca.pem")),
    )


async def main(options: argparse.Namespace) -> None:
    protocol = aioapns_connection.APNsDevelopmentClientProtocol
    protocol.APNS_SERVER, protocol.APNS_PORT = options.host, options.port
    shared = None if options.client_per_push else make_client(options)
    answers: collections.Counter[str] = collections.Counter()
    gate = asyncio.Semaphore(options.concurrency)

    async def push(number: int) -> None:
        request = NotificationRequest(
            device_token=f"be{number % options.phones:062x}", notification_id=str(uuid.uuid4()),
            message={"aps": {"alert": {"title": "Your order", "body": f"Order #{number} has shipped"}}},
            push_type=PushType.ALERT, priority=10,
        )
        async with gate:
            client = shared or make_client(options)
            result = await client.send_notification(request)
            if not shared:
                client.pool.close()
        answers[f"{result.status} {result.description or ''}".strip()] += 1

    started = time.monotonic()
    await asyncio.gather(*(push(number) for number in range(options.pushes)))
    took = time.monotonic() - started
    if shared:
        shared.pool.close()
    print(f"{options.pushes} pushes in {took:.1f} s ({options.pushes / took:.0f}/s)")
    for answer, count in sorted(answers.items()):
        print(f"  {count} × {answer}")


if __name__ == "__main__":
    asyncio.run(main(arguments()))
