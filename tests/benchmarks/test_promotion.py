"""The promotion rule: a candidate replaces the shipped net only when it wins head to head and plays no worse."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmarks.promotion import PromotionConfig, head_to_head, judge
from cli.main import main
from nets.model import new_evaluator
from weights import DEFAULT_WEIGHTS


@pytest.fixture()
def shipped(tmp_path: Path) -> Path:
    """A copy of the shipped net standing in for it, so that no test can touch weights/."""
    target = tmp_path / "shipped" / "default.jgw"
    target.parent.mkdir()
    shutil.copyfile(DEFAULT_WEIGHTS, target)
    return target


def test_a_net_against_itself_is_never_promoted(
    tmp_path: Path, shipped: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    twin = tmp_path / "twin.jgw"
    shutil.copyfile(DEFAULT_WEIGHTS, twin)
    before = shipped.read_bytes()
    argv = ["weights", "promote", str(twin), "--shipped", str(shipped), "--games", "20", "--seed", "3"]
    assert main([*argv, "--write", "--archive", str(tmp_path / "archive"), "--json"]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["promote"] is False and verdict["written"] is None
    assert verdict["head_to_head"]["ppg"] == 0.0 and verdict["moves"] is None  # same dice, same plays
    assert shipped.read_bytes() == before and not (tmp_path / "archive").exists()


def test_a_clearly_worse_net_is_refused(tmp_path: Path, shipped: Path) -> None:
    untrained = tmp_path / "untrained.jgw"
    new_evaluator(seed=5).save(untrained)
    verdict = judge(PromotionConfig(untrained, shipped, games=40, seed=2), progress=False)
    assert not verdict.promote and not verdict.head_to_head.passed
    assert verdict.head_to_head.se is not None and verdict.head_to_head.ppg < -2 * verdict.head_to_head.se
    # the other way round the shipped net clears the head-to-head bar
    assert head_to_head(PromotionConfig(shipped, untrained, games=40, seed=2), progress=False).passed


def test_the_shipped_net_itself_is_no_candidate(shipped: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["weights", "promote", str(shipped), "--shipped", str(shipped), "--json"]) == 2
    assert "shipped net itself" in json.loads(capsys.readouterr().out)["error"]
    assert main(["weights", "promote", str(shipped), "--games", "3"]) == 2


def small_move_set(path: Path, decisions: int) -> Path:
    """The first ``decisions`` of the committed move-error set, written to ``path``."""
    import numpy as np

    from benchmarks.move_error import MOVE_ERRORS

    with np.load(MOVE_ERRORS) as z:
        data = {k: z[k] for k in z.files}
    end = int(data["offsets"][decisions])
    small = {k: data[k][:decisions] for k in ("position_ids", "dice", "gnubg_class")}
    small |= {k: data[k][:end] for k in ("child_ids", "equity2", "equity0")}
    small |= {"offsets": data["offsets"][: decisions + 1], "meta": data["meta"]}
    np.savez(path, **small)
    return path


@pytest.mark.slow
def test_a_winner_that_plays_no_worse_is_promoted_and_the_old_net_kept(tmp_path: Path, shipped: Path) -> None:
    from cli.weights import replace_shipped
    from nets.evaluator import load_evaluator

    weak = tmp_path / "weak.jgw"
    new_evaluator(seed=5).save(weak)
    moves = small_move_set(tmp_path / "moves.npz", 40)
    verdict = judge(PromotionConfig(shipped, weak, games=40, seed=2, plies=0, moves_data=moves), progress=False)
    assert verdict.head_to_head.passed and verdict.moves is not None and verdict.moves.decisions == 40
    assert verdict.moves.difference <= verdict.moves.difference_se and verdict.promote
    old = weak.read_bytes()
    kept = replace_shipped(shipped, weak, tmp_path / "archive")
    assert kept.read_bytes() == old and kept.parent == tmp_path / "archive"
    assert (
        load_evaluator(weak, bearoff=False).nets["contact"].config
        == load_evaluator(shipped, bearoff=False).nets["contact"].config
    )
