"""One rule for every command with cube specs: any spec but ``none`` plays with the cube, as --cubeful does."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cli.common import plays_cubeful
from tests.cli.helpers import run_cli

START = "4HPwATDgc/ABMA"


def rollout_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, out, err = run_cli(capsys, "rollout", START, "--trials", "8", "--truncate", "6", *argv, "--json")
    assert code == 0, err + out
    result: dict[str, Any] = json.loads(out)
    for key in ("seconds", "trials_per_second"):
        result.pop(key, None)
    return result


def test_the_rule() -> None:
    assert plays_cubeful(False, "janowski:0.7") and plays_cubeful(False, None, "jump:0.1")
    assert not plays_cubeful(False, "none", None, " none") and plays_cubeful(True, "none")


def test_a_rollout_cube_spec_plays_with_the_cube(capsys: pytest.CaptureFixture[str]) -> None:
    """rollout --cube X used to be refused without --cubeful; now it is the same rollout as with it."""
    implied = rollout_json(capsys, "--cube", "janowski:0.7")
    assert implied == rollout_json(capsys, "--cube", "janowski:0.7", "--cubeful")
    assert implied["cubeful"] is True and implied["cube"] == "janowski:0.7"
    plain = rollout_json(capsys, "--cube", "none")
    assert plain["cubeful"] is False and plain == rollout_json(capsys)
