"""What the tests of ``python -m referee play`` share: its web server and page, and the agents a game left behind.

Used by tests/test_human_cli.py, tests/test_human_web.py and tests/human_play/.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.helpers import ROOT

WAIT = 120.0  # generous: only a hung server ever reaches it


class Server:
    """``python -m referee play --web --no-open --port 0 ...`` as a subprocess, and requests to it."""

    def __init__(self, *args: str, games: str | None = None):
        env = dict(os.environ, REFEREE_GAMES=games) if games else None  # games: a plug-in game (REFEREE_GAMES)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "referee", "play", "--web", "--no-open", "--port", "0", *args],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        assert self.proc.stdout is not None
        self.lines: list[str] = []
        for line in self.proc.stdout:
            self.lines.append(line)
            found = re.search(r"playing on (http://127\.0\.0\.1:\d+)/", line)
            if found:
                self.url = found[1]
                return
        raise AssertionError(f"the server did not start: {''.join(self.lines)}{self.proc.stderr.read()}")

    def request(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
                raw: bytes | None = None) -> tuple[int, Any]:
        """The status and the decoded JSON answer (the text, for HTML)."""
        data = raw if raw is not None else None if body is None else json.dumps(body).encode()
        heads = {"Content-Type": "application/json"} if body is not None else {}
        heads.update(headers or {})
        request = urllib.request.Request(self.url + path, data=data, method=method, headers=heads)
        try:
            with urllib.request.urlopen(request, timeout=WAIT) as response:
                status, kind, text = response.status, response.headers["Content-Type"], response.read().decode()
        except urllib.error.HTTPError as error:
            status, kind, text = error.code, error.headers["Content-Type"], error.read().decode()
        return status, json.loads(text) if kind.startswith("application/json") else text

    def get(self, path: str) -> Any:
        status, data = self.request("GET", path)
        assert status == 200, data
        return data

    def post(self, path: str, body: Any = None) -> Any:
        status, data = self.request("POST", path, body if body is not None else {})
        assert status == 200, data
        return data

    def stop(self, sig: int = signal.SIGINT) -> tuple[int, str, str]:
        """Send ``sig``; the exit status, standard output and error."""
        self.proc.send_signal(sig)
        out, err = self.proc.communicate(timeout=WAIT)
        return self.proc.returncode, "".join(self.lines) + out, err


def cell(page: Any, r: int, q: int) -> Any:
    """The play page's cell (r, q): a Playwright locator."""
    return page.locator(f'svg#board g.cell[data-r="{r}"][data-q="{q}"]')


def settled(page: Any, actions: int) -> None:
    """Wait until the page shows ``actions`` actions and nothing is moving or pending."""
    page.wait_for_selector(f'body[data-idle="yes"][data-shown="{actions}"]', timeout=WAIT * 1000)


def agents_with_hash_seed(hash_seed: int) -> list[int]:
    """The agent processes still running whose environment holds PYTHONHASHSEED=``hash_seed``."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
            environ = Path(f"/proc/{name}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"agent_host" in cmdline and f"PYTHONHASHSEED={hash_seed}".encode() in environ:
            found.append(int(name))
    return found
