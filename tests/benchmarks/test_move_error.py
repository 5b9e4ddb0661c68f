"""The move-error benchmark on the committed subset of gnubg-scored decisions, and ``bench moves``/``bench train``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchmarks.move_error import (
    MoveErrorSet,
    bench_moves,
    decision_errors,
    summarize,
)
from benchmarks.train_speed import OTHER, profile_breakdown
from cli.main import main
from cube.efficiency import NET_CLASSES, PositionClass
from engine.batch import children_batch
from engine.ids import position_id_from_board
from nets.evaluator import load_evaluator
from nets.lookahead import choose_children

SUBSET = Path(__file__).resolve().parents[1] / "fixtures" / "move_errors_subset.npz"


@pytest.fixture(scope="module")
def subset() -> MoveErrorSet:
    return MoveErrorSet.load(SUBSET)


class TableEvaluator:
    """A fake evaluator scoring each child (opponent on roll) so that the mover's equity is ``sign`` x a table's."""

    def __init__(self, moves: MoveErrorSet, sign: float) -> None:
        self.value = {
            bytes(board.tobytes()): sign * eq for board, eq in zip(moves.child_boards(), moves.equity2, strict=True)
        }

    def evaluate_boards(self, boards: np.ndarray) -> np.ndarray:
        """Probabilities whose cubeless equity for the side on roll is minus the table's mover equity."""
        out = np.zeros((len(boards), 5))
        out[:, 0] = (1.0 - np.array([self.value[bytes(b.tobytes())] for b in boards])) / 2.0  # 2w - 1 = -equity
        return out


# (equities of the plays by decision, chosen play in each decision, expected error in milli-equity)
ERROR_CASES = [
    ([[0.10, 0.25, -0.30]], [1], [0.0]),
    ([[0.10, 0.25, -0.30]], [0], [150.0]),
    ([[0.10, 0.25, -0.30]], [2], [550.0]),
    ([[1.0, 2.0], [-0.5, -0.4, -0.45]], [0, 2], [1000.0, 50.0]),
    ([[0.3, 0.3]], [0], [0.0]),  # two plays equally good: either is no error
]


@pytest.mark.parametrize(("equities", "chosen", "expected"), ERROR_CASES)
def test_decision_errors_known_answers(equities: list[list[float]], chosen: list[int], expected: list[float]) -> None:
    sizes = [len(e) for e in equities]
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    flat = np.concatenate([np.array(e) for e in equities])
    errors = decision_errors(flat, offsets, offsets[:-1] + np.array(chosen))
    assert errors == pytest.approx(expected, abs=1e-9)


def test_a_play_of_another_decision_is_refused() -> None:
    with pytest.raises(ValueError, match="own decision"):
        decision_errors(np.array([0.1, 0.2, 0.3, 0.4]), np.array([0, 2, 4]), np.array([0, 1]))


def test_summary_mean_and_standard_error() -> None:
    errors = np.array([0.0, 10.0, 4.0, 8.0, 2.0])
    classes = np.array([PositionClass.CONTACT.gnubg_code] * 2 + [PositionClass.RACE.gnubg_code] * 3)
    s = summarize(errors, classes)
    contact = s["contact"]
    assert (contact.decisions, contact.memg, contact.se) == (2, 5.0, pytest.approx(5.0))  # sd 7.07 / sqrt(2)
    assert s["race"].memg == pytest.approx(14 / 3)
    assert s["race"].se == pytest.approx(np.std([4.0, 8.0, 2.0], ddof=1) / np.sqrt(3))
    assert s["crashed"].decisions == 0
    assert s["overall"].decisions == 5 and s["overall"].memg == pytest.approx(4.8)


def test_subset_is_our_move_generators_decisions(subset: MoveErrorSet) -> None:
    assert set(np.unique(subset.gnubg_class)) == {c.gnubg_code for c in NET_CLASSES}
    kids, offsets = children_batch(subset.boards(), subset.dice)
    assert (np.diff(subset.offsets) > 1).all()  # only decisions with a choice
    for i in range(len(subset)):
        ours = {position_id_from_board(k) for k in kids[offsets[i] : offsets[i + 1]]}
        stored = [c.decode() for c in subset.child_ids[subset.offsets[i] : subset.offsets[i + 1]]]
        assert len(stored) == len(set(stored)) and set(stored) == ours, subset.position_ids[i]
    assert np.isfinite(subset.equity2).all() and (np.abs(subset.equity2) <= 3).all()


def spreads(moves: MoveErrorSet) -> np.ndarray:
    """Each decision's best minus worst 2-ply equity, in milli-equity."""
    bounds = zip(moves.offsets[:-1], moves.offsets[1:], strict=True)
    return np.array([1000 * np.ptp(moves.equity2[a:b]) for a, b in bounds])


def test_an_oracle_has_no_error_and_its_opposite_loses_the_spread(subset: MoveErrorSet) -> None:
    kids = subset.child_boards()
    best = choose_children(TableEvaluator(subset, +1.0), kids, subset.offsets, 0)
    assert (decision_errors(subset.equity2, subset.offsets, best) == 0).all()
    worst = choose_children(TableEvaluator(subset, -1.0), kids, subset.offsets, 0)
    assert decision_errors(subset.equity2, subset.offsets, worst) == pytest.approx(spreads(subset), abs=1e-9)


def test_the_nets_errors_at_one_ply_lie_within_each_spread(subset: MoveErrorSet) -> None:
    chosen = choose_children(load_evaluator(), subset.child_boards(), subset.offsets, 1)
    errors = decision_errors(subset.equity2, subset.offsets, chosen)
    assert ((errors >= 0) & (errors <= spreads(subset) + 1e-9)).all()


def test_bench_moves_errors_are_non_negative_and_classes_add_up(subset: MoveErrorSet) -> None:
    result = bench_moves(load_evaluator(), 0, SUBSET)
    for rows in (result.ours, result.gnubg_0ply):
        assert all(rows[c.value].memg >= 0 for c in NET_CLASSES)
        assert sum(rows[c.value].decisions for c in NET_CLASSES) == rows["overall"].decisions == len(subset)
    diff = result.ours_minus_gnubg_0ply["overall"].memg
    assert diff == pytest.approx(result.ours["overall"].memg - result.gnubg_0ply["overall"].memg)


def test_bench_moves_against_another_net_pairs_the_same_decisions(subset: MoveErrorSet) -> None:
    oracle = TableEvaluator(subset, +1.0)  # plays gnubg 2-ply's choice: no error at all
    result = bench_moves(load_evaluator(), 0, SUBSET, against=oracle)
    assert result.against is not None and result.ours_minus_against is not None
    assert result.against["overall"].memg == 0
    assert result.ours_minus_against["overall"].memg == pytest.approx(result.ours["overall"].memg)
    assert result.ours_minus_against["overall"].se == pytest.approx(result.ours["overall"].se)
    assert bench_moves(load_evaluator(), 0, SUBSET).against is None


def test_cli_bench_moves_json_keys(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bench", "moves", "--data", str(SUBSET), "--plies", "0", "--json"])
    js = json.loads(capsys.readouterr().out)
    assert code == 0
    assert {"benchmark", "plies", "decisions", "plays", "ours", "gnubg_0ply", "ours_minus_gnubg_0ply"} <= set(js)
    for who in ("ours", "gnubg_0ply"):
        assert set(js[who]) == {"contact", "crashed", "race", "overall"}
        assert all(set(row) == {"decisions", "memg", "se"} for row in js[who].values())
    assert js["benchmark"] == "moves" and js["plies"] == 0 and js["decisions"] == 24


def test_cli_bench_moves_missing_set_is_a_json_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "not_a_set.npz"
    bad.write_bytes(b"not an npz")
    code = main(["bench", "moves", "--data", str(bad), "--json"])
    js = json.loads(capsys.readouterr().out)
    assert code == 2 and "is not an .npz archive" in js["error"]  # numpy called it a pickle


COLLAPSED = "\n".join(
    [
        "<module> (<string>:1);main (cli/main.py:80);train (training/td.py:156);children_batch (engine/batch.py:28) 30",
        "main (cli/main.py:80);train (training/td.py:167);_learn (training/td.py:242);encode (nets/encoding.py:204) 10",
        "main (cli/main.py:80);train (training/td.py:167);_learn (training/td.py:245);"
        "Tensor.backward (torch/_tensor.py:623) 25",
        "main (cli/main.py:80);train (training/td.py:157);Evaluator.evaluate_boards (nets/evaluator.py:122) 20",
        "main (cli/main.py:80);train (training/td.py:157);encode (nets/encoding.py:204);"
        "_DispatcherBase._compile_for_args (numba/core/dispatcher.py:374) 5",
        "_bootstrap (threading.py:1002);TMonitor.run (tqdm/_monitor.py:69) 99",
        "main (cli/main.py:80) 10",
    ]
)


def test_profile_breakdown_sorts_samples_by_innermost_part() -> None:
    shares = profile_breakdown(COLLAPSED)
    assert shares == pytest.approx(
        {
            "move generation": 0.3,
            "backprop": 0.25,
            "evaluation of the children (forward)": 0.2,
            "encoding": 0.1,
            OTHER: 0.1,
            "numba compilation": 0.05,
        }
    )
    assert profile_breakdown("") == {}
