"""``bench eval``'s figures: each measured, and the batched 441-roll pass the same lookahead as the single one."""

from __future__ import annotations

import datetime
import json

import numpy as np
import pytest

from benchmarks.positions import random_game_positions
from benchmarks.speed import bench_eval
from engine.position import Position
from nets.evaluator import load_evaluator
from nets.volatility import two_roll_outcomes, two_roll_outcomes_batch
from nets.weights import weights_digest
from tests.cli.helpers import assert_clean_error, run_cli
from weights import DEFAULT_WEIGHTS


def test_bench_eval_reports_every_figure() -> None:
    speed = bench_eval(n_games=2, repeats=1)
    figures = speed.to_json()
    assert figures["benchmark"] == "eval" and figures["device"] == "cpu"
    for name in ("evaluations_per_second", "jump_volatility_ms_median", "jump_volatility_batched_ms"):
        assert np.isfinite(figures[name]) and figures[name] > 0, name
    assert figures["jump_volatility_positions"] >= 1


def test_the_batched_pass_is_the_lookahead_of_each_position() -> None:
    ev = load_evaluator()
    boards, _ = random_game_positions(2)
    sample = boards[:: max(1, len(boards) // 5)][:5]
    batched = two_roll_outcomes_batch(ev, sample)
    for board, outcomes in zip(sample, batched, strict=True):
        np.testing.assert_allclose(outcomes, two_roll_outcomes(ev, Position(board)), atol=1e-6)


def test_bench_eval_json_holds_the_batched_figure(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "bench", "eval", "--games", "2", "--repeats", "1", "--json")
    assert code == 0
    figures = json.loads(out)
    assert figures["jump_volatility_batched_ms"] > 0
    # a saved figure names the net it measured, by content, and the day
    assert figures["weights_sha256"] == weights_digest(DEFAULT_WEIGHTS)
    assert figures["date"] == datetime.date.today().isoformat()
    code, out, _ = run_cli(capsys, "bench", "eval", "--games", "2", "--repeats", "1")
    assert code == 0 and out.splitlines()[-1].endswith(f"({weights_digest(DEFAULT_WEIGHTS)})")


@pytest.mark.parametrize(
    ("argv", "unread"),
    [
        (["movegen", "--weights", str(DEFAULT_WEIGHTS)], "--weights"),
        (["arena", "--weights", str(DEFAULT_WEIGHTS)], "--weights"),  # it measured the shipped net all the same
        (["gnubg", "--games", "10"], "--games"),
        (["train", "--plies", "2", "--device", "cpu"], "--device, --plies"),
        (["cube-bearoff", "--repeats", "2"], "--repeats"),
    ],
)
def test_an_option_a_benchmark_does_not_read_is_refused(
    argv: list[str], unread: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "bench", *argv)
    assert_clean_error(code, out, err, f"does not read {unread}", as_json=False)
