"""A self-play run's checkpoint: damaged state is refused naming the file; trainers keep to their own files."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from cli.main import main
from engine.errors import InvalidWeights
from tests.cli.helpers import assert_clean_error, run_cli
from training.checkpoint import RunState, load_checkpoint, save_checkpoint
from weights import DEFAULT_WEIGHTS

RUN = ["--parallel", "2", "--games", "2", "--hidden", "8", "--threads", "1", "--no-bearoff"]


@pytest.fixture(scope="module")
def run_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cubeful self-play run of 2 games, stopped with its games in flight."""
    out = tmp_path_factory.mktemp("ckpt") / "run.jgw"
    assert main(["train", "--out", str(out), *RUN, "--cube", "janowski:0.7", "--json"]) == 0
    return out


def _games_as_text(run: RunState) -> None:
    run.progress.games = "10"  # type: ignore[assignment]


def _negative_steps(run: RunState) -> None:
    run.progress.steps = -1


def _rng_without_state(run: RunState) -> None:
    run.rng = {"bit_generator": "PCG64"}


def _bogus_tally(run: RunState) -> None:
    run.cube_tally = {"bogus": 1}


def _cube_owner_lost(run: RunState) -> None:
    assert run.cube_games is not None
    del run.cube_games["owner"]


def _cube_state_for_other_games(run: RunState) -> None:
    assert run.cube_games is not None
    run.cube_games = {name: array[:1] for name, array in run.cube_games.items()}


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        (_games_as_text, "state.games"),
        (_negative_steps, "state.steps"),
        (_rng_without_state, "dice stream"),
        (_bogus_tally, "cube counters"),
        (_cube_owner_lost, "missing ['owner']"),
        (_cube_state_for_other_games, "not for the 2 games"),
    ],
)
def test_a_damaged_checkpoint_is_refused_naming_the_file(
    run_file: Path, tmp_path: Path, damage: Callable[[RunState], None], words: str
) -> None:
    """Each was a KeyError, TypeError or a format error about ',' (exit 1 or an unnamed line) when resumed."""
    ev, run = load_checkpoint(run_file)
    assert run.cube_games is not None and run.rng is not None and run.cube_tally is not None
    damage(run)
    damaged = tmp_path / "damaged.jgw"
    save_checkpoint(damaged, ev, run)
    with pytest.raises(InvalidWeights, match=str(damaged)) as refused:
        load_checkpoint(damaged)
    assert words in str(refused.value)


def test_each_trainer_keeps_to_its_own_files(
    run_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``train`` resumed a supervised fit (taking its settings); ``supervised fit`` overwrote a self-play run."""
    shipped_copy = tmp_path / "shipped-copy.jgw"
    shutil.copyfile(DEFAULT_WEIGHTS, shipped_copy)
    code, out, err = run_cli(capsys, "train", "--out", str(shipped_copy), *RUN)
    assert_clean_error(code, out, err, "not a self-play run", as_json=False)
    run_copy = tmp_path / "run-copy.jgw"
    shutil.copyfile(run_file, run_copy)
    before = run_copy.read_bytes()
    code, out, err = run_cli(capsys, "supervised", "fit", "--data", str(tmp_path), "--out", str(run_copy))
    assert_clean_error(code, out, err, "not a supervised fit", as_json=False)
    assert run_copy.read_bytes() == before
