"""`pushlab send`, Pushlab's own client: it signs a fresh provider token per run (or takes one)."""

from __future__ import annotations

import json
import time

from adapters import cli
from matrix import Answer

NAME = "pushlab send"


def version() -> str:
    return "this checkout"


class Client:
    def __init__(self, world, auth):
        self.world = world
        self.base = [world.pushlab, "send", "--server", f"{world.address}:443", "--ca", world.ca, "--json"]
        if auth == "token":
            # One token for the client's life, as a provider keeps one (APNs refuses a new token
            # on a connection more than once in 20 minutes; each `pushlab send` is its own connection).
            token = cli.run([world.pushlab, "token", "--key", world.signing_key, "--key-id", world.key_id,
                             "--team-id", world.team_id, "--issued-at", str(int(time.time()))]).stdout.decode().strip()
            self.base += ["--provider-token", token]
        else:
            self.base += ["--cert", world.path("client.pem"), "--cert-key", world.path("client-key.pem")]

    def send(self, push) -> Answer:
        command = self.base + [push.token, "--topic", push.topic, "--push-type", push.push_type,
                               "--payload", json.dumps(push.payload)]
        for flag, value in (("--priority", push.priority), ("--expiration", push.expiration),
                            ("--collapse-id", push.collapse_id), ("--apns-id", push.apns_id)):
            if value is not None:
                command += [flag, str(value)]
        done = cli.run(command)
        if done.returncode not in (0, 1):
            return Answer(error=f"pushlab send exit {done.returncode}: {done.stderr.decode()[-300:]}")
        printed = json.loads(done.stdout)
        return Answer(status=printed.get("status"), reason=printed.get("reason"), timestamp=printed.get("timestamp"),
                      apns_id=printed.get("apnsId"))
