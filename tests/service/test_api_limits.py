"""The HTTP API's limits: one rollout at a time (503 at once, not a queue), a rollout stopped by its client's
disconnection or the server's time limit, rollouts refused once the weights file changed, the body size
limit and the Host check of a loopback server.

Rollouts here use tiny lockstep blocks (``ROLLOUT_BLOCK_ROWS`` patched) so that a few trials cross a block
boundary; where a test must hold a rollout running, ``run_rollouts`` is replaced by one that waits.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the serve extra (fastapi) is not installed")
httpx = pytest.importorskip("httpx", reason="httpx is not installed")

from fastapi.testclient import TestClient  # noqa: E402

import service.api as api  # noqa: E402
from arena.rollout import RolloutConfig, RolloutResult, RolloutStart, run_rollouts  # noqa: E402
from nets.evaluator import Evaluator, load_evaluator  # noqa: E402
from service.api import MAX_BODY_BYTES, ServeSettings, app_from_settings, create_app  # noqa: E402
from service.guard import host_name, loopback_hosts  # noqa: E402
from weights import DEFAULT_WEIGHTS  # noqa: E402

OPENING = "4HPwATDgc/ABMA"
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
#: How long a test waits for a rollout thread to reach a point (generous: the machine may be busy).
WAIT_SECONDS = 60


@pytest.fixture(scope="module")
def evaluator() -> Evaluator:
    return load_evaluator()


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api, "ROLLOUT_BLOCK_ROWS", {0: 3, 1: 3})


RunRollouts = Callable[..., list[RolloutResult]]


def spy(monkeypatch: pytest.MonkeyPatch, before: Callable[[RolloutConfig, Any], None] | None = None) -> list[Any]:
    """Replace the service's ``run_rollouts`` by one that records each config, runs ``before(config, stop)``, then
    plays the real rollout; returns the list of recorded configs."""
    seen: list[Any] = []

    def recorded(starts: Sequence[RolloutStart], config: RolloutConfig, **kwargs: Any) -> list[RolloutResult]:
        seen.append(config)
        if before is not None:
            before(config, kwargs.get("stop"))
        return run_rollouts(starts, config, **kwargs)

    monkeypatch.setattr(api, "run_rollouts", recorded)
    return seen


def test_a_seeded_rollout_equals_run_rollouts_with_the_default_blocks(
    evaluator: Evaluator, small_blocks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = spy(monkeypatch)
    with TestClient(create_app(evaluator)) as c:
        r = c.post("/api/rollout", json={"position": OPENING, "trials": 8, "cubeful": True, "seed": 11})
    assert r.status_code == 200 and seen[0].block_rows == 3  # three blocks, not one
    d = r.json()
    assert d.pop("trials_requested") == 8 and d.pop("stopped") is None
    expected = run_rollouts([RolloutStart.parse(OPENING)], RolloutConfig(trials=8, cubeful=True, seed=11))
    assert d == json.loads(json.dumps(expected[0].to_json()))


def test_the_service_plays_small_blocks_at_each_depth(evaluator: Evaluator, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = spy(monkeypatch)
    with TestClient(create_app(evaluator)) as c:
        for plies in (0, 1):
            assert c.post("/api/rollout", json={"position": OPENING, "trials": 1, "plies": plies}).status_code == 200
    assert [config.block_rows for config in seen] == [api.ROLLOUT_BLOCK_ROWS[0], api.ROLLOUT_BLOCK_ROWS[1]]
    assert all(config.block_rows < RolloutConfig().block_rows for config in seen)


def test_the_time_limit_stops_a_rollout_after_its_block_with_what_it_has(
    evaluator: Evaluator, small_blocks: None
) -> None:
    with TestClient(create_app(evaluator, max_rollout_seconds=0.001)) as c:
        r = c.post("/api/rollout", json={"position": OPENING, "trials": 12})
    d = r.json()
    assert r.status_code == 200 and d["trials"] == 3 and d["trials_requested"] == 12
    assert d["stopped"] == "time limit of 0.001 s reached"


def test_a_second_rollout_is_refused_at_once_while_one_runs(
    evaluator: Evaluator, monkeypatch: pytest.MonkeyPatch
) -> None:
    entered, release = threading.Event(), threading.Event()

    def hold(config: RolloutConfig, stop: Any) -> None:
        entered.set()
        assert release.wait(WAIT_SECONDS)

    spy(monkeypatch, hold)
    app = create_app(evaluator, max_rollout_seconds=30)

    async def scenario() -> tuple[Any, float, Any, Any]:  # three httpx responses and the seconds the second took
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c:
            body = {"position": OPENING, "trials": 2}
            first = asyncio.create_task(c.post("/api/rollout", json=body))
            deadline = time.monotonic() + WAIT_SECONDS
            while not entered.is_set():
                assert time.monotonic() < deadline and not first.done()
                await asyncio.sleep(0.01)
            started = time.monotonic()
            second = await c.post("/api/rollout", json=body)
            waited = time.monotonic() - started
            release.set()
            done = await first
            third = await c.post("/api/rollout", json=body)  # the slot is free again
            return second, waited, done, third

    second, waited, first, third = asyncio.run(scenario())
    d = second.json()
    assert second.status_code == 503 and d["field"] == "server" and "already running" in d["error"]
    assert 1 <= int(second.headers["retry-after"]) <= 30 and waited < 5  # answered, not queued
    assert first.status_code == 200 and first.json()["trials"] == 2
    assert third.status_code == 200


async def _call(app: Any, path: str, body: bytes, receive_after: Callable[[], Any]) -> list[dict[str, Any]]:
    """The ASGI messages ``app`` sends for one POST whose client sends ``body``, then ``receive_after()``."""
    sent: list[dict[str, Any]] = []
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict[str, Any]:
        if pending:
            return pending.pop(0)
        return await receive_after()

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver"), (b"content-type", b"application/json")],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }
    await app(scope, receive, send)
    return sent


def test_a_rollout_stops_when_its_client_disconnects(
    evaluator: Evaluator, small_blocks: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    stopped = threading.Event()

    def until_stopped(config: RolloutConfig, stop: Any) -> None:  # as run_rollouts asks after each block
        deadline = time.monotonic() + WAIT_SECONDS
        while not stop([]):
            assert time.monotonic() < deadline, "the rollout was never told to stop"
            time.sleep(0.05)
        stopped.set()

    spy(monkeypatch, until_stopped)

    async def gone() -> dict[str, Any]:  # the client is gone once its request is read
        return {"type": "http.disconnect"}

    body = json.dumps({"position": OPENING, "trials": 36}).encode()
    sent = asyncio.run(_call(create_app(evaluator), "/api/rollout", body, gone))
    assert stopped.is_set() and sent[0]["status"] == 200
    answer = json.loads(b"".join(m.get("body", b"") for m in sent[1:]))
    assert answer["stopped"] == "the client disconnected" and answer["trials"] < 36


def test_a_rollout_goes_on_while_its_client_waits(evaluator: Evaluator, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[bool] = []

    def ask_for_a_while(config: RolloutConfig, stop: Any) -> None:
        for _ in range(3):  # over a second: several polls of the connection
            time.sleep(2 * api.DISCONNECT_POLL_SECONDS)
            asked.append(stop([]))

    spy(monkeypatch, ask_for_a_while)

    async def connected() -> dict[str, Any]:  # no message: the client is still there
        await asyncio.sleep(WAIT_SECONDS)
        return {"type": "http.disconnect"}

    body = json.dumps({"position": OPENING, "trials": 2}).encode()
    sent = asyncio.run(_call(create_app(evaluator), "/api/rollout", body, connected))
    answer = json.loads(b"".join(m.get("body", b"") for m in sent[1:]))
    assert asked == [False, False, False] and answer["trials"] == 2 and answer["stopped"] is None


def test_rollouts_are_refused_once_the_weights_file_changed(evaluator: Evaluator, tmp_path: Path) -> None:
    weights = tmp_path / "net.jgw"
    shutil.copyfile(DEFAULT_WEIGHTS, weights)
    with TestClient(create_app(evaluator, weights=str(weights))) as c:
        assert c.post("/api/rollout", json={"position": OPENING, "trials": 1}).status_code == 200
        changed = bytearray(weights.read_bytes())
        changed[-1] ^= 1
        weights.write_bytes(changed)  # another file where the served net was
        r = c.post("/api/rollout", json={"position": OPENING, "trials": 1})
        d = r.json()
        assert r.status_code == 503 and d["field"] == "server" and "restart the server" in d["error"]
        assert "retry-after" not in r.headers
        assert c.post("/api/evaluate", json={"position": OPENING}).status_code == 200  # the loaded net serves on
        weights.unlink()
        assert c.post("/api/rollout", json={"position": OPENING, "trials": 1}).status_code == 503


@pytest.fixture(scope="module")
def client(evaluator: Evaluator) -> Any:
    with TestClient(create_app(evaluator)) as c:
        yield c


def test_a_body_over_the_limit_is_refused_by_its_length(client: TestClient) -> None:
    r = client.post("/api/evaluate", content=b" " * (MAX_BODY_BYTES + 1), headers={"Content-Type": "application/json"})
    d = r.json()
    assert r.status_code == 413 and d["field"] == "body" and "65,536" in d["error"]
    assert r.headers["x-content-type-options"] == "nosniff"


def test_a_streamed_body_over_the_limit_is_refused_as_it_arrives(client: TestClient) -> None:
    chunks = iter([b" " * 4096] * 100)  # no Content-Length: sent chunked
    r = client.post("/api/evaluate", content=chunks, headers={"Content-Type": "application/json"})
    assert r.request.headers.get("transfer-encoding") == "chunked" and "content-length" not in r.request.headers
    assert r.status_code == 413 and r.json()["field"] == "body"


def test_a_body_under_the_limit_is_read(client: TestClient) -> None:
    body = json.dumps({"position": OPENING}).encode() + b" " * (MAX_BODY_BYTES - 100)
    assert client.post("/api/evaluate", content=body, headers={"Content-Type": "application/json"}).status_code == 200
    chunks = iter([json.dumps({"position": OPENING}).encode(), b" " * 1000])
    assert client.post("/api/evaluate", content=chunks, headers={"Content-Type": "application/json"}).status_code == 200


@pytest.mark.parametrize(
    ("host", "names"),
    [
        ("127.0.0.1", ("localhost", "127.0.0.1", "[::1]")),
        ("localhost", ("localhost", "127.0.0.1", "[::1]")),
        ("::1", ("localhost", "127.0.0.1", "[::1]")),
        ("127.0.0.2", ("localhost", "127.0.0.1", "[::1]", "127.0.0.2")),
        ("0.0.0.0", None),
        ("192.168.1.5", None),
        ("myhost.example", None),
        (None, None),
    ],
)
def test_the_loopback_names_of_a_listening_address(host: str | None, names: tuple[str, ...] | None) -> None:
    assert loopback_hosts(host) == names


def test_a_host_header_loses_its_port() -> None:
    assert [host_name(h) for h in ("127.0.0.1:8080", "LOCALHOST", "[::1]:80", "[::1]", "evil.example:80")] == [
        "127.0.0.1",
        "localhost",
        "[::1]",
        "[::1]",
        "evil.example",
    ]


def test_a_loopback_server_answers_only_loopback_host_names() -> None:
    app = app_from_settings(ServeSettings(host="127.0.0.1"))
    with TestClient(app, base_url="http://127.0.0.1:8080") as c:
        for host in ("127.0.0.1:8080", "localhost:8080", "[::1]:8080", "localhost"):
            assert c.get("/health", headers={"Host": host}).status_code == 200, host
        for host in ("evil.example:8080", "evil.example", "127.0.0.1.evil.example", "testserver"):
            r = c.post("/api/evaluate", json={"position": OPENING}, headers={"Host": host})
            assert r.status_code == 400 and r.json()["field"] == "host", host
    with TestClient(app_from_settings(ServeSettings(host="0.0.0.0"))) as c:  # listening everywhere: any name
        assert c.get("/health", headers={"Host": "some.name.example"}).status_code == 200
    widened = ServeSettings(host="127.0.0.1", allowed_hosts=("board.home.arpa", "[::2]"))
    with TestClient(app_from_settings(widened)) as c:  # --allow-host: a name of the user's own, and only that
        for host in ("board.home.arpa:8080", "BOARD.home.arpa", "[::2]:80", "localhost"):
            assert c.get("/health", headers={"Host": host}).status_code == 200, host
        assert c.get("/health", headers={"Host": "evil.example"}).status_code == 400
