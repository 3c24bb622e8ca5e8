"""A minimal headless-Chromium driver over the DevTools protocol on a pipe (stdlib only).

Test helper for tests/test_dashboard.py.  ``find_chromium()`` returns the system binary
(Debian's ``chromium``) or None.  ``Browser`` starts it with ``--remote-debugging-pipe``
(commands on fd 3, replies and events on fd 4, NUL-separated JSON), opens one page, and
collects console errors, uncaught exceptions and failed loads (Log / Runtime events).
Every wait has a timeout that raises ``TimeoutError`` naming what it waited for.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, binary: str, profile_dir: Path, timeout_s: float = 60.0):
        self.timeout_s = timeout_s
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire_fds():  # in the child: fd 3 reads our commands, fd 4 carries its replies
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)

        self.proc = subprocess.Popen(
            [binary, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--window-size=1400,1000",
             f"--user-data-dir={profile_dir}", "about:blank"],
            # 3 and 4 must survive close_fds, which runs after preexec_fn
            pass_fds=tuple(sorted({3, 4, to_child_r, from_child_w})), preexec_fn=wire_fds,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=True)

    # -- protocol ---------------------------------------------------------------------------
    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_child], [], [], left)[0]:
                raise TimeoutError("no DevTools message from chromium in time")
            chunk = os.read(self._from_child, 1 << 20)
            if not chunk:
                raise RuntimeError(f"chromium closed the DevTools pipe (exit status {self.proc.poll()})")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, params: dict[str, Any] | None = None, session: bool = False) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout_s
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_for_event(self, method: str, since: int) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout_s
        while True:
            for event in self.events[since:]:
                if event["method"] == method:
                    return event
            message = self._read_message(deadline)
            if "method" in message:
                self.events.append(message)

    # -- what the test uses -----------------------------------------------------------------
    def open(self, url: str) -> None:
        since = len(self.events)
        self.call("Page.navigate", {"url": url}, session=True)
        self.wait_for_event("Page.loadEventFired", since)

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: Path, max_height: int = 4000) -> Path:
        """The whole page (up to ``max_height`` CSS pixels tall) as a PNG."""
        size = self.call("Page.getLayoutMetrics", session=True)["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], max_height), "scale": 1}
        data = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip},
                         session=True)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions, and error log entries (e.g. a file that failed to load)."""
        out = []
        for event in self.events:
            params = event.get("params", {})
            if event["method"] == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                out.append("console." + params["type"] + ": " + " ".join(str(a.get("value", a.get("description"))) for a in params.get("args", [])))
            elif event["method"] == "Runtime.exceptionThrown":
                out.append("exception: " + str(params.get("exceptionDetails", {}).get("text")))
            elif event["method"] == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                entry = params["entry"]
                out.append(f"log: {entry.get('text')} {entry.get('url', '')}")
        return out

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            self.proc.wait(timeout=30)
        os.close(self._to_child)
        os.close(self._from_child)
