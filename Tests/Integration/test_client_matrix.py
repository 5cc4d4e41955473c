"""The client matrix: every APNs client library we can install, driven against `pushlab serve`.

Each library runs clients/matrix.py in its own venv (Tests/Integration/.venvs/<adapter>, made by
run.sh from clients/requirements/<adapter>.txt), once per auth mode, against one server with the
out-of-the-box world and policy (scenarios/clients.yaml: scenarios/default.yaml plus 300 phones).
The script reports what the library surfaced; the tests here judge each step. docs/CLIENTS.md
is the matrix in words.

What each library can do is declared in clients/capabilities.py. Each test below is collected for
exactly the libraries and auth modes that declare its step, and every collected case must pass:
nothing is skipped at run time, so a library that stops doing something fails.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "clients"))
from capabilities import CAPABILITIES, MATRIX_PUSH_TYPES  # noqa: E402

from conftest import PushlabServer, _finish, wait_for_binary
from world import (CERTS, DEV_SERVICE_TOKENS, DEV_TOKEN, DEV_UNREGISTERED_TOKEN, DEV_VOIP_TOKEN, GONE_SINCE_MS, KEY_ID,
                   TEAM_ID, TOPIC)

HERE = Path(__file__).resolve().parent
CLIENTS = HERE / "clients"
VENVS = HERE / ".venvs"
SCENARIO = HERE / "scenarios" / "clients.yaml"
ADAPTERS = sorted(p.stem for p in (CLIENTS / "requirements").glob("*.txt"))
CONCURRENT = [f"cc{i:062x}" for i in range(300)]


@pytest.fixture(scope="module")
def matrix_server(tmp_path_factory) -> PushlabServer:
    """Pushlab where Apple serves: ports 443 and 2197 (each serving both environments, told apart
    by the host name the client sends), on a loopback address of its own so that nothing else on
    the machine is in the way. Binding 443 needs root, as it would for a user."""
    if os.geteuid() != 0:
        pytest.skip("the client matrix binds port 443, as Apple's hosts serve: run it as root (CI does)")
    address = f"127.0.{random.randint(1, 254)}.{random.randint(2, 254)}"
    srv = PushlabServer(tmp_path_factory.mktemp("pushlab-clients"), scenario=SCENARIO, host=address,
                        ports=(443, 2197)).start()
    try:
        yield srv
    finally:
        _finish(srv)


_runs: dict[tuple[str, str], dict] = {}


def run_client(server: PushlabServer, adapter: str, auth: str, tmp: Path) -> dict:
    """matrix.py for one library and auth mode, once per module: the steps' tests share its report
    (or its failure)."""
    key = (adapter, auth)
    if key not in _runs:
        try:
            _runs[key] = _run_once(server, adapter, auth, tmp)
        except AssertionError as failure:
            _runs[key] = {"failure": str(failure)}
    if "failure" in _runs[key]:
        pytest.fail(_runs[key]["failure"])
    return _runs[key]


def _run_once(server: PushlabServer, adapter: str, auth: str, tmp: Path) -> dict:
    """Writes the world file, runs matrix.py in the library's venv, returns its report."""
    python = VENVS / adapter / "bin" / "python"
    assert python.exists(), f"no venv for {adapter}: run Tests/Integration/run.sh (it makes {python.parent.parent})"
    nonce = f"{adapter}-{auth}-{uuid.uuid4().hex[:8]}"
    world = tmp / f"{adapter}-{auth}.json"
    world.write_text(json.dumps({
        "address": server.host, "pushlab": str(wait_for_binary()), "certs": str(CERTS),
        "key_id": KEY_ID, "team_id": TEAM_ID, "topic": TOPIC, "app_token": DEV_TOKEN,
        "voip_token": DEV_VOIP_TOKEN, "service_tokens": DEV_SERVICE_TOKENS, "unregistered_token": DEV_UNREGISTERED_TOKEN,
        "concurrent_tokens": CONCURRENT, "nonce": nonce,
    }))
    done = subprocess.run([str(python), str(CLIENTS / "matrix.py"), adapter, "--auth", auth, "--world", str(world)],
                          cwd=CLIENTS, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"matrix.py failed:\n{done.stdout}\n{done.stderr[-3000:]}"
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert "crash" not in result, f"{adapter} ({auth}) crashed:\n{result['crash']}\n{done.stderr[-2000:]}"
    result["nonce"] = nonce
    return result


def answer(run: dict, name: str) -> dict:
    """The one answer of a step (collected only where the library declares it)."""
    steps = run["steps"]
    assert name in steps, f"step {name} did not run: {sorted(steps)}"
    (one,) = steps[name]
    if name not in capabilities(run).limits:
        assert one["error"] is None, f"{name}: the library raised {one['error']}"
    return one


def capabilities(run: dict):
    return CAPABILITIES[run["adapter"]]


def within_limits(answers: list[dict], status: int, reason: str | None) -> None:
    """For a step the library declares it cannot report: whatever it did surface must still be
    APNs's answer."""
    for one in answers:
        assert one["status"] in (None, status) and one["reason"] in (None, reason), one


def assert_answered(run: dict, one: dict, status: int, reason: str | None) -> None:
    """APNs's status and reason as the library surfaced them; the reason alone for a library that
    keeps a rejection's status to itself."""
    if capabilities(run).surfaces_status or status == 200:
        assert (one["status"], one["reason"]) == (status, reason)
    else:
        assert one["status"] is None and one["reason"] == reason


def banner_bodies(server: PushlabServer, device: str) -> list[str]:
    url = f"{server.control_url}/v1/devices/{device}/observations?kind=banner&limit=10000"
    with urllib.request.urlopen(url, timeout=10) as response:
        return [o.get("body") for o in json.load(response)["observations"]]


def cases(step: str, where=lambda capabilities, auth: True) -> list:
    """(adapter, auth) for every library and auth mode that declares `step`, with an id."""
    return [pytest.param(adapter, auth, id=f"{adapter}-{auth}")
            for adapter in ADAPTERS for auth in CAPABILITIES[adapter].auth
            if step in CAPABILITIES[adapter].steps(auth) and where(CAPABILITIES[adapter], auth)]


def unlimited(step: str):
    return lambda capabilities, auth: step not in capabilities.limits


def limited(step: str):
    return lambda capabilities, auth: step in capabilities.limits


@pytest.fixture
def run(matrix_server, tmp_path_factory, adapter, auth):
    report = run_client(matrix_server, adapter, auth, tmp_path_factory.mktemp("matrix", numbered=True))
    return {**report, "adapter": adapter}


@pytest.mark.parametrize("adapter,auth", [pytest.param(a, auth, id=f"{a}-{auth}") for a in ADAPTERS for auth in CAPABILITIES[a].auth])
def test_the_declared_push_types_are_the_librarys(run):
    """Where the library lists its push types (an enum), capabilities.py says the same."""
    library = run["library_push_types"]
    if library is not None:
        assert sorted(capabilities(run).push_types) == library, "update clients/capabilities.py to the library's list"
    assert sorted(run["steps"]) == sorted(capabilities(run).steps(run["auth"])), "every declared step ran"


@pytest.mark.parametrize("adapter,auth", cases("first_alert"))
def test_first_alert_is_accepted_and_shown(run, matrix_server):
    first = answer(run, "first_alert")
    assert (first["status"], first["reason"]) == (200, None)
    wanted = f"alert {run['nonce']}"
    deadline = time.monotonic() + 10
    while wanted not in banner_bodies(matrix_server, "ann"):
        assert time.monotonic() < deadline, f"no banner {wanted!r} on ann"
        time.sleep(0.1)


@pytest.mark.parametrize("adapter,auth", cases("unregistered", unlimited("unregistered")))
def test_uninstalled_app_is_410_unregistered_with_its_timestamp(run):
    gone = answer(run, "unregistered")
    assert_answered(run, gone, 410, "Unregistered")
    if capabilities(run).surfaces_timestamp:
        assert gone["timestamp"] == GONE_SINCE_MS, "the library must surface the 410's timestamp"
    else:
        assert gone["timestamp"] is None, "declared as hiding the 410's timestamp: update capabilities.py"


@pytest.mark.parametrize("adapter,auth", cases("bad_token", unlimited("bad_token")))
def test_malformed_token_is_bad_device_token(run):
    assert_answered(run, answer(run, "bad_token"), 400, "BadDeviceToken")


@pytest.mark.parametrize("adapter,auth", cases("expired_token", unlimited("expired_token")))
def test_expired_provider_token(run):
    assert_answered(run, answer(run, "expired_token"), 403, "ExpiredProviderToken")


@pytest.mark.parametrize("adapter,auth", cases("concurrent", unlimited("concurrent")))
def test_300_concurrent_pushes_to_300_phones(run):
    answers = run["steps"]["concurrent"]
    assert len(answers) == 300
    errors = [a["error"] for a in answers if a["error"]]
    assert not errors, f"{len(errors)} raised, e.g. {errors[0]}"
    assert [(a["status"], a["reason"]) for a in answers] == [(200, None)] * 300


LIMITED_STEPS = [pytest.param(adapter, auth, step, id=f"{adapter}-{auth}-{step}")
                 for adapter in ADAPTERS for auth in CAPABILITIES[adapter].auth for step in CAPABILITIES[adapter].limits
                 if step in CAPABILITIES[adapter].steps(auth)]
EXPECTED = {"unregistered": (410, "Unregistered"), "bad_token": (400, "BadDeviceToken"),
            "expired_token": (403, "ExpiredProviderToken"), "concurrent": (200, None)}


@pytest.mark.parametrize("adapter,auth,step", LIMITED_STEPS)
def test_a_declared_limit_still_surfaces_only_apns_answer(run, step):
    """A step the library cannot report (capabilities.py names why): what it did surface is APNs's."""
    within_limits(run["steps"][step], *EXPECTED[step])


PUSH_TYPE_CASES = [pytest.param(adapter, auth, push_type, id=f"{adapter}-{auth}-{push_type}")
                   for adapter in ADAPTERS for auth in CAPABILITIES[adapter].auth
                   for push_type in CAPABILITIES[adapter].matrix_push_types(auth)]


@pytest.mark.parametrize("adapter,auth,push_type", PUSH_TYPE_CASES)
def test_each_push_type_the_library_sends(run, push_type):
    assert push_type in MATRIX_PUSH_TYPES
    sent = answer(run, f"push_type:{push_type}")
    assert (sent["status"], sent["reason"]) == (200, None)
