"""Cube strategies against exact bearoff play: the scoring and the exact two-roll lookahead."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import numpy as np
import pytest

import cube
from benchmarks import cube_bearoff as cb
from engine import Position
from nets.bearoff import TwoSidedDatabase, load_two_sided, one_sided_index, two_sided_index

SAMPLE = 300
SEED = 7


@pytest.fixture(scope="module")
def db() -> TwoSidedDatabase:
    return load_two_sided(progress=False)


@pytest.fixture(scope="module")
def sample(db: TwoSidedDatabase) -> tuple[np.ndarray, np.ndarray, cb.ExactReference]:
    i, j = cb.position_indices(SAMPLE, SEED)
    return i, j, cb.exact_reference(db, i, j)


def _index(points6: list[int]) -> int:
    return int(one_sided_index(np.array(points6)))


def test_positions_cover_both_sides_on(db: TwoSidedDatabase) -> None:
    i, j = cb.position_indices()
    assert len(i) == 923 * 923 and i.min() == 1 and j.min() == 1 and i.max() == j.max() == 923
    si, sj = cb.position_indices(SAMPLE, SEED)
    assert len(si) == SAMPLE and len(np.unique(si * 924 + sj)) == SAMPLE
    assert np.array_equal(si, cb.position_indices(SAMPLE, SEED)[0])  # seeded
    boards = cb.boards_from_indices(si, sj)
    assert np.array_equal(two_sided_index(boards), si * 924 + sj)
    ref = cb.exact_reference(db, si, sj)
    assert np.allclose(ref.no_double, db.lookup(boards)["no_double"])


def test_oracle_has_no_errors(sample: tuple[np.ndarray, np.ndarray, cb.ExactReference]) -> None:
    _, _, ref = sample
    scores = cb.score(cb.oracle_decisions(ref), ref)
    for figures in scores.kinds().values():
        assert figures.errors == 0 and figures.mean_cost == 0.0


def test_the_databases_optimum_is_the_better_cube_action(
    sample: tuple[np.ndarray, np.ndarray, cb.ExactReference],
) -> None:
    """The costs are clamped at zero, which would hide a strategy beating the reference: the database's optimal
    equity must be the better of no double and min(double/take, double/pass) where the side may double, and no
    double where it may not, so that no choice can beat it."""
    _, _, ref = sample
    for column in (0, 1):  # centred, owned
        expected = np.maximum(ref.no_double[:, column], ref.double_equity)
        np.testing.assert_allclose(ref.optimal[:, column], expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ref.optimal[:, 2], ref.no_double[:, 2], rtol=0, atol=1e-12)  # unavailable
    assert (ref.double_equity > ref.no_double[:, 0]).any() and (ref.double_equity < ref.no_double[:, 0]).any()


def test_bad_strategies_cost_equity(sample: tuple[np.ndarray, np.ndarray, cb.ExactReference]) -> None:
    _, _, ref = sample
    n = len(ref.win)
    always = cb.Decisions(np.ones(n, bool), np.ones(n, bool), np.zeros(n, bool))  # double, never take
    s = cb.score(always, ref)
    assert s.double.mean_cost > 0 and s.double.wrong_doubles > 0
    assert s.double.missed_doubles == 0
    assert s.take.mean_cost > 0 and s.take.wrong_passes > 0 and s.take.wrong_takes == 0
    never = cb.Decisions(np.zeros(n, bool), np.zeros(n, bool), np.ones(n, bool))  # never double, always take
    s = cb.score(never, ref)
    assert s.redouble.mean_cost > 0 and s.redouble.missed_doubles > 0
    assert s.take_doubled.wrong_takes > 0


def test_cost_of_one_decision_by_hand(db: TwoSidedDatabase) -> None:
    # Six on the 6 point against one on the ace: the side on roll wins 27/36 (see below), so
    # DT = 2 (2 * 27/36 - 1) = 1: a double/take tie; playing on is worth 2 * 0.75 - 1 = 0.5.
    i, j = np.array([_index([0, 0, 0, 0, 0, 1])]), np.array([_index([1, 0, 0, 0, 0, 0])])
    ref = cb.exact_reference(db, i, j)
    assert ref.double_take[0] == pytest.approx(1.0)
    no = cb.Decisions(np.zeros(1, bool), np.zeros(1, bool), np.zeros(1, bool))
    s = cb.score(no, ref)
    assert s.double.mean_cost == pytest.approx(0.5)
    assert s.take.errors == 0  # a tie: passing is as good as taking


def test_lookahead_6_point_against_ace(db: TwoSidedDatabase) -> None:
    # 27 of 36 first rolls bear the checker off (all but 1-1, 2-1, 3-1, 4-1, 3-2); otherwise
    # the opponent bears off: each of the 441 outcomes is 0 or 1.
    i, j = np.array([_index([0, 0, 0, 0, 0, 1])]), np.array([_index([1, 0, 0, 0, 0, 0])])
    p = db.two_roll_win_chances(i * 924 + j)[0]
    assert set(np.unique(p)) == {0.0, 1.0}
    w = cube.two_roll_weights().ravel()
    assert w @ p == pytest.approx(0.75, abs=1e-12)
    alpha, worst = cb.local_alphas(db, i, j)
    assert alpha[0] == pytest.approx(np.sqrt(0.75 * 0.25), abs=1e-12)
    assert worst < 1e-12


def test_lookahead_mean_is_the_exact_win_chance(
    db: TwoSidedDatabase, sample: tuple[np.ndarray, np.ndarray, cb.ExactReference]
) -> None:
    i, j, ref = sample
    p = db.two_roll_win_chances(i * 924 + j)
    assert p.min() >= 0.0 and p.max() <= 1.0
    assert np.allclose(p @ cube.two_roll_weights().ravel(), ref.win, atol=1e-12)


def test_lookahead_matches_the_evaluator(db: TwoSidedDatabase) -> None:
    from nets.bearoff import load_databases
    from nets.model import new_evaluator
    from nets.volatility import two_roll_search

    ev = new_evaluator(hidden=(8,), seed=0)
    ev.one_sided, ev.two_sided = load_databases()
    i, j = cb.position_indices(3, SEED + 1)
    mine = db.two_roll_win_chances(i * 924 + j)
    for k, board in enumerate(cb.boards_from_indices(i, j)):
        theirs = two_roll_search(ev, Position.from_board(board).array[None])[0, :, 0]
        assert np.allclose(mine[k], theirs, atol=1e-9)


def test_small_run_writes_results(tmp_path: Path) -> None:
    result = cb.bench_cube_bearoff(sample=200, seed=SEED, fit=False)
    names = [row.model for row in result.models]
    assert names[0] == "exact (oracle)" and "jump_local(0.1, numerical)" in names
    assert result.settings.positions == 200
    js, md = cb.write_results(result, tmp_path)
    assert json.loads(js.read_text())["models"][0]["scores"]["double"]["errors"] == 0
    table = md.read_text()
    assert table.count("\n| ") >= len(names) + 1 and "jump(0.1, numerical)" in table
    assert not list(tmp_path.glob("*.tmp"))


def test_cli_dispatches(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from cli.main import main

    fake = cb.bench_cube_bearoff(sample=20, seed=SEED, fit=False, local=False)
    seen: dict[str, object] = {}

    def run(**kw: object) -> cb.CubeBearoffResult:
        seen.update(kw)
        return fake

    monkeypatch.setattr(cb, "bench_cube_bearoff", run)
    assert main(["bench", "cube-bearoff", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {**fake.to_json(), "date": datetime.date.today().isoformat()}
    assert seen["sample"] is None and seen["seed"] == cb.DEFAULT_SEED and seen["fit"] is True


def test_cli_writes_the_result_files(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``bench cube-bearoff --out DIR``: the result files as :func:`write_results` writes them, the table printed."""
    from cli.main import main

    fake = cb.bench_cube_bearoff(sample=20, seed=SEED, fit=False, local=False)
    seen: dict[str, object] = {}

    def run(**kw: object) -> cb.CubeBearoffResult:
        seen.update(kw)
        return fake

    monkeypatch.setattr(cb, "bench_cube_bearoff", run)
    argv = ["bench", "cube-bearoff", "--sample", "20", "--seed", str(SEED), "--no-fit", "--out", str(tmp_path)]
    assert main(argv) == 0
    assert seen == {"sample": 20, "seed": SEED, "fit": False, "progress": True}
    assert json.loads((tmp_path / "cube_bearoff.json").read_text()) == json.loads(json.dumps(fake.to_json()))
    assert (tmp_path / "cube_bearoff.md").read_text() == cb.markdown_table(fake)
    assert cb.markdown_table(fake) in capsys.readouterr().out
