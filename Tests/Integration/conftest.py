"""Fixtures: run the real `pushlab serve` binary on free ports, as a black box.

PUSHLAB_BIN names the binary; without it we ask `swift build --show-bin-path`
(which only prints the path, it never builds) and fall back to
.build/debug/pushlab. If the binary is momentarily missing because someone is
rebuilding, we wait for it to come back.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from world import CERTS, INTEGRATION_SCENARIO, REPO

BANNER_DEV = re.compile(r"^\s*development\s+https://([^\s:]+):(\d+)\s+\(as api\.sandbox\.push\.apple\.com\)", re.M)
BANNER_CONTROL = re.compile(r"^\s*control API\s+http://([^\s:]+):(\d+)", re.M)
BANNER_PROD = re.compile(r"^\s*production\s+https://([^\s:]+):(\d+)\s+\(as api\.push\.apple\.com\)", re.M)
READY = "Ready. Press Ctrl-C to stop."

STARTUP_TIMEOUT = 60.0    # a debug build on a busy 2-core machine can be slow to start


def read_banner(serve: subprocess.Popen, timeout: float = STARTUP_TIMEOUT) -> str:
    """What `pushlab serve` (started with its output on a text pipe) printed up to READY; the test
    fails with that text if it never said it."""
    banner = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = serve.stdout.readline()
        if not line:
            break
        banner.append(line)
        if READY in line:
            break
    text = "".join(banner)
    assert READY in text, f"pushlab serve did not start (are ports 2196-2198 free?):\n{text}"
    return text

SHUTDOWN_TIMEOUT = 20.0   # default --shutdown-grace-period is 10 s


def _default_bin() -> Path:
    env = os.environ.get("PUSHLAB_BIN")
    if env:
        return Path(env)
    if shutil.which("swift"):
        try:
            out = subprocess.run(["swift", "build", "--show-bin-path"], cwd=REPO, capture_output=True,
                                 text=True, timeout=15)
            if out.returncode == 0 and out.stdout.strip():
                return Path(out.stdout.strip().splitlines()[-1]) / "pushlab"
        except (OSError, subprocess.TimeoutExpired):
            pass
    return REPO / ".build" / "debug" / "pushlab"


PUSHLAB_BIN = _default_bin()


def wait_for_binary(path: Path = PUSHLAB_BIN, timeout: float | None = None) -> Path:
    """The binary, waiting (PUSHLAB_BIN_WAIT seconds, default 120) while it is missing."""
    if timeout is None:
        timeout = float(os.environ.get("PUSHLAB_BIN_WAIT", "120"))
    deadline = time.monotonic() + timeout
    while not (path.is_file() and os.access(path, os.X_OK)):
        if time.monotonic() > deadline:
            raise FileNotFoundError(f"pushlab binary not found at {path} (set PUSHLAB_BIN)")
        time.sleep(2)
    return path


class PushlabServer:
    """One `pushlab serve` process on two free ports (port 0)."""

    def __init__(self, workdir: Path, extra_args: tuple[str, ...] = (), scenario: Path | None = INTEGRATION_SCENARIO,
                 host: str = "127.0.0.1", ports: tuple[int, int] = (0, 0)):
        """scenario=None runs the server's own default world (scenarios/default.yaml); `ports` are
        the development and production ports (0: free ones)."""
        self.workdir = workdir
        self.host = host
        self.ports = ports
        self.extra_args = tuple(extra_args)
        self.scenario = scenario
        self.log_path = workdir / "pushlab.out"
        self.err_path = workdir / "pushlab.err"
        self.proc: subprocess.Popen | None = None
        self.dev_port = 0
        self.prod_port = 0
        self.returncode: int | None = None

    @property
    def port(self) -> int:
        return self.dev_port

    def start(self) -> "PushlabServer":
        binary = wait_for_binary()
        args = [
            str(binary), "serve",
            "--development-port", str(self.ports[0]), "--production-port", str(self.ports[1]), "--host", self.host,
            "--tls-cert", "certs/server.pem", "--tls-key", "certs/server-key.pem",
            "--client-ca", "certs/ca.pem",
            *(["--scenario", str(self.scenario)] if self.scenario else []),
            # Each server its own store, never the repository's pushlab.db, and its own control port.
            *([] if "--db" in self.extra_args else ["--db", str(self.workdir / "pushlab.db")]),
            *([] if "--control-port" in self.extra_args else ["--control-port", "0"]),
            # The JPush and GeTui listeners only where a test asks for them (--jpush-port 0).
            *([] if "--jpush-port" in self.extra_args else ["--jpush-port", "off"]),
            *([] if "--getui-port" in self.extra_args else ["--getui-port", "off"]),
            *self.extra_args,
        ]
        # stdout/stderr go to files: a pipe nobody drains could fill up and
        # block the server under load.
        self._out = open(self.log_path, "wb")
        self._err = open(self.err_path, "wb")
        self.proc = subprocess.Popen(args, cwd=REPO, stdout=self._out, stderr=self._err,
                                     stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while True:
            text = self.stdout()
            if READY in text:
                break
            if self.proc.poll() is not None:
                raise RuntimeError(f"pushlab exited with {self.proc.returncode} during startup:\n"
                                   f"{text}\n{self.stderr()}")
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"pushlab did not print {READY!r} within {STARTUP_TIMEOUT}s:\n"
                                   f"{text}\n{self.stderr()}")
            time.sleep(0.05)
        dev, prod = BANNER_DEV.search(text), BANNER_PROD.search(text)
        assert dev and prod, f"cannot parse the ports from the banner:\n{text}"
        assert dev.group(1) == self.host and prod.group(1) == self.host, text
        self.dev_port, self.prod_port = int(dev.group(2)), int(prod.group(2))
        control = BANNER_CONTROL.search(text)
        self.control_url = f"http://127.0.0.1:{control.group(2)}" if control else None
        assert self.dev_port != self.prod_port and 0 not in (self.dev_port, self.prod_port), text
        return self

    def stdout(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stderr(self) -> str:
        return self.err_path.read_text(errors="replace") if self.err_path.exists() else ""

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def send_signal(self, sig: int = signal.SIGTERM) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    def wait(self, timeout: float = SHUTDOWN_TIMEOUT) -> int:
        assert self.proc is not None
        self.returncode = self.proc.wait(timeout)
        self._close_files()
        return self.returncode

    def stop(self, sig: int = signal.SIGTERM, timeout: float = SHUTDOWN_TIMEOUT) -> int:
        """Graceful stop; returns the exit code (kills and raises on a hang)."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"pushlab did not exit within {timeout}s of signal {sig}")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self._close_files()

    def _close_files(self) -> None:
        for f in (getattr(self, "_out", None), getattr(self, "_err", None)):
            if f is not None and not f.closed:
                f.close()

    def describe(self) -> str:
        return f"pushlab stdout:\n{self.stdout()}\npushlab stderr (tail):\n{self.stderr()[-4000:]}"


def derived_scenario(directory: Path, **policy) -> Path:
    """scenarios/integration.yaml with more `policy:` settings, written into `directory`."""
    text = INTEGRATION_SCENARIO.read_text()
    text = text.replace("publicKey: ../../../certs/", f"publicKey: {CERTS}/")
    assert text.rstrip().splitlines()[-1].startswith("  "), "policy: must stay the last block"
    text = text.rstrip() + "\n" + "".join(f"  {k}: {v}\n" for k, v in policy.items())
    path = directory / "scenario.yaml"
    path.write_text(text)
    return path


def background_phones_scenario(path: Path, name: str, phones: int, prefix: str, id_prefix: str) -> Path:
    """A world of `phones` generated phones with the demo app in the background (tokens
    `prefix` + 62 hex digits, ids `id_prefix-N`), written at `path`, with the policy of a load:
    no per-token rate limit, no error budget, no throttling, every stream from the start."""
    path.write_text(f"""name: {name}
keys:
  - keyId: PUSHLAB001
    teamId: TEAMPUSHLB
    privateKey: {CERTS}/AuthKey_PUSHLAB001.p8
apps:
  - bundleId: com.pushlab.demo
    teamId: TEAMPUSHLB
generatedDevices:
  - count: {phones}
    bundleId: com.pushlab.demo
    prefix: {prefix}
    idPrefix: {id_prefix}
    state: background
policy:
  deviceTokenRateLimit: off
  errorBudgetPerConnection: off
  throttleStreamsAfterRejection: false
  streamsBeforeFirstValidToken: 1000
""")
    return path


def _finish(server: PushlabServer) -> None:
    """Teardown for a shared server: it must still be alive, and exit 0 on SIGTERM."""
    if not server.alive():
        rc = server.proc.returncode if server.proc else None
        server.kill()
        pytest.fail(f"pushlab died during the tests (exit code {rc})\n{server.describe()}")
    rc = server.stop(signal.SIGTERM)
    assert rc == 0, f"pushlab exited with {rc} after SIGTERM\n{server.describe()}"


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> PushlabServer:
    """A pushlab shared by one test module, with scenarios/integration.yaml
    (generated tokens, no rate limit, no error budget, no throttling).
    Stopped with SIGTERM at the end, and it must exit 0."""
    srv = PushlabServer(tmp_path_factory.mktemp("pushlab")).start()
    try:
        yield srv
    finally:
        _finish(srv)


@pytest.fixture(scope="module")
def default_server(tmp_path_factory) -> PushlabServer:
    """A pushlab with its out-of-the-box world (scenarios/default.yaml) and policy."""
    srv = PushlabServer(tmp_path_factory.mktemp("pushlab-default"), scenario=None).start()
    try:
        yield srv
    finally:
        _finish(srv)


@pytest.fixture
def fresh_server(tmp_path):
    """Factory for a test's own pushlab (for tests that signal or kill it).

    `fresh_server(*extra_args, scenario=...)` starts one (the integration
    scenario unless told otherwise; None for the default world); whatever is
    still running at the end of the test is killed (the test itself asserts
    how it should end).
    """
    started: list[PushlabServer] = []

    def start(*extra_args: str, scenario: Path | None = INTEGRATION_SCENARIO) -> PushlabServer:
        d = tmp_path / f"pushlab{len(started)}"
        d.mkdir()
        srv = PushlabServer(d, extra_args, scenario)
        started.append(srv)
        return srv.start()

    yield start
    for srv in started:
        srv.kill()


@pytest.fixture
def assert_alive(server):
    """Use in tests that abuse the shared server: after the test it must still be up."""
    yield server
    assert server.alive(), f"pushlab died (exit code {server.proc.returncode})\n{server.describe()}"


@pytest.fixture(scope="session")
def throwaway_key(tmp_path_factory) -> Path:
    """A fresh P-256 private key (PKCS#8 PEM, like a .p8) made with openssl,
    registered in no scenario."""
    path = tmp_path_factory.mktemp("throwaway-key") / "AuthKey_throwaway.p8"
    subprocess.run([tool("openssl"), "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                    "-out", str(path)], check=True, capture_output=True, timeout=30)
    assert path.read_text().startswith("-----BEGIN PRIVATE KEY-----")
    return path


def tool(name: str) -> str:
    path = shutil.which(name)
    assert path, f"{name} is not installed (Tests/Integration/run.sh installs it)"
    return path


# The longest files first, as measured (3 workers, 2 cores): each file runs whole on one worker
# (run.sh), and a long file collected last would leave the others waiting for it at the end.
SLOWEST_FIRST = ("test_cluster_world.py", "test_dist.py", "test_client_matrix.py", "test_dashboard.py", "test_crash_soak.py",
                 "test_cluster.py", "test_openapi.py", "test_certs.py", "test_long_load.py", "test_readme.py",
                 "test_h2_raw.py", "test_report.py", "test_apns_connection.py", "test_simulator.py")

# The files that take tens of seconds each (a cluster, the client matrix's venvs, kill -9 under
# load, a Debian root, a browser, schemathesis, the README on the default ports): make test-all
# and CI run them; `run.sh --quick` (make test) leaves them out.
LONG_FILES = frozenset(SLOWEST_FIRST[:10])


def pytest_addoption(parser):
    parser.addoption("--quick", action="store_true",
                     help="leave out the long files (LONG_FILES in conftest.py), as make test does")


def pytest_collection_modifyitems(session, config, items):
    if config.getoption("--quick"):
        left_out = [item for item in items if item.path.name in LONG_FILES]
        if left_out:
            config.hook.pytest_deselected(items=left_out)
            items[:] = [item for item in items if item.path.name not in LONG_FILES]
    rank = {name: index for index, name in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))   # stable: a file's tests keep their order


# Where the suite's time goes (scripts/ci-phases.sh): with PUSHLAB_PHASES set, each process that
# runs tests (each xdist worker) appends a line a test file, from its first test's start to its
# last test's end, and whether any of its tests failed.
_file_spans: dict[str, list[float]] = {}
_failed_files: set[str] = set()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    start = time.time()
    yield
    span = _file_spans.setdefault(item.path.name, [start, start])
    span[1] = time.time()


def pytest_runtest_logreport(report):
    if report.failed:
        _failed_files.add(Path(report.fspath).name)


def pytest_sessionfinish(session, exitstatus):
    phases = os.environ.get("PUSHLAB_PHASES")
    if not phases or not _file_spans:
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(phases, "a") as out:
        for name, (start, end) in _file_spans.items():
            out.write(f"integration/{name} ({worker})\t{start}\t{end}\t{1 if name in _failed_files else 0}\n")
