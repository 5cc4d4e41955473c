"""Pushlab without Swift: the release tarball (scripts/dist.sh) unpacked in a stock Debian 12 root
that has only the runtime libraries (scripts/debian-root.sh, made by debootstrap), run there,
and pushed to from outside with curl and `pushlab send`; then the same root and tarball as a
container image (scripts/image.sh, buildah) run with podman.

The binary is PUSHLAB_DIST_BIN: a build with the Swift runtime linked in (on Linux every build of
pushlab is; make test-all passes .build/debug/pushlab). Needs root, as debootstrap, chroot and podman do (CI runs as root)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import tarfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import BANNER_CONTROL, BANNER_DEV, READY, tool, wait_for_binary
from world import CERTS, DEV_TOKEN, KEY_ID, REPO, TEAM_ID, TOPIC, provider_token

ANN_TOKEN = DEV_TOKEN   # ann's phone in scenarios/default.yaml, app in the background


def dist_binary() -> Path:
    path = os.environ.get("PUSHLAB_DIST_BIN")
    assert path, "set PUSHLAB_DIST_BIN to a pushlab with the Swift runtime linked in, such as .build/debug/pushlab (make test-all does)"
    assert Path(path).is_file(), f"PUSHLAB_DIST_BIN {path} does not exist"
    return Path(path)


@pytest.fixture(scope="module")
def tarball(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    made = subprocess.run([str(REPO / "scripts" / "dist.sh"), "--binary", str(dist_binary()), "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    return Path(made.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def debian_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("debian") / "root"
    made = subprocess.run([str(REPO / "scripts" / "debian-root.sh"), str(root)], capture_output=True, text=True, timeout=900)
    assert made.returncode == 0, made.stderr
    return root


def control(url: str, path: str, token: str | None = None) -> dict:
    request = urllib.request.Request(url + path, headers={"authorization": f"Bearer {token}"} if token else {})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read() or b"{}")


def started(process: subprocess.Popen, log: Path, timeout: float = 60) -> tuple[int, str]:
    """The development port and the control URL from the banner, once it says it is ready."""
    deadline = time.monotonic() + timeout
    while READY not in log.read_text(errors="replace"):
        assert process.poll() is None, f"pushlab exited with {process.returncode}:\n{log.read_text(errors='replace')}"
        assert time.monotonic() < deadline, f"pushlab did not start:\n{log.read_text(errors='replace')}"
        time.sleep(0.1)
    text = log.read_text(errors="replace")
    dev, control_url = BANNER_DEV.search(text), BANNER_CONTROL.search(text)
    assert dev and control_url, text
    return int(dev.group(2)), f"http://127.0.0.1:{control_url.group(2)}"


def push_from_outside(port: int, control_url: str, token: str | None = None) -> None:
    """curl and `pushlab send` (the host's, not the tarball's) push to ann; her phone shows both."""
    pushed = subprocess.run([tool("curl"), "-sS", "--http2", "--cacert", str(CERTS / "ca.pem"), "-o", "/dev/null", "-w", "%{http_code}",
                             "-H", f"authorization: bearer {provider_token()}", "-H", f"apns-topic: {TOPIC}",
                             "-d", '{"aps":{"alert":"from curl"}}', f"https://localhost:{port}/3/device/{ANN_TOKEN}"],
                            capture_output=True, text=True, timeout=30)
    assert pushed.stdout == "200", pushed
    sent = subprocess.run([str(wait_for_binary()), "send", ANN_TOKEN, "--server", f"localhost:{port}", "--ca", str(CERTS / "ca.pem"),
                           "--topic", TOPIC, "--key", str(CERTS / f"AuthKey_{KEY_ID}.p8"), "--key-id", KEY_ID, "--team-id", TEAM_ID,
                           "--payload", '{"aps":{"alert":"from pushlab send"}}'], capture_output=True, text=True, timeout=30)
    assert sent.returncode == 0 and sent.stdout.startswith("200"), sent
    deadline = time.monotonic() + 10
    while True:
        banners = [o.get("body") for o in control(control_url, "/v1/devices/ann/observations?kind=banner", token)["observations"]]
        if banners == ["from curl", "from pushlab send"] or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert banners == ["from curl", "from pushlab send"]


def test_the_tarball_holds_a_binary_that_needs_no_swift(tarball):
    with tarfile.open(tarball) as archive:
        names = archive.getnames()
    top = names[0].split("/")[0]
    for needed in ("bin/pushlab", "certs/server.pem", "certs/ca.pem", "scenarios/default.yaml", "README.md", "RUNTIME-DEPENDENCIES"):
        assert f"{top}/{needed}" in names, needed
    linked = subprocess.run(["ldd", str(dist_binary())], capture_output=True, text=True).stdout
    assert "libswift" not in linked and "libFoundation" not in linked, linked


def test_a_stock_debian_root_runs_the_tarball_and_a_push_reaches_a_phone(tarball, debian_root, tmp_path):
    root = debian_root
    assert not (root / "usr" / "bin" / "swift").exists() and not list((root / "usr" / "lib").glob("**/libswiftCore.so"))
    with tarfile.open(tarball) as archive:
        archive.extractall(root / "opt")
        top = archive.getnames()[0].split("/")[0]
    needed = (root / "opt" / top / "RUNTIME-DEPENDENCIES").read_text().split()
    installed = subprocess.run(["chroot", str(root), "dpkg-query", "-W", "-f", "${Package}\\n"], capture_output=True, text=True).stdout.split()
    assert set(needed) <= set(installed), f"the root lacks {set(needed) - set(installed)}"
    assert not [p for p in installed if p.endswith("-dev") or p.startswith("swift")], installed

    mounts = [(root / "proc", ["-t", "proc", "proc"]), (root / "dev", ["--bind", "/dev"])]
    for target, how in mounts:
        subprocess.run(["mount", *how, str(target)], check=True)
    log = tmp_path / "pushlab.out"
    try:
        # From / inside the root: pushlab finds certs/ and scenarios/ beside itself.
        with open(log, "wb") as out:
            process = subprocess.Popen(["chroot", str(root), f"/opt/{top}/bin/pushlab", "serve", "--development-port", "0",
                                        "--production-port", "0", "--control-port", "0", "--channel-management-port", "off",
                                        "--db", "/tmp/pushlab.db"], stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            port, control_url = started(process, log)
            assert f"/opt/{top}/scenarios/default.yaml" in log.read_text()
            push_from_outside(port, control_url)
            process.send_signal(signal.SIGTERM)
            assert process.wait(20) == 0, log.read_text()
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(10)
        assert (root / "tmp" / "pushlab.db").exists(), "the store was written inside the root"
    finally:
        for target, _ in reversed(mounts):
            subprocess.run(["umount", "-l", str(target)])


def test_the_image_runs_with_podman_and_a_push_reaches_a_phone(tarball, tmp_path):
    image = f"localhost/pushlab-test:{tmp_path.name}"
    built = subprocess.run([str(REPO / "scripts" / "image.sh"), "--tarball", str(tarball), "--tag", image],
                           capture_output=True, text=True, timeout=900)
    assert built.returncode == 0, built.stderr
    port, control_port = free_port(), free_port()
    name = f"pushlab-test-{tmp_path.name}"[:60]
    run = subprocess.run(["podman", *PODMAN_FLAGS, "run", "-d", "--rm", "--name", name, *RUN_FLAGS,
                          "-e", "PUSHLAB_CONTROL_TOKEN=let-me-in", image, "serve", "--host", "0.0.0.0", "--control-host", "0.0.0.0",
                          "--development-port", str(port), "--production-port", "0", "--control-port", str(control_port),
                          "--channel-management-port", "off"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    try:
        log = tmp_path / "container.out"
        deadline = time.monotonic() + 60
        while True:
            logs = subprocess.run(["podman", *PODMAN_FLAGS, "logs", name], capture_output=True, text=True)
            log.write_text(logs.stdout + logs.stderr)
            if READY in log.read_text() or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        text = log.read_text()
        assert READY in text, text
        assert re.search(r"control API\s+http://0\.0\.0\.0:%d" % control_port, text), text
        # Beyond loopback the control API needs its token (SECURITY.md), taken from the environment.
        with pytest.raises(urllib.error.HTTPError) as refused:
            control(f"http://127.0.0.1:{control_port}", "/v1/health")
        assert refused.value.code == 401
        push_from_outside(port, f"http://127.0.0.1:{control_port}", token="let-me-in")
    finally:
        subprocess.run(["podman", *PODMAN_FLAGS, "stop", "-t", "10", name], capture_output=True, timeout=60)
        subprocess.run(["podman", *PODMAN_FLAGS, "rmi", "-f", image], capture_output=True, timeout=60)


# This machine's podman: vfs storage, runc (crun refuses its hybrid cgroups), limits no higher than
# the host's, the host's network. scripts/image.sh documents the same flags.
PODMAN_FLAGS = ["--storage-driver", "vfs", "--runtime", "runc"]
RUN_FLAGS = ["--network", "host", "--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
