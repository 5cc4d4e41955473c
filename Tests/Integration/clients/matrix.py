"""The client matrix's one script: the same small sequence of pushes through one APNs client library.

Run inside the library's own venv (Tests/Integration/run.sh makes one per file in requirements/):

    python matrix.py ADAPTER --auth token|certificate --world world.json

ADAPTER names a module in adapters/ that wraps the library (see adapters/README.md). The script
prints one JSON object: what the library reported for each step, as the library surfaced it
(status, reason, 410 timestamp, apns-id). It judges nothing: test_client_matrix.py does.

The steps, in order, on one client (one connection pool), as a provider would send them:
  first_alert        an alert to a simulated phone (the test then looks for its banner)
  unregistered       a token whose app was uninstalled: 410 Unregistered with a timestamp
  bad_token          a malformed token: 400 BadDeviceToken
  expired_token      (token auth) a new client whose clock reads an hour and a second ago
  concurrent         300 pushes at once to 300 different phones
  push_type:<type>   one push of each push type the library can send
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import dataclasses
import importlib
import importlib.metadata
import inspect
import json
import sys
import threading
import time
import traceback
import uuid
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent))

import apple_hosts  # noqa: E402  (before any library resolves a name)
from capabilities import CAPABILITIES, Capabilities  # noqa: E402

# The topic suffix of each push type (Apple's "Sending notification requests to APNs").
TOPIC_SUFFIX = {
    "alert": "", "background": "", "voip": ".voip", "complication": ".complication",
    "fileprovider": ".pushkit.fileprovider", "liveactivity": ".push-type.liveactivity",
    "location": ".location-query", "pushtotalk": ".voip-ptt", "widgets": ".push-type.widgets",
    "controls": ".push-type.controls",
}


@dataclasses.dataclass
class World:
    """What the script needs to know about the server and its world (written by the test)."""
    address: str
    pushlab: str
    certs: str
    key_id: str
    team_id: str
    topic: str
    app_token: str
    voip_token: str
    # The token of each push type that has its own (voip, location, pushtotalk, …).
    service_tokens: dict[str, str]
    unregistered_token: str
    concurrent_tokens: list[str]
    nonce: str

    def path(self, name: str) -> str:
        return str(Path(self.certs) / name)

    @property
    def ca(self) -> str:
        return self.path("ca.pem")

    @property
    def signing_key(self) -> str:
        return self.path(f"AuthKey_{self.key_id}.p8")


@dataclasses.dataclass
class Push:
    token: str
    payload: dict
    push_type: str = "alert"
    topic: str | None = None
    priority: int | None = None
    expiration: int | None = None
    collapse_id: str | None = None
    apns_id: str | None = None


@dataclasses.dataclass
class Answer:
    """APNs's answer as the library surfaced it; `error` when it raised something else."""
    status: int | None = None
    reason: str | None = None
    timestamp: int | None = None
    apns_id: str | None = None
    error: str | None = None


def failure(exc: BaseException) -> Answer:
    return Answer(error=f"{type(exc).__name__}: {exc}"[:400])


def payload_for(push_type: str, nonce: str) -> tuple[dict, int | None]:
    """A payload that fits the push type, and the priority Apple asks for."""
    now = int(time.time())
    return {
        "alert": ({"aps": {"alert": {"title": "Matrix", "body": f"alert {nonce}"}}}, 10),
        "background": ({"aps": {"content-available": 1}, "nonce": nonce}, 5),
        "voip": ({"aps": {}, "caller": "Ann", "nonce": nonce}, 10),
        "complication": ({"aps": {"alert": f"complication {nonce}"}}, 10),
        "fileprovider": ({"container-identifier": "NSFileProviderRootContainerItemIdentifier"}, 10),
        "liveactivity": ({"aps": {"timestamp": now, "event": "update", "content-state": {"nonce": nonce}}}, 10),
        "location": ({"aps": {}}, 10),
        "pushtotalk": ({"aps": {}, "activeSpeaker": "Ann"}, 10),
        "widgets": ({"aps": {"content-changed": True}}, 5),
        "controls": ({"aps": {"content-changed": True}}, 5),
    }[push_type]


class Session:
    """One adapter's client, sync or async, driven from asyncio."""

    def __init__(self, adapter, world: World, auth: str):
        self.adapter, self.world, self.auth = adapter, world, auth
        self.client = None

    async def open(self):
        # In the event loop's thread: async libraries (aioapns) build their pools there.
        self.client = self.adapter.Client(self.world, self.auth)
        return self

    async def _call(self, function, *args):
        if inspect.iscoroutinefunction(function):
            return await function(*args)
        return await asyncio.to_thread(function, *args)

    async def send(self, push: Push) -> Answer:
        try:
            return await asyncio.wait_for(self._call(self.client.send, push), 30)
        except Exception as exc:   # a library error is a result to report, not a crash
            return failure(exc)

    async def send_many(self, pushes: list[Push]) -> list[Answer]:
        batch = getattr(self.client, "send_many", None)
        try:
            if batch is not None:
                return await asyncio.wait_for(self._call(batch, pushes), 120)
            if inspect.iscoroutinefunction(self.client.send):
                return list(await asyncio.wait_for(asyncio.gather(*(self.send(p) for p in pushes)), 120))
            return await asyncio.get_running_loop().run_in_executor(None, self._send_from_threads, pushes)
        except Exception as exc:
            return [failure(exc)] * len(pushes)

    def _send_from_threads(self, pushes: list[Push]) -> list[Answer]:
        """A synchronous client, shared by a pool of 16 threads as a provider would share it; a
        library whose client is not safe to share (THREAD_SAFE = False) gets one client per thread,
        as a provider using it would have to."""
        shared = getattr(self.adapter, "THREAD_SAFE", True)
        local, made, made_lock = threading.local(), [], threading.Lock()

        def client():
            if shared:
                return self.client
            if not hasattr(local, "client"):
                local.client = self.adapter.Client(self.world, self.auth)
                with made_lock:
                    made.append(local.client)
            return local.client

        def send(push: Push) -> Answer:
            try:
                return client().send(push)
            except Exception as exc:
                return failure(exc)

        try:
            with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
                return list(pool.map(send, pushes))
        finally:
            for one in made:
                with contextlib.suppress(Exception):
                    getattr(one, "close", lambda: None)()

    async def close(self):
        close = getattr(self.client, "close", None)
        if close is not None:
            try:
                await self._call(close)
            except Exception:
                pass


async def run(adapter, capabilities: Capabilities, world: World, auth: str) -> dict:
    steps: dict[str, list[dict] | dict] = {}

    def record(name, answers):
        steps[name] = [dataclasses.asdict(a) for a in answers]

    push_types = capabilities.matrix_push_types(auth)
    session = await Session(adapter, world, auth).open()
    try:
        if "alert" not in capabilities.sends(auth):   # the steps below are alerts: only the push-type steps apply
            return await push_type_steps(session, world, push_types, record, steps)
        payload, priority = payload_for("alert", world.nonce)
        record("first_alert", [await session.send(Push(world.app_token, payload, "alert", world.topic, priority))])
        record("unregistered", [await session.send(Push(world.unregistered_token, payload, "alert", world.topic, 10))])
        record("bad_token", [await session.send(Push("0badc0de", payload, "alert", world.topic, 10))])

        if auth == "token":
            # A provider whose clock is an hour and a second behind signs an expired token; the
            # library signs with whatever time.time() says, on a connection of its own.
            stale = time.time() - 3601
            with contextlib.ExitStack() as clocks:
                for target in ("time.time", *getattr(adapter, "CLOCK_PATCHES", ())):
                    clocks.enter_context(mock.patch(target, return_value=stale))
                if hasattr(adapter, "stale_clock"):
                    clocks.enter_context(adapter.stale_clock(stale))
                expired = await Session(adapter, world, auth).open()
                try:
                    record("expired_token", [await expired.send(Push(world.app_token, payload, "alert", world.topic, 10))])
                finally:
                    await expired.close()

        many = [Push(token, {"aps": {"alert": f"#{i} {world.nonce}"}}, "alert", world.topic, 10)
                for i, token in enumerate(world.concurrent_tokens)]
        record("concurrent", await session.send_many(many))

        return await push_type_steps(session, world, push_types, record, steps)
    finally:
        await session.close()


async def push_type_steps(session: Session, world: World, push_types, record, steps: dict) -> dict:
    for push_type in push_types:
        payload, priority = payload_for(push_type, world.nonce)
        token = world.service_tokens.get(push_type, world.app_token)
        push = Push(token, payload, push_type, world.topic + TOPIC_SUFFIX[push_type], priority,
                    expiration=0 if push_type == "pushtotalk" else None, apns_id=str(uuid.uuid4()))
        record(f"push_type:{push_type}", [await session.send(push)])
    return steps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("adapter")
    parser.add_argument("--auth", choices=("token", "certificate"), required=True)
    parser.add_argument("--world", required=True, help="JSON file with the World fields")
    args = parser.parse_args()
    world = World(**json.loads(Path(args.world).read_text()))
    apple_hosts.install(world.address)
    adapter = importlib.import_module(f"adapters.{args.adapter}")
    capabilities = CAPABILITIES[args.adapter]
    version = adapter.version() if hasattr(adapter, "version") else importlib.metadata.version(adapter.NAME)
    # The library's own list, where it has one (an enum): the test holds the declaration to it.
    library = getattr(adapter, "LIBRARY_PUSH_TYPES", None)
    out = {"client": adapter.NAME, "version": version, "auth": args.auth,
           "library_push_types": None if library is None else sorted(str(t) for t in library)}
    try:
        if args.auth not in capabilities.auth:
            raise ValueError(f"{adapter.NAME} declares no {args.auth} authentication (capabilities.py)")
        out["steps"] = asyncio.run(run(adapter, capabilities, world, args.auth))
    except Exception:
        out["crash"] = traceback.format_exc()[-2000:]
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
