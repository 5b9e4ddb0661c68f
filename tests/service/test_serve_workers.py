"""``jumpgammon serve --workers N``: N processes on one port, each answering with its own pid; bad counts refused."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("uvicorn", reason="the serve extra (uvicorn) is not installed")

from benchmarks.service_load import free_port, get_json  # noqa: E402
from players.processes import stop_process  # noqa: E402
from service.api import SETTINGS_ENV, ServeSettings, app_from_environment  # noqa: E402
from tests.cli.helpers import assert_clean_error, run_cli  # noqa: E402

#: How long the two processes get to start and answer (they load the net; the machine may be busy).
STARTUP_SECONDS = 180


@pytest.mark.parametrize("value", ["0", "-1", "257", "two", "1.5"])
def test_bad_worker_counts_are_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], value: str) -> None:
    code, out, err = run_cli(capsys, "serve", "--workers", value)
    assert_clean_error(code, out, err, "--workers", as_json=False)


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "3601", "soon"])
def test_bad_rollout_time_limits_are_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], value: str) -> None:
    code, out, err = run_cli(capsys, "serve", "--max-rollout-seconds", value)
    assert_clean_error(code, out, err, "--max-rollout-seconds", as_json=False)


def test_serve_hands_its_options_to_the_app(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import uvicorn

    import service.api

    built: list[ServeSettings] = []

    def build(settings: ServeSettings) -> str:  # no net loaded, no server run: only what serve asks for
        built.append(settings)
        return "app"

    monkeypatch.setattr(service.api, "app_from_settings", build)
    monkeypatch.setattr(uvicorn, "Config", lambda app, **options: (app, options))
    monkeypatch.setattr(
        uvicorn, "Server", lambda config: type("Server", (), {"run": lambda self, sockets=None: None})()
    )
    port = str(free_port())
    code, _, _ = run_cli(capsys, "serve", "--port", port, "--max-rollout-seconds", "7.5", "--max-rollout-trials", "40")
    assert code == 0
    assert built == [ServeSettings(max_rollout_trials=40, max_rollout_seconds=7.5, host="127.0.0.1")]
    code, _, _ = run_cli(capsys, "serve", "--host", "0.0.0.0", "--port", str(free_port()))
    assert code == 0 and built[-1] == ServeSettings(host="0.0.0.0")
    code, _, _ = run_cli(capsys, "serve", "--port", str(free_port()), "--allow-host", "Board.home.arpa")
    assert code == 0 and built[-1] == ServeSettings(host="127.0.0.1", allowed_hosts=("board.home.arpa",))
    for bad in ("", "a b", "evil.example:8080", "::1"):
        code, out, err = run_cli(capsys, "serve", "--port", str(free_port()), "--allow-host", bad)
        assert_clean_error(code, out, err, "--allow-host", as_json=False)


@pytest.mark.parametrize("as_json", [True, False])
def test_a_port_in_use_or_an_unknown_host_is_a_one_line_error_before_any_serving_line(
    capsys: pytest.CaptureFixture[str], as_json: bool
) -> None:
    """The address is bound before "serving" is printed: a script reading --json sees the error, not a URL."""
    flag = ["--json"] if as_json else []
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        code, out, err = run_cli(capsys, "serve", "--port", port, *flag)
        assert_clean_error(code, out, err, f"--port {port}: cannot listen", as_json=as_json)
        assert "url" not in out
    code, out, err = run_cli(capsys, "serve", "--host", "no-such-host.invalid", "--port", str(free_port()), *flag)
    assert_clean_error(code, out, err, "--host 'no-such-host.invalid'", as_json=as_json)


def test_the_settings_travel_through_the_environment_whole() -> None:
    settings = ServeSettings(
        weights="some/net.jgw",
        batching=False,
        max_rollout_trials=7,
        net_threads=3,
        max_rollout_seconds=2.5,
        host="127.0.0.1",
        allowed_hosts=("board.home.arpa",),
    )
    assert ServeSettings.from_environ(settings.to_environ()) == settings
    assert ServeSettings.from_environ({}) == ServeSettings()
    with pytest.raises(ValueError, match=SETTINGS_ENV):
        ServeSettings.from_environ({SETTINGS_ENV: '{"batching": true, "colour": "red"}'})


def test_the_factory_builds_the_app_of_its_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = ServeSettings(batching=False, max_rollout_trials=5, max_rollout_seconds=9.0)
    monkeypatch.setenv(SETTINGS_ENV, settings.to_environ()[SETTINGS_ENV])
    service = app_from_environment().state.service
    assert not service.batcher.batching and service.max_rollout_trials == 5 and service.max_rollout_seconds == 9.0
    assert service.health()["pid"] == os.getpid()


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    out = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.add(int(stat.parent.name))
    return out


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process tree from /proc (Linux)")
def test_two_workers_answer_from_two_processes_and_stop_together() -> None:
    port = free_port()
    argv = [sys.executable, "-m", "cli.main", "serve", "--port", str(port), "--workers", "2", "--json"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        pids: set[int] = set()
        deadline = time.time() + STARTUP_SECONDS
        while len(pids) < 2 and time.time() < deadline and proc.poll() is None:
            try:  # each call is a fresh connection, which either process may accept
                health = get_json("127.0.0.1", port, "/health", timeout=5)
            except OSError:
                time.sleep(0.2)
                continue
            assert health["status"] == "ok" and health["batching"] is True
            pids.add(health["pid"])
        assert proc.poll() is None, f"serve --workers 2 exited: {proc.stderr.read().decode()[-2000:]}"  # type: ignore[union-attr]
        assert len(pids) == 2, f"only {pids} answered in {STARTUP_SECONDS} s"
        assert proc.pid not in pids and pids <= _children(proc.pid)  # the workers, not the supervisor
        assert json.loads(proc.stdout.readline()) == {  # type: ignore[union-attr]
            "url": f"http://127.0.0.1:{port}/",
            "batching": True,
            "workers": 2,
        }
    finally:
        stop_process(proc, timeout=30)
    assert proc.returncode is not None
    time.sleep(0.5)
    assert not any(Path(f"/proc/{pid}").exists() and _alive(pid) for pid in pids), "a worker outlived serve"


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie awaiting its parent's wait does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
