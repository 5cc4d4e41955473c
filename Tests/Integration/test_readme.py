"""The README's walkthrough, command by command, as a new user types it.

Every `sh` block from "## A first push" up to "## What Pushlab does today" runs in one bash
session (so `$JWT` carries over), in a directory laid out like a fresh clone (certs/, scenarios/,
.build/debug/pushlab), against `pushlab serve` started as the quick start does: default ports,
default store. A command that fails fails the test.
"""

from __future__ import annotations

import os
import re
import subprocess
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
