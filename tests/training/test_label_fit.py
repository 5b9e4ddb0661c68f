"""Supervised fits on rollout-label folders: pooled with shards, weighted, and held-out boards left out."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cli.main import main
from engine.batch import phases
from engine.errors import JumpgammonError
from nets.evaluator import load_evaluator
from training.label_fit import fit_with_labels, held_out_boards, split_folders
from training.rollout_labels import SHARD_FORMAT, LabelShard
from training.supervised.data import GenerateConfig, generate
from training.supervised.fit import FitConfig, fit
from training.supervised.shards import NET_OF_PHASE, Shard, load_phase_data, shard_paths

TINY = dict(shard_games=3, parallel_games=2, keep=0.4, keep_race=0.6, plies=0)


def write_labels(folder: Path, boards: np.ndarray, probabilities: np.ndarray) -> None:
    """A one-shard rollout-label folder of ``boards`` with ``probabilities`` as labels (other arrays filler)."""
    n = len(boards)
    zeros = np.zeros(n, np.float32)
    shard = LabelShard(
        boards.astype(np.int8),
        probabilities.astype(np.float32),
        np.full((n, 5), 0.01, np.float32),
        zeros,
        zeros,
        zeros,
        zeros,
        zeros,
        np.zeros(n, np.int8),
        np.zeros(n, np.int8),
        np.arange(n, dtype=np.int64),
        zeros,
    )
    folder.mkdir(parents=True)
    (folder / SHARD_FORMAT.format(0)).write_bytes(shard.to_bytes())


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """Self-play shards, a label folder of other boards, and a held-out label folder of some shard boards."""
    root = tmp_path_factory.mktemp("lab")
    shards = root / "shards"
    generate(GenerateConfig(data=shards, shards=1, **TINY), progress=False)  # type: ignore[arg-type]
    other = root / "other"
    generate(GenerateConfig(data=other, shards=1, seed=9, **TINY), progress=False)  # type: ignore[arg-type]
    mine = Shard.read(shard_paths(shards)[0])
    theirs = Shard.read(shard_paths(other)[0])
    labels = root / "labels"
    write_labels(labels, theirs.boards, np.clip(theirs.targets + 0.05, 0, 1))
    held = root / "held"
    write_labels(held, mine.boards[::3], mine.targets[::3])
    return shards, labels, held


def test_label_folders_are_told_from_shard_folders(folders: tuple[Path, Path, Path]) -> None:
    shards, labels, held = folders
    assert split_folders((labels, shards, held)) == ((shards,), (labels, held))


def test_labels_are_pooled_weighted_and_held_out_boards_left_out(
    tmp_path: Path, folders: tuple[Path, Path, Path]
) -> None:
    shards, labels, held = folders
    mine = Shard.read(shard_paths(shards)[0])
    theirs = Shard.read(shard_paths(labels.parent / "other")[0])
    out = tmp_path / "c.jgw"
    cfg = FitConfig(
        data=(shards,), out=out, labels=(labels,), label_weight=2.5, exclude=(held,), max_epochs=1, validation=0.3
    )
    result = fit_with_labels(cfg)
    record = load_evaluator(out, bearoff=False).header["run"]
    held_keys = held_out_boards((held,))
    expected_out = sum(row.tobytes() in held_keys for row in np.concatenate([mine.boards, theirs.boards]))
    assert expected_out >= len(mine.boards[::3]) > 0
    assert record["data"]["excluded_rows"] == expected_out
    assert record["data"]["folders"][1]["kind"] == "rollout-labels"
    fitted = sum(r["train_positions"] + r["validation_positions"] for r in result.nets.values())
    in_nets = np.isin(phases(np.concatenate([mine.boards, theirs.boards])), list(NET_OF_PHASE)).sum()
    seen = record["data"]["validation_rows_seen_in_training"]["left_out"]
    assert fitted == in_nets - expected_out - seen  # every pooled row but the held-out ones and validation's repeats
    assert record["config"]["label_weight"] == 2.5 and record["config"]["exclude"] == [str(held)]


def test_label_rows_carry_their_weight(folders: tuple[Path, Path, Path]) -> None:
    from training.label_fit import label_rows

    shards, labels, _ = folders
    data, provenance = load_phase_data((shards,), 0.3, 1, extra=(label_rows(labels, 2.5),))
    weights = np.concatenate([np.r_[d.w_train, d.w_val] for d in data.values() if d.w_train is not None])
    assert set(np.unique(weights).tolist()) == {1.0, 2.5}
    assert provenance["folders"][1]["rows"] == len(Shard.read(shard_paths(labels.parent / "other")[0]).boards)


def test_fit_refuses_labels_it_was_not_given_and_a_held_out_training_folder(
    tmp_path: Path, folders: tuple[Path, Path, Path]
) -> None:
    shards, labels, held = folders
    with pytest.raises(JumpgammonError, match="label_fit"):
        fit(FitConfig(data=(shards,), out=tmp_path / "x.jgw", labels=(labels,)), progress=False)
    with pytest.raises(JumpgammonError, match="also training data"):
        fit_with_labels(FitConfig(data=(shards,), out=tmp_path / "x.jgw", labels=(labels,), exclude=(labels,)))


def test_cli_pools_a_label_folder_given_as_data(
    tmp_path: Path, folders: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    shards, labels, held = folders
    out = tmp_path / "cli.jgw"
    argv = ["supervised", "fit", "--data", str(shards), "--data", str(labels), "--exclude", str(held)]
    assert (
        main([*argv, "--out", str(out), "--epochs", "1", "--label-weight", "3", "--validation", "0.5", "--json"]) == 0
    )
    json.loads(capsys.readouterr().out)
    config = load_evaluator(out, bearoff=False).header["run"]["config"]
    assert config["data"] == [str(shards)] and config["labels"] == [str(labels)] and config["label_weight"] == 3
    assert main([*argv[:-1], str(tmp_path), "--out", str(tmp_path / "y.jgw"), "--json"]) == 2
    assert "--exclude" in json.loads(capsys.readouterr().out)["error"]
