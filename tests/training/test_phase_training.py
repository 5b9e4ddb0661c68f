"""Training with the v2 encoding and a crashed net: TD self-play and the supervised fit, at toy sizes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cli.main import main
from engine.batch import crashed
from engine.errors import JumpgammonError
from nets.encoding import Encoding
from nets.evaluator import ALL_NETS, load_evaluator
from nets.model import new_evaluator
from training.config import TrainConfig
from training.supervised.data import GenerateConfig, generate
from training.supervised.fit import FitConfig, fit
from training.supervised.shards import load_phase_data
from training.td import prepare_run, train

TINY_RUN = dict(games=6, parallel_games=3, hidden=(8,), use_bearoff=False, checkpoint_every=3)


def _game_boards(n: int = 300) -> np.ndarray:
    from benchmarks.move_error import MoveErrorSet

    return MoveErrorSet.load().boards()[:: max(1, 8725 // n)]


@pytest.mark.slow
def test_td_trains_three_v2_nets_from_scratch(tmp_path: Path) -> None:
    out = tmp_path / "v2.jgw"
    train(TrainConfig(out=out, encoding=Encoding.V2, crashed_net=True, **TINY_RUN), progress=False)  # type: ignore[arg-type]
    ev = load_evaluator(out)
    assert ev.encoding is Encoding.V2 and tuple(ev.nets) == ALL_NETS
    config = ev.header["run"]["config"]
    assert config["encoding"] == "jumpgammon-v2" and config["crashed_net"] is True
    fresh = new_evaluator((8,), 1, "cpu", Encoding.V2, ALL_NETS)
    for name in ALL_NETS:  # every net took gradient steps (random play reaches crashed positions)
        before, after = fresh.nets[name].tensors(), ev.nets[name].tensors()
        assert any(not np.array_equal(before[k], after[k]) for k in before), name
    boards = _game_boards()
    assert crashed(boards).any()
    assert np.isfinite(ev.evaluate_boards(boards)).all()


def test_a_run_keeps_its_encoding_and_nets(tmp_path: Path) -> None:
    out = tmp_path / "v1.jgw"
    train(TrainConfig(out=out, **TINY_RUN), progress=False)  # type: ignore[arg-type]
    with pytest.raises(JumpgammonError, match="--encoding v2 differs from the encoding"):
        prepare_run(TrainConfig(out=out, encoding=Encoding.V2, **TINY_RUN))  # type: ignore[arg-type]
    with pytest.raises(JumpgammonError, match="has no crashed net"):
        prepare_run(TrainConfig(out=out, crashed_net=True, **TINY_RUN))  # type: ignore[arg-type]
    ev, _, settings, line = prepare_run(TrainConfig(out=out, **TINY_RUN))  # type: ignore[arg-type]
    assert ev.encoding is Encoding.V1 and settings["encoding"] == "jumpgammon-v1" and "resuming" in line


def test_a_resumed_run_keeps_its_games_in_flight_without_parallel(tmp_path: Path) -> None:
    """``--parallel`` defaults to a resumed run's own (the same command without it said 512 differs from 3)."""
    out = tmp_path / "run.jgw"
    first = dict(TINY_RUN, games=4, checkpoint_every=2)
    train(TrainConfig(out=out, **first), progress=False)  # type: ignore[arg-type]
    resumed = {k: v for k, v in TINY_RUN.items() if k != "parallel_games"}
    result = train(TrainConfig(out=out, **resumed), progress=False)  # type: ignore[arg-type]
    assert result.state.games >= 6
    with pytest.raises(JumpgammonError, match="--parallel 5 differs from the 3 games in flight"):
        prepare_run(TrainConfig(out=out, **dict(resumed, games=9, parallel_games=5)))  # type: ignore[arg-type]


def test_td_from_the_shipped_net_grows_it_into_v2_without_changing_it(tmp_path: Path) -> None:
    shipped = load_evaluator(bearoff=False)
    cfg = TrainConfig(out=tmp_path / "grown.jgw", start=Path("weights/default.jgw"), encoding=Encoding.V2)
    cfg.crashed_net = True
    ev, _, settings, line = prepare_run(cfg)
    assert ev.encoding is Encoding.V2 and tuple(ev.nets) == ALL_NETS and "encoding v2" in line
    boards = _game_boards()
    np.testing.assert_allclose(ev.evaluate_boards(boards), shipped.evaluate_boards(boards), atol=1e-5)
    contact, smashed = ev.nets["contact"].tensors(), ev.nets["crashed"].tensors()
    assert all(np.array_equal(contact[k], smashed[k]) for k in contact)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One shard of 0-ply labels from 30 games of the shipped net (about half of them reach crashed positions)."""
    folder = tmp_path_factory.mktemp("phase") / "data"
    cfg = GenerateConfig(data=folder, shards=1, shard_games=30, parallel_games=30, keep=0.5, keep_race=0.5, plies=0)
    generate(cfg, progress=False)
    return folder


def test_loaded_data_send_crashed_positions_to_their_own_net(data: Path) -> None:
    joint, _ = load_phase_data((data,), 0.3, 1)
    split, counts = load_phase_data((data,), 0.3, 1, Encoding.V2.inputs, split_crashed=True)
    assert set(split) == {"contact", "crashed", "race"} and len(split["crashed"].x_train) > 0
    for part in ("train", "validation"):
        assert counts["positions"]["contact"][part] + counts["positions"]["crashed"][part] == len(
            joint["contact"].x_train if part == "train" else joint["contact"].x_val
        )
    assert split["contact"].x_train.shape[1] == Encoding.V2.n_inputs
    assert (split["crashed"].x_train[:, : Encoding.V1.n_inputs] != 0).any()


def test_fit_grows_a_v1_start_into_v2_and_trains_a_crashed_net(tmp_path: Path, data: Path) -> None:
    out = tmp_path / "cand.jgw"
    cfg = FitConfig(
        data=(data,), out=out, nets=ALL_NETS, encoding=Encoding.V2, max_epochs=2, validation=0.3, learning_rate=1e-3
    )
    result = fit(cfg, progress=False)
    ev = load_evaluator(out)
    assert ev.encoding is Encoding.V2 and tuple(ev.nets) == ALL_NETS
    assert ev.header["run"]["config"]["encoding"] == "jumpgammon-v2"
    for name in ALL_NETS:
        report = result.nets[name]
        # The labels are the shipped net's own 0-ply values, and every net starts as the shipped net's function
        # (v1 grown into v2 with zero weights; the crashed net a copy of the contact net, which labelled those
        # positions): the loss before training is nil up to float32 rounding and the few gammon chances that
        # the evaluator's rule bounds (nets.evaluator.possible_results) took out of the labels.
        assert report["history"][0]["validation_values"] < 1e-5, name


def test_cli_trains_v2_nets_that_load_and_play(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli.jgw"
    argv = ["train", "--games", "6", "--parallel", "3", "--hidden", "8", "--no-bearoff", "--out", str(out)]
    assert main([*argv, "--encoding", "v2", "--crashed-net", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] >= 6
    args = ["tournament", "--a", f"net:{out}@0", "--b", "pubeval", "--games", "2", "--seed", "3", "--json"]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 2
    assert main([*argv, "--encoding", "v3", "--json"]) == 2
    assert "encoding 'v3'" in json.loads(capsys.readouterr().out)["error"]
