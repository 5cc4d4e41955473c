"""The APNs world the tests push into: key, team, topic, device tokens, a provider token.

Both scenarios/default.yaml (the server's default) and Tests/Integration/scenarios/
integration.yaml know these names; integration.yaml adds generated tokens.
"""

from __future__ import annotations

import functools
import time
from pathlib import Path

import jwt

REPO = Path(__file__).resolve().parents[2]
CERTS = REPO / "certs"
INTEGRATION_SCENARIO = Path(__file__).resolve().parent / "scenarios" / "integration.yaml"

KEY_ID = "PUSHLAB001"
TEAM_ID = "TEAMPUSHLB"
TOPIC = "com.pushlab.demo"
VOIP_TOPIC = TOPIC + ".voip"

DEV_TOKEN = "a69c88c87b0fa337c4b2273f85f708343f6b031be8ed07625ec591a9f53f2ae8"
PROD_TOKEN = "9a515344c9734e21a573529d9d8b7d004fde695d724e1951eb95f8e313cd3f7a"
DEV_VOIP_TOKEN = "3c9449c8f4248b0d2ed0c8399ffbe7f362bee251be267bedaf282e7d3f03dcbb"
# Each push type with its own token (default.yaml and clients.yaml): the app's token is
# DeviceTokenNotForTopic on these topics, as on .voip.
DEV_SERVICE_TOKENS = {
    "voip": DEV_VOIP_TOKEN,
    "location": "c479dfd05447a7f2bad0b77099fbb6f59c86f973db7f90fbbd37fa3685af87e4",
    "pushtotalk": "87b0dc06007243dd74b0ce790bdb5bbdd134506986162a2c1c4cdc31114f33ce",
    "fileprovider": "47fe1abf0173fc2f65a18c3abef2e7eb78f551fc993a7269ea5dd65a03a81a70",
    "complication": "14fd60a60c692c387ffa3a5ba7adc3496edafd1a8d9609f681e333a6ef605a80",
    "widgets": "5674245411f3fe0ba269b434d4303af2f3363da2fc22fcc229bce7755161dc9c",
    "controls": "b9c6cca1cff93250674961d8f89917e2a39a00027511c185bf1e9e03e848670b",
}
DEV_UNREGISTERED_TOKEN = "a872ab5660d65b3f024321e7f41893b68be9974eeece3de92b4e3555279de6e5"
UNKNOWN_TOKEN = "0123456789abcdef" * 4      # well formed, known to no scenario
PROD_EXPIRED_TOKEN = "8c95d4aae3910f458abfea9259bee25ecd954c2e33876ec0d1414f4811c77024"  # default.yaml only
GONE_SINCE_MS = 1767225600000               # 2026-01-01T00:00:00Z: "since" of both 410 tokens
UNKNOWN_KEY_ID = "NOSUCHKEY1"               # a key id no scenario knows
OTHER_TOPIC = "com.other.app"               # an app of nobody in the scenarios
GENERATED = 2000                            # integration.yaml only


def dev_token(i: int) -> str:
    """The i-th generated development token (integration scenario)."""
    assert 0 <= i < GENERATED
    return "dd" + format(i, "x").rjust(62, "0")


def prod_token(i: int) -> str:
    assert 0 <= i < GENERATED
    return "ee" + format(i, "x").rjust(62, "0")


def mint_provider_token(issued_at: int | None = None, key_id: str = KEY_ID, team_id: str = TEAM_ID) -> str:
    key = (CERTS / f"AuthKey_{KEY_ID}.p8").read_text()
    iat = int(time.time()) if issued_at is None else issued_at
    return jwt.encode({"iss": team_id, "iat": iat}, key, algorithm="ES256", headers={"kid": key_id})


@functools.lru_cache(maxsize=1)
def provider_token() -> str:
    """One token for the whole run: APNs answers TooManyProviderTokenUpdates to a
    connection that changes its token within 20 minutes, and a run is far shorter
    than the token's one-hour life."""
    return mint_provider_token()


def auth_headers(topic: str = TOPIC, push_type: str = "alert") -> list[tuple[str, str]]:
    return [
        ("authorization", f"bearer {provider_token()}"),
        ("apns-topic", topic),
        ("apns-push-type", push_type),
    ]
