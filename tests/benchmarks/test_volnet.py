"""Experiment 5's machinery: deterministic labelled data, the split, the error figures, the report mode."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pytest

from benchmarks.experiments.volnet import NET_FILE, error_metrics, split_games
from benchmarks.experiments.volnet_data import (
    VolatilityData,
    batch_path,
    label_positions,
    load_batch,
    sample_positions,
    save_batch,
)
from cli.main import main
from engine.batch import phases
from engine.position import GamePhase, Position
from nets.evaluator import load_evaluator
from nets.volatility import jump_volatility
from tests.nets.test_volnet import random_volnet


@pytest.mark.parametrize(("seed", "index"), [(1, 0), (7, 3)])
def test_sampled_positions_are_the_same_every_time(seed: int, index: int) -> None:
    ev = load_evaluator()
    boards, games = sample_positions(ev, seed, index, games=3)
    again, games_again = sample_positions(ev, seed, index, games=3)
    other, _ = sample_positions(ev, seed, index + 1, games=3)
    assert len(boards) > 0 and np.array_equal(boards, again) and np.array_equal(games, games_again)
    assert not (len(other) == len(boards) and np.array_equal(other, boards))
    assert set(games.tolist()) <= set(range(3 * index, 3 * index + 3))  # numbered within their batch
    assert (phases(boards) != GamePhase.OVER).all()


def test_labels_are_the_lookahead_sigma_of_nets_volatility() -> None:
    ev = load_evaluator()
    boards, _ = sample_positions(ev, 2, 0, games=2)
    picked = boards[:: max(1, len(boards) // 4)][:4]
    sigma, mean_abs, average = label_positions(ev, picked)
    for k, board in enumerate(picked):
        expected = jump_volatility(ev, Position(board))
        assert sigma[k] == pytest.approx(expected.sigma, abs=1e-12)
        assert mean_abs[k] == pytest.approx(expected.mean_abs_jump, abs=1e-12)
        assert average[k] == pytest.approx(expected.p_average, abs=1e-12)


def _tiny_data(n_games: int) -> VolatilityData:
    rng = np.random.default_rng(0)
    game = np.repeat(np.arange(n_games), 5)
    n = len(game)
    return VolatilityData(np.zeros((n, 26), np.int8), rng.random(n), rng.random(n), rng.random(n), game)


def test_the_split_keeps_each_game_on_one_side() -> None:
    data = _tiny_data(50)
    train = split_games(data, seed=3, trained_batches=1)
    for g in range(50):
        rows = train[data.game == g]
        assert rows.all() or not rows.any()
    assert (~train).sum() == 5 * 10  # 20% of the 50 games
    assert np.array_equal(train, split_games(data, seed=3, trained_batches=1))


def test_games_beyond_the_trained_batches_are_all_test() -> None:
    data = _tiny_data(300)  # games 128 and up lie in batch 1 and beyond
    train = split_games(data, seed=1, trained_batches=1)
    assert not train[data.game >= 128].any() and train[data.game < 128].any()


METRIC_CASES = [
    # (predicted offset from the label, MAE, RMSE, bias)
    (0.0, 0.0, 0.0, 0.0),
    (0.01, 0.01, 0.01, 0.01),
    (-0.03, 0.03, 0.03, -0.03),
]


@pytest.mark.parametrize(("offset", "mae", "rmse", "bias"), METRIC_CASES)
def test_error_metrics_of_a_shifted_prediction(offset: float, mae: float, rmse: float, bias: float) -> None:
    label = np.linspace(0.0, 0.3, 40)
    m = error_metrics(label + offset, label)
    assert m.rows == 40
    assert m.mae == pytest.approx(mae) and m.rmse == pytest.approx(rmse) and m.bias == pytest.approx(bias)
    assert m.correlation == pytest.approx(1.0)


def _run_cli(argv: list[str]) -> tuple[int, dict[str, object]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    return code, json.loads(out.getvalue())


def test_report_mode_uses_only_what_is_on_disk(tmp_path: Path) -> None:
    folder = tmp_path / "volnet"
    ev = load_evaluator()
    boards, games = sample_positions(ev, 1, 0, games=5)  # one game of five is drawn for the test
    boards, games = boards[::4], games[::4]
    sigma, mean_abs, average = label_positions(ev, boards)
    save_batch(batch_path(folder / "data", 1, 0), VolatilityData(boards, sigma, mean_abs, average, games))
    argv = ["experiment", "volnet", "--report", "--out", str(tmp_path), "--seed", "1", "--games", "2", "--json"]
    code, error = _run_cli([*argv, "--positions", str(len(boards))])
    assert code == 2 and "does not exist" in str(error["error"])  # no net yet: report mode trains nothing
    net = random_volnet(5, (8,), 0.2, -3.0)
    net.run["trained_batches"] = 1
    net.save(folder / NET_FILE)
    before = sorted(p.name for p in folder.rglob("*"))
    code, result = _run_cli([*argv, "--positions", "100000"])  # asks for more data than there is: none is made
    assert code == 0
    assert result["complete"] is False
    data = result["data"]
    assert isinstance(data, dict) and data["positions"] == len(boards)
    assert data["train_rows"] + data["test_rows"] == len(boards) and data["test_rows"] > 0
    assert result["head_to_head"]["games"] == 0  # type: ignore[index]
    after = sorted(p.name for p in folder.rglob("*"))
    assert after == before  # a report writes nothing: no result, plot, data batch or ledger
    assert load_batch(batch_path(folder / "data", 1, 0)).sigma.tolist() == sigma.tolist()
