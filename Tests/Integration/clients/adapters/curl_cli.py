"""curl --http2, as Apple's "Sending push notifications using command-line tools" does it: the
provider token signed with `openssl dgst -sha256 -sign` (a DER signature), Apple's host name
pinned to Pushlab with --resolve."""

from __future__ import annotations

import base64
import json
import subprocess
import tempfile
import time
from pathlib import Path

from adapters import cli
from matrix import Answer

NAME = "curl"


def version() -> str:
    return cli.run(["curl", "--version"]).stdout.decode().split()[1]


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def apple_recipe_token(world) -> str:
    """Apple's shell recipe: header and claims by hand, `openssl dgst -sha256 -sign key.p8`."""
    header = b64url(json.dumps({"alg": "ES256", "kid": world.key_id}).encode())
    claims = b64url(json.dumps({"iss": world.team_id, "iat": int(time.time())}).encode())
    signed = subprocess.run(["openssl", "dgst", "-binary", "-sha256", "-sign", world.signing_key],
                            input=f"{header}.{claims}".encode(), capture_output=True, check=True)
    return f"{header}.{claims}.{b64url(signed.stdout)}"


class Client:
    def __init__(self, world, auth):
        self.base = ["curl", "-s", "--http2", "--cacert", world.ca, "--resolve", f"{cli.SANDBOX}:443:{world.address}"]
        if auth == "token":
            self.base += ["-H", f"authorization: bearer {apple_recipe_token(world)}"]
        else:
            self.base += ["--cert", world.path("client.pem"), "--key", world.path("client-key.pem")]

    def _command(self, push) -> list[str]:
        command = list(self.base)
        for name, value in cli.apns_headers(push):
            command += ["-H", f"{name}: {value}"]
        return command + ["--data-binary", "@-"]

    def send(self, push) -> Answer:
        with tempfile.TemporaryDirectory() as scratch:
            headers = Path(scratch) / "headers"
            done = cli.run(self._command(push) + ["-D", str(headers), f"https://{cli.SANDBOX}/3/device/{push.token}"],
                           stdin=json.dumps(push.payload).encode())
            if done.returncode != 0:
                return Answer(error=f"curl exit {done.returncode}: {done.stderr.decode()[:300]}")
            lines = headers.read_text().splitlines()
        status = int(lines[0].split()[1])
        apns_id = next((line.split(":", 1)[1].strip() for line in lines if line.lower().startswith("apns-id:")), None)
        return cli.answer(status, done.stdout, apns_id)

    def send_many(self, pushes) -> list[Answer]:
        """One curl, one connection, every push a stream of its own (--parallel; --next between
        transfers, each with its own body)."""
        with tempfile.TemporaryDirectory() as scratch:
            command = ["curl", "--parallel", "--parallel-max", "300"]
            for index, push in enumerate(pushes):
                body = Path(scratch) / f"{index}.json"
                body.write_text(json.dumps(push.payload))
                transfer = self._command(push)[1:-2] + ["--data-binary", f"@{body}", "-o", "/dev/null",
                                                        "-w", "%{http_code} %{url}\n",
                                                        f"https://{cli.SANDBOX}/3/device/{push.token}"]
                command += (["--next"] if index else []) + transfer
            done = cli.run(command, timeout=120)
        status_by_token = {}
        for line in done.stdout.decode().splitlines():
            code, url = line.split(" ", 1)
            status_by_token[url.rsplit("/", 1)[1]] = int(code)
        return [Answer(status=status_by_token[p.token]) if p.token in status_by_token
                else Answer(error=f"curl reported nothing for {p.token}: {done.stderr.decode()[:200]}") for p in pushes]
