"""What the command-line adapters share: running a command and reading APNs's JSON body."""

from __future__ import annotations

import json
import subprocess

from matrix import Answer

SANDBOX = "api.sandbox.push.apple.com"


def run(command: list[str], stdin: bytes | None = None, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run(command, input=stdin, capture_output=True, timeout=timeout)


def answer(status: int, body: bytes, apns_id: str | None) -> Answer:
    reason = timestamp = None
    if body.strip():
        parsed = json.loads(body)
        reason, timestamp = parsed.get("reason"), parsed.get("timestamp")
    return Answer(status=status, reason=reason, timestamp=timestamp, apns_id=apns_id)


def apns_headers(push) -> list[tuple[str, str]]:
    headers = [("apns-push-type", push.push_type), ("apns-topic", push.topic)]
    for name, value in (("apns-priority", push.priority), ("apns-expiration", push.expiration),
                        ("apns-collapse-id", push.collapse_id), ("apns-id", push.apns_id)):
        if value is not None:
            headers.append((name, str(value)))
    return headers
