"""nghttp (nghttp2-client), the provider token from `pushlab token`. nghttp has no --resolve: it
dials Pushlab's address and names Apple's host in :authority, which Pushlab serves as Apple does."""

from __future__ import annotations

import json
import re
import tempfile
import time
from pathlib import Path

from adapters import cli
from matrix import Answer

NAME = "nghttp"
# -v traces frames and headers ("recv (stream_id=13) :status: 410"); the body comes between them.
STATUS = re.compile(r"recv \(stream_id=\d+\) :status: (\d+)")
APNS_ID = re.compile(r"recv \(stream_id=\d+\) apns-id: ([0-9A-Fa-f-]{36})")
BODY = re.compile(r'(\{"reason".*?\})')


def version() -> str:
    return cli.run(["nghttp", "--version"]).stdout.decode().split("/")[-1].strip()


class Client:
    def __init__(self, world, auth):
        self.world = world
        # nghttp verifies no certificate (it has no CA option); it still completes TLS with Pushlab's.
        self.base = ["nghttp", "--header-table-size=4096", "-H", f":authority: {cli.SANDBOX}"]
        if auth == "token":
            token = cli.run([world.pushlab, "token", "--key", world.signing_key, "--key-id", world.key_id,
                             "--team-id", world.team_id, "--issued-at", str(int(time.time()))]).stdout.decode().strip()
            self.base += ["-H", f"authorization: bearer {token}"]
        else:
            self.base += ["--cert", world.path("client.pem"), "--key", world.path("client-key.pem")]

    def send(self, push) -> Answer:
        with tempfile.NamedTemporaryFile("w", suffix=".json") as body:
            body.write(json.dumps(push.payload))
            body.flush()
            command = list(self.base)
            for name, value in cli.apns_headers(push):
                command += ["-H", f"{name}: {value}"]
            # -v prints the response headers as frames; -d sends the body (a POST).
            done = cli.run(command + ["-v", "-d", body.name, f"https://{self.world.address}:443/3/device/{push.token}"])
        text = done.stdout.decode(errors="replace")
        status = STATUS.search(text)
        if not status:
            return Answer(error=f"nghttp exit {done.returncode}: {text[-300:]} {done.stderr.decode()[-200:]}")
        body, apns_id = BODY.search(text), APNS_ID.search(text)
        return cli.answer(int(status.group(1)), body.group(1).encode() if body else b"",
                          apns_id.group(1) if apns_id else None)
