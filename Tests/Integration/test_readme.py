"""The README's walkthrough, and docs/LOAD-TESTING.md's worked example, command by command, as a
reader types them. Both serve on the default ports, so they live in one file (one test worker).

Every `sh` block from "## A first push" up to "## What Pushlab does today" runs in one bash
session (so `$JWT` carries over), in a directory laid out like a fresh clone (certs/, scenarios/,
.build/debug/pushlab), against `pushlab serve` started as the quick start does: default ports,
default store. A command that fails fails the test.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from conftest import PUSHLAB_BIN, REPO, read_banner, wait_for_binary

README = REPO / "README.md"


def walkthrough_blocks() -> list[str]:
    text = README.read_text()
    start = text.index("## A first push")
    end = text.index("## What Pushlab does today")
    return re.findall(r"```sh\n(.*?)```", text[start:end], re.S)


def clone_layout(root: Path) -> None:
    """What a fresh clone has after `make serve`: the repository's files, the built binary."""
    for name in ("certs", "scenarios"):
        (root / name).symlink_to(REPO / name)
    (root / ".build" / "debug").mkdir(parents=True)
    (root / ".build" / "debug" / "pushlab").symlink_to(wait_for_binary(PUSHLAB_BIN))


def test_the_readme_walkthrough_runs_as_written(tmp_path):
    blocks = walkthrough_blocks()
    assert len(blocks) >= 5, "the walkthrough's commands were not found"
    clone_layout(tmp_path)
    serve = subprocess.Popen([".build/debug/pushlab", "serve"], cwd=tmp_path, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
    try:
        text = read_banner(serve)
        # The quick start shows these lines of the banner.
        assert "development  https://127.0.0.1:2197  (as api.sandbox.push.apple.com)" in text
        assert "production   https://127.0.0.1:2196  (as api.push.apple.com)" in text

        script = "set -euo pipefail\n" + "\n".join(f"echo '::block {i}'\n{block}" for i, block in enumerate(blocks))
        done = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                              env={**os.environ, "NO_COLOR": "1"})
        out = done.stdout
        assert done.returncode == 0, f"a README command failed (exit {done.returncode}):\n{out}\n{done.stderr}"
        assert "HTTP/2 200" in out and "apns-id:" in out
        assert re.search(r"^200  accepted  apns-id: [0-9A-F-]{36}", out, re.M), "pushlab send"
        assert re.search(r"ann  com\.pushlab\.demo  banner .*\"hi\"", out), "pushlab observations"
        assert '"callback":"application:didReceiveRemoteNotification:fetchCompletionHandler:"' in out, "eve's callbacks"
        assert '{"reason":"Unregistered","timestamp":1767225600000}' in out
        assert "PASS tap-app-icon-loses-payload (16 steps)" in out
    finally:
        serve.terminate()
        assert serve.wait(timeout=30) == 0


GUIDE = REPO / "docs" / "LOAD-TESTING.md"


def example_blocks() -> list[str]:
    text = GUIDE.read_text()
    start = text.index("## A worked example")
    end = text.index("## Failing CI on a finding")
    return re.findall(r"```sh\n(.*?)```", text[start:end], re.S)


def test_the_worked_example_runs_as_written(tmp_path):
    """docs/LOAD-TESTING.md's worked example: its first `sh` block starts `pushlab serve` (in the
    background here, as in a terminal of its own); every later block of the section runs with
    `pushlab` on the PATH and the suite's Python (which has aioapns) as `python3`, in a directory
    laid out like a fresh clone; the report says what the guide says it says."""
    blocks = example_blocks()
    assert len(blocks) == 4, "the worked example's commands were not found"
    serve_words = shlex.split(blocks[0])
    assert serve_words[:2] == ["pushlab", "serve"], blocks[0]
    for name in ("certs", "scenarios", "Benchmarks"):
        (tmp_path / name).symlink_to(REPO / name)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "pushlab").symlink_to(wait_for_binary(PUSHLAB_BIN))
    # A script, not a link: a link to a virtualenv's Python starts Python without the virtualenv.
    (bin_dir / "python3").write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} \"$@\"\n")
    (bin_dir / "python3").chmod(0o755)
    env = {**os.environ, "NO_COLOR": "1", "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    serve = subprocess.Popen([str(bin_dir / "pushlab"), *serve_words[1:], "--db", ":memory:"], cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        read_banner(serve, timeout=180)
        outputs = []
        for block in blocks[1:]:
            done = subprocess.run(["bash", "-c", "set -euo pipefail\n" + block], cwd=tmp_path, capture_output=True, text=True,
                                  timeout=300, env=env)
            assert done.returncode == 0, f"a command of the guide failed (exit {done.returncode}):\n{block}\n{done.stdout}\n{done.stderr}"
            outputs.append(done.stdout)
        h2load, shared, per_push = outputs
        assert re.search(r"requests: 20000 total, 20000 started, 20000 done", h2load), h2load
        assert "key:PUSHLAB001" in h2load and re.search(r"latency +p50 \d", h2load), h2load
        # Each h2load client walks the same list: the first 5,000 phones get the push four times.
        assert "✗ duplicate-push" in h2load, h2load
        assert "1000 pushes in" in shared and "1000 × 200" in shared, shared
        assert "✗ connection-per-push" not in shared, "aioapns keeps its connections"
        for finding in ("connection-per-push", "token-refreshed-too-often"):
            assert f"✗ {finding}" in per_push, per_push
        assert "20 opened" in per_push, per_push
    finally:
        serve.terminate()
        serve.wait(timeout=30)
