"""`pushlab run`: every shipped scenario passes; failures are reported and fail the exit status."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import CERTS, REPO, wait_for_binary

PROBLEMS = sorted((REPO / "scenarios" / "problems").glob("*.yaml"))

# The classic delivery problems issue 5 names, each a shipped scenario.
EXPECTED_PROBLEMS = {
    "tap-app-icon-loses-payload", "silent-push-to-force-quit-app", "silent-pushes-throttled-by-budget",
    "development-token-sent-to-production", "expired-provider-token", "provider-token-refreshed-too-often",
    "uninstalled-app-410", "missing-category-no-action-buttons", "offline-device-expiration-zero",
    "notification-replaced-by-collapse-id",
}


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(wait_for_binary()), "run", *args], cwd=REPO, capture_output=True, text=True, timeout=180)


def test_the_classic_problems_are_all_shipped():
    assert {p.stem for p in PROBLEMS} >= EXPECTED_PROBLEMS


@pytest.mark.parametrize("scenario", PROBLEMS, ids=lambda p: p.stem)
def test_every_shipped_scenario_passes(scenario: Path):
    p = run(str(scenario.relative_to(REPO)))
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"PASS {scenario.stem}" in p.stdout
    assert "\x1b[" not in p.stdout, "no colour when the output is piped"


def write_scenario(tmp_path: Path, steps: str, name: str = "mine", clock: str = "clock: { start: 2026-01-01T00:00:00Z }") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"""
name: {name}
{clock}
keys:
  - {{ keyId: PUSHLAB001, teamId: TEAMPUSHLB, privateKey: {CERTS / 'AuthKey_PUSHLAB001.p8'} }}
apps:
  - {{ bundleId: com.pushlab.demo, teamId: TEAMPUSHLB }}
devices:
  - id: phone
    apps: [{{ bundleId: com.pushlab.demo, state: background }}]
steps:
{steps}
""")
    return path


def test_a_wrong_expectation_fails_with_what_was_observed(tmp_path):
    path = write_scenario(tmp_path, """
  - name: an alert
    send: { device: phone, payload: { aps: { alert: Hi } } }
    expect:
      status: 200
      observations: [{ kind: banner, body: Hello }]
  - name: the answer
    send: { device: phone, environment: production, payload: { aps: { alert: Hi } } }
    expect: { status: 200 }
""")
    p = run(str(path))
    assert p.returncode == 1, p.stdout + p.stderr
    assert '✗ 1. an alert' in p.stdout
    assert 'expected an observation {"kind":"banner","body":"Hello"}; none matched' in p.stdout
    assert "phone banner" in p.stdout and "body=Hi" in p.stdout, "what was observed is shown"
    assert "expected status 200, got 400 BadDeviceToken" in p.stdout
    assert "FAIL mine: 2 of 2 steps failed" in p.stdout


def test_json_report_for_several_files(tmp_path):
    good = write_scenario(tmp_path, "  - send: { device: phone, payload: { aps: { alert: Hi } } }\n    expect: { status: 200 }", "good")
    bad = write_scenario(tmp_path, "  - changeApp: { device: nobody, state: foreground }\n  - advanceClock: 1h", "bad")
    p = run(str(good), str(bad), "--json")
    assert p.returncode == 1, p.stderr
    report = json.loads(p.stdout)
    assert report["passed"] is False
    first, second = report["scenarios"]
    assert first["passed"] is True and first["steps"][0]["answer"]["status"] == 200
    assert first["steps"][0]["observations"][0]["kind"] == "delivered"
    assert [s["outcome"] for s in second["steps"]] == ["failed", "skipped"]
    assert "No device nobody" in second["steps"][0]["failures"][0]


def test_a_scenario_with_a_mistake_is_refused_with_its_place(tmp_path):
    path = write_scenario(tmp_path, "  - send: { device: phone, payload: {}, priorty: 5 }")
    p = run(str(path))
    assert p.returncode == 1
    assert "steps[0].send has unknown keys: priorty" in p.stdout
    missing = run(str(tmp_path / "nowhere.yaml"))
    assert missing.returncode == 1 and "Cannot read scenario" in missing.stdout


def test_against_a_running_server(fresh_server):
    srv = fresh_server(scenario=None)
    scenario = REPO / "scenarios" / "problems" / "uninstalled-app-410.yaml"
    p = run("--server", srv.control_url, "--ca", str(CERTS / "ca.pem"), str(scenario))
    assert p.returncode == 0, p.stdout + p.stderr
    # The server keeps what the run left, for a look afterwards.
    pushes = subprocess.run(["curl", "-s", f"{srv.control_url}/v1/pushes?reason=Unregistered"], capture_output=True, text=True)
    # The uninstalled app's token twice (the second time a push the report names), the old token of the reinstalled one once.
    assert len(json.loads(pushes.stdout)["pushes"]) == 3
    health = json.loads(subprocess.run(["curl", "-s", f"{srv.control_url}/v1/health"], capture_output=True, text=True).stdout)
    assert health["scenario"] == "uninstalled-app-410"


def test_a_running_server_refuses_other_simulator_settings(fresh_server, tmp_path):
    srv = fresh_server(scenario=None)
    path = tmp_path / "budget.yaml"
    path.write_text("simulator: { backgroundPushesPerHour: 7 }\nsteps:\n  - advanceClock: 1\n")
    p = run("--server", srv.control_url, str(path))
    assert p.returncode == 1
    assert "has other simulator settings than this server runs with" in p.stdout
    health = json.loads(subprocess.run(["curl", "-s", f"{srv.control_url}/v1/health"], capture_output=True, text=True).stdout)
    assert health["scenario"] == "default", "the server keeps its world"


def test_certificate_auth_and_fault_steps(tmp_path):
    # No clock.start: the server judges the certificate's validity by its clock, and the test
    # certificates were made recently.
    path = write_scenario(tmp_path, clock="", steps=f"""
  - name: a client certificate instead of a provider token
    send:
      device: phone
      auth: {{ certificate: {CERTS / 'client.pem'}, certificateKey: {CERTS / 'client-key.pem'} }}
      payload: {{ aps: {{ alert: By certificate }} }}
    expect: {{ status: 200, observations: [{{ kind: banner, body: By certificate }}] }}
  - addFault: {{ count: 1, respond: {{ reason: ServiceUnavailable }} }}
  - name: the fault answers once
    send: {{ device: phone, payload: {{ aps: {{ alert: Hi }} }} }}
    expect: {{ status: 503, reason: ServiceUnavailable, nothingObserved: true }}
  - name: then APNs answers again
    send: {{ device: phone, payload: {{ aps: {{ alert: Hi }} }} }}
    expect: {{ status: 200 }}
""")
    p = run(str(path))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "PASS mine (4 steps)" in p.stdout
