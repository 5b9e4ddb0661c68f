"""Long silences: a bar says what a command waits for before its first figures."""

from __future__ import annotations

import pytest

from tests.cli.helpers import run_cli

START = "4HPwATDgc/ABMA"


def test_a_rollout_says_why_its_first_block_is_slow(capsys: pytest.CaptureFixture[str]) -> None:
    """The first trial waited 13 s for numba to compile, the bar empty and unexplained."""
    code, _, err = run_cli(capsys, "rollout", START, "--trials", "36", "--truncate", "4")
    lines = err.replace("\r", "\n").splitlines()
    frames = [frame for frame in lines if "trial" in frame and not frame.startswith("jumpgammon rollout: warning")]
    assert code == 0 and frames
    assert frames[0].startswith("first block (a first run compiles the kernels):") and " 0%" in frames[0]
    assert not frames[-1].startswith("first block") and "36/36" in frames[-1]
