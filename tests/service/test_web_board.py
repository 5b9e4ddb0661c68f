"""The web board in a real browser: headless Chromium (Debian's ``chromium``) driven over the DevTools protocol.

A server runs in process on 127.0.0.1; Chromium opens ``/``, an ID is pasted into the input (a
paste event carrying the text, as the clipboard gives it), and the drawn board, the evaluation,
the cube decision and the ranked plays must be those the API gives for that ID; clicking the
first play must show the position after it. A screenshot is written (``web_board.png`` in the
test's folder, and in ``$JUMPGAMMON_ARTIFACTS`` when that names a folder).

Marked ``slow``: it needs a browser outside the project (``apt-get install -y chromium``) and is
skipped, saying so, where there is none.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::DeprecationWarning")]
uvicorn = pytest.importorskip("uvicorn", reason="the serve extra (uvicorn) is not installed")

from nets.evaluator import load_evaluator  # noqa: E402
from service.api import create_app  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
PASTED = "4HPwATDgc/ABMA:cIkKAAAAAAAA"  # the opening, player 1 to play 5-2


class DevTools:
    """A minimal DevTools-protocol client over one WebSocket (RFC 6455 frames, client side masked)."""

    def __init__(self, url: str) -> None:
        m = re.match(r"ws://([^/:]+):(\d+)(/.*)", url)
        assert m, url
        self.sock = socket.create_connection((m.group(1), int(m.group(2))), timeout=60)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            f"GET {m.group(3)} HTTP/1.1\r\nHost: {m.group(1)}:{m.group(2)}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        assert b" 101 " in head.split(b"\r\n")[0], head
        self.next_id = 0

    def _recv_exact(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            assert chunk, "the browser closed the connection"
            out += chunk
        return out

    def _frame(self) -> tuple[bool, int, bytes]:
        b0, b1 = self._recv_exact(2)
        length = b1 & 0x7F
        if length == 126:
            length = struct.unpack(">H", self._recv_exact(2))[0]
        elif length == 127:
            length = struct.unpack(">Q", self._recv_exact(8))[0]
        return bool(b0 & 0x80), b0 & 0x0F, self._recv_exact(length)

    def _message(self) -> dict[str, Any]:
        """The next text message, its continuation frames joined (control frames skipped)."""
        parts: list[bytes] = []
        while True:
            fin, opcode, data = self._frame()
            if opcode in (0, 1):
                parts.append(data)
                if fin:
                    return dict(json.loads(b"".join(parts)))

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one command and return its result (events that arrive first are skipped)."""
        self.next_id += 1
        payload = json.dumps({"id": self.next_id, "method": method, "params": params}).encode()
        mask = os.urandom(4)
        header = bytes([0x81])
        n = len(payload)
        header += bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)
        while True:
            message = self._message()
            if message.get("id") == self.next_id:
                assert "error" not in message, message
                return dict(message.get("result", {}))

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        return result.get("result", {}).get("value")

    def wait_for(self, expression: str, timeout: float = 60.0) -> Any:
        """Poll until the expression is truthy; returns its value."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError(f"the page never satisfied {expression!r}")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    from benchmarks.service_load import free_port, get_json

    port = free_port()
    app = create_app(load_evaluator())
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while True:
        try:
            get_json("127.0.0.1", port, "/health", timeout=1)
            break
        except OSError:
            assert time.time() < deadline
            time.sleep(0.1)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[DevTools]:
    if CHROMIUM is None:
        pytest.fail("headless Chromium is needed for this test: apt-get install -y chromium")
    profile = tempfile.mkdtemp(prefix="jg-chromium-")
    proc = subprocess.Popen(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0",
         f"--user-data-dir={profile}", "--window-size=1280,900", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        line = ""
        deadline = time.time() + 60
        while "DevTools listening on" not in line:
            assert time.time() < deadline and proc.poll() is None, "chromium did not start"
            line = proc.stderr.readline()
        port = re.search(r"ws://[^:]+:(\d+)/", line)
        assert port
        with urllib.request.urlopen(f"http://127.0.0.1:{port.group(1)}/json/list", timeout=30) as r:
            pages = [t for t in json.loads(r.read()) if t["type"] == "page"]
        yield DevTools(pages[0]["webSocketDebuggerUrl"])
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(profile, ignore_errors=True)


def api(server: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        server + path, json.dumps(body).encode(), {"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=60) as r:
        return dict(json.loads(r.read()))


def board_counts(dev: DevTools) -> tuple[int, int, int]:
    """Checkers drawn: the side on roll's, the opponent's, and the dice."""
    mine, theirs, dice = (
        int(dev.evaluate(f"document.querySelectorAll('{sel}').length"))
        for sel in ("#board circle.mine", "#board circle.theirs", "#board rect.die")
    )
    return mine, theirs, dice


def test_paste_an_id_see_the_board_the_evaluation_the_cube_and_the_plays(
    server: str, browser: DevTools, tmp_path: Path
) -> None:
    dev = browser
    dev.call("Page.navigate", url=server + "/")
    dev.wait_for("document.body.dataset.shown")  # the opening, shown on load
    expected = api(server, "/api/evaluate", {"position": PASTED})
    hint = api(server, "/api/hint", {"position": PASTED})
    paste = (
        "(() => { const dt = new DataTransfer(); dt.setData('text', TEXT);"
        " document.getElementById('id').dispatchEvent(new ClipboardEvent('paste', {clipboardData: dt,"
        " bubbles: true, cancelable: true})); return true; })()"
    ).replace("TEXT", json.dumps(PASTED))
    dev.evaluate("delete document.body.dataset.shown; true")
    assert dev.evaluate(paste)
    assert dev.wait_for("document.body.dataset.shown") == expected["xgid"]
    dev.wait_for(f"document.querySelectorAll('#moves li').length === {min(20, hint['legal_plays'])}")
    board = expected["board"]
    # at most five checkers are drawn a point (a number stands for the rest)
    shown_mine = sum(min(v, 5) for v in board[1:25] if v > 0) + min(board[25], 5)
    shown_theirs = sum(min(-v, 5) for v in board[1:25] if v < 0) + min(-board[0], 5)
    assert board_counts(dev) == (shown_mine, shown_theirs, 2)
    assert dev.evaluate("document.querySelector('#board rect.cube').nextSibling.textContent") == "64"
    assert dev.evaluate("document.getElementById('id').value") == PASTED
    first = dev.evaluate("document.querySelector('#moves li').textContent")
    assert first.startswith(hint["moves"][0]["move"])
    assert dev.evaluate("document.querySelector('#moves li').dataset.xgid") == hint["moves"][0]["xgid"]
    evaluation = dev.evaluate("document.getElementById('evaluation').textContent")
    assert f"{100 * expected['probabilities']['win']:.1f}%" in evaluation
    cube = dev.evaluate("document.getElementById('cube').textContent")
    assert expected["cube"]["action"] in cube and "janowski" in cube
    # the dice are rolled: the actions shown are those before the roll, and the page says so, as eval does
    note = api(server, "/api/cube", {"position": PASTED})["note"]
    assert note and dev.evaluate("document.getElementById('cubenote').textContent") == note
    shot = base64.b64decode(dev.call("Page.captureScreenshot", format="png")["data"])
    assert shot[:8] == b"\x89PNG\r\n\x1a\n"
    (tmp_path / "web_board.png").write_bytes(shot)
    artefacts = os.environ.get("JUMPGAMMON_ARTIFACTS")
    if artefacts:
        Path(artefacts).mkdir(parents=True, exist_ok=True)
        (Path(artefacts) / "web_board.png").write_bytes(shot)


def test_click_a_play_to_see_the_position_after_it(server: str, browser: DevTools) -> None:
    dev = browser
    dev.call("Page.navigate", url=server + "/?position=" + urllib.parse.quote(PASTED))
    dev.wait_for("document.querySelectorAll('#moves li').length > 0")
    target = dev.evaluate("document.querySelector('#moves li').dataset.xgid")
    after = api(server, "/api/evaluate", {"position": target})
    dev.evaluate("document.querySelector('#moves li').click(); true")
    assert dev.wait_for(f"document.body.dataset.shown === {json.dumps(after['xgid'])} && 'yes'") == "yes"
    board = after["board"]
    shown_mine = sum(min(v, 5) for v in board[1:25] if v > 0) + min(board[25], 5)
    shown_theirs = sum(min(-v, 5) for v in board[1:25] if v < 0) + min(-board[0], 5)
    assert board_counts(dev) == (shown_mine, shown_theirs, 0)  # the opponent on roll, not rolled yet
    assert dev.evaluate("document.getElementById('back').disabled") is False


def test_a_bad_id_shows_the_error_and_keeps_the_page(server: str, browser: DevTools) -> None:
    dev = browser
    dev.call("Page.navigate", url=server + "/?position=not-an-id")
    message = dev.wait_for("document.body.dataset.error")
    assert "position" in message and "not-an-id" in message
    assert dev.evaluate("document.getElementById('status').textContent") == message


def test_a_slow_answer_for_an_earlier_position_does_not_overwrite_the_newer_one(server: str, browser: DevTools) -> None:
    """The plays of 5-2 arrived after the next position was drawn and were listed under it (an unrolled board)."""
    dev = browser
    dev.call("Page.navigate", url=server + "/?position=not-an-id")
    dev.wait_for("document.body.dataset.error")
    unrolled = "4HPwATDgc/ABMA:cAkAAAAAAAAA"  # the opening, player 1 on roll, no dice
    expected = api(server, "/api/evaluate", {"position": unrolled})
    slow_hint = (
        "(() => { const plain = window.fetch; window.fetch = async (path, init) => {"
        " if (path === '/api/hint') await new Promise(r => setTimeout(r, 800)); return plain(path, init); };"
        " return true; })()"
    )
    assert dev.evaluate(slow_hint)
    dev.evaluate(f"show({json.dumps(PASTED)}); setTimeout(() => show({json.dumps(unrolled)}), 50); true")
    assert dev.wait_for(f"document.body.dataset.shown === {json.dumps(expected['xgid'])} && 'yes'") == "yes"
    time.sleep(1.5)  # past the slow answer
    assert dev.evaluate("document.body.dataset.shown") == expected["xgid"]
    assert dev.evaluate("document.getElementById('moves').textContent") == "no dice rolled"
    assert dev.evaluate("document.body.dataset.error === undefined")  # the earlier error is cleared
