"""Ctrl-C: one "interrupted" line and exit status 130, whatever the command was doing, workers or not."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import cli.show
from tests.cli.helpers import run_cli

REPO = Path(__file__).resolve().parents[2]
START = "4HPwATDgc/ABMA"


def as_foreground_command() -> None:
    """In the child before it runs: SIGINT as a terminal's foreground command has it (a test run in a background
    job inherits it ignored, and an ignored SIGINT is left alone on purpose: see cli.interrupts)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def ctrl_c(argv: list[str], delay: float | None, cwd: Path, script: str | None = None) -> tuple[int, str]:
    """Run the CLI (or ``script``) in its own process group, send SIGINT to the group after ``delay`` as a
    terminal's Ctrl-C does (None: the script sends its own), and return its exit status and stderr."""
    command = [sys.executable, "-c", script or "import sys, cli.main; sys.exit(cli.main.main(sys.argv[1:]))", *argv]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        text=True,
        preexec_fn=as_foreground_command,
    )
    if delay is not None:
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    return proc.returncode, err


def assert_clean_interrupt(code: int, err: str, command: str) -> None:
    """Exit 130 with the one line, and nothing a worker or a swallowed exception printed."""
    assert code == 130, err[-3000:]
    assert f"jumpgammon {command}: interrupted" in err
    for noise in ("Traceback", "Process SpawnPoolWorker", "Exception ignored", "KeyboardInterrupt"):
        assert noise not in err, err[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("delay", [2.0, 4.0])
def test_ctrl_c_with_two_workers(tmp_path: Path, delay: float) -> None:
    argv = ["tournament", "--a", "pubeval", "--b", "pubeval", "--games", "2000000", "--workers", "2"]
    assert_clean_interrupt(*ctrl_c(argv, delay, tmp_path), "tournament")


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.8, 2.0, 3.5, 6.0])
def test_ctrl_c_during_training(tmp_path: Path, delay: float) -> None:
    argv = ["train", "--out", "run.jgw", "--games", "1000000", "--parallel", "64", "--hidden", "8", "--no-bearoff"]
    assert_clean_interrupt(*ctrl_c(argv, delay, tmp_path), "train")


SWALLOWING = """
import os, signal, sys, time
import cli.interrupts, cli.main, cli.show
cli.interrupts.GRACE_SECONDS = 1.0

def swallow(args):
    try:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(30)
    except KeyboardInterrupt:
        pass  # lost, as in a ctypes callback of llvmlite while numba compiles
    time.sleep(30)
    return 0

cli.show.run = swallow
sys.exit(cli.main.main(sys.argv[1:]))
"""


def test_a_swallowed_interrupt_still_ends_the_command(tmp_path: Path) -> None:
    started = time.perf_counter()
    code, err = ctrl_c(["show", START], None, tmp_path, SWALLOWING)
    assert code == 130 and "jumpgammon show: interrupted" in err and "Traceback" not in err, err
    assert time.perf_counter() - started < 20


def test_an_exception_wrapping_an_interrupt_is_the_interrupt(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """numba turns an interrupt in its unpickling into SystemError(... returned a result with an exception set)."""

    def numba_like(args: object) -> int:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise SystemError("CPUDispatcher(<function kernel>) returned a result with an exception set") from exc

    monkeypatch.setattr(cli.show, "run", numba_like)
    code, out, err = run_cli(capsys, "show", START)
    assert code == 130 and out == "" and err.strip() == "jumpgammon show: interrupted"
    code, out, err = run_cli(capsys, "show", START, "--json")
    assert code == 130 and out.strip() == '{"error": "jumpgammon show: interrupted"}'


def test_other_errors_are_not_interrupts(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(args: object) -> int:
        raise SystemError("a real bug")

    monkeypatch.setattr(cli.show, "run", broken)
    before = signal.getsignal(signal.SIGINT)  # default_int_handler, or SIG_IGN in a background test run
    with pytest.raises(SystemError):
        run_cli(capsys, "show", START)
    assert signal.getsignal(signal.SIGINT) is before  # the handler is put back
