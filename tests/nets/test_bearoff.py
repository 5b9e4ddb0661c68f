"""Bearoff databases: manual example, gnubg fixtures, hand-checkable cases and properties."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Position
from nets import bearoff as bo

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]
WEIGHTS = np.array([1.0 if a == b else 2.0 for a, b in ROLLS]) / 36.0
# The rolls in nets.lookahead.ROLLS order (1-1, 1-2, ..., 6-6), as the two-roll lookahead orders them.
WEIGHTS_LOOKAHEAD = np.array([1.0 if a == b else 2.0 for a in range(1, 7) for b in range(a, 7)]) / 36.0
# gnubg keeps two-sided values in 16 bits and bearoffdump prints 4 decimals.
TWO_SIDED_TOL = 1.5e-4


@pytest.fixture(scope="session")
def one() -> bo.OneSidedDatabase:
    return bo.load_one_sided(progress=False)


@pytest.fixture(scope="session")
def two() -> bo.TwoSidedDatabase:
    return bo.load_two_sided(progress=False)


def board(own: list[int], opp: list[int]) -> np.ndarray:
    """Board from home-point counts (ace first) of the side on roll and of the opponent."""
    b = np.zeros(26, np.int8)
    b[1:7] = own
    b[24:18:-1] = [-c for c in opp]
    return b


# --- indexing ----------------------------------------------------------------------------


@pytest.mark.slow
def test_index_is_a_bijection_and_nested() -> None:
    pts = bo.one_sided_points()
    assert pts.shape == (bo.N_ONE_SIDED, 6)
    np.testing.assert_array_equal(bo.one_sided_index(pts), np.arange(bo.N_ONE_SIDED))
    counts = pts.sum(axis=1)
    assert counts.max() == 15
    # The positions with at most 6 checkers are exactly the first 924 indices.
    assert (counts[: bo.N_TWO_SIDED_SIDE] <= 6).all()
    assert (counts[bo.N_TWO_SIDED_SIDE :] > 6).all()


def test_two_sided_index_and_coverage() -> None:
    b = board([1, 0, 0, 0, 0, 0], [0, 2, 0, 0, 0, 0])
    i = bo.one_sided_index(np.array([1, 0, 0, 0, 0, 0]))
    j = bo.one_sided_index(np.array([0, 2, 0, 0, 0, 0]))
    assert bo.two_sided_index(b)[0] == i * 924 + j
    big = board([7, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0])
    contact = Position.initial().array
    done = board([0] * 6, [1, 0, 0, 0, 0, 0])
    boards = np.stack([b, big, contact, done])
    np.testing.assert_array_equal(bo.covered_by_two_sided(boards), [True, False, False, False])
    np.testing.assert_array_equal(bo.covered_by_one_sided(boards), [True, True, False, False])
    with pytest.raises(ValueError):
        bo.two_sided_index(big)
    with pytest.raises(ValueError):
        bo.load_one_sided(progress=False).probabilities(contact)


# --- the manual's example ----------------------------------------------------------------------


def test_manual_example(two: bo.TwoSidedDatabase) -> None:
    pos = Position.from_id("CgAAEAEAAAAAAA")  # X on roll
    r = two.lookup(pos.array)
    assert round(100 * float(r["win"][0]), 1) == 67.1
    centred, owned, unavailable = (round(float(x), 4) for x in r["optimal"][0])
    assert (owned, centred, unavailable) == (0.3441, 0.3210, 0.1605)
    nd_c, nd_o, nd_u = r["no_double"][0]
    assert 2 * nd_u >= nd_c and 2 * nd_u < 1.0  # initial double, take
    assert nd_o >= 2 * nd_u  # not a redouble


# --- gnubg fixtures ---------------------------------------------------------------------------


def test_two_sided_matches_gnubg(two: bo.TwoSidedDatabase) -> None:
    """gnubg stores the *no-double* equities (its evaluator applies the cube decision)."""
    data = json.loads((FIXTURES / "gnubg_bearoff_two_sided.json").read_text())["positions"]
    assert len(data) >= 300
    boards = np.stack([Position.from_id(e["id"]).array for e in data])
    r = two.lookup(boards)
    expected = np.array(
        [[e["cubeless_equity"], e["centered_cube"], e["owned_cube"], e["opponent_owns_cube"]] for e in data]
    )
    ours = np.column_stack([2 * r["win"] - 1, r["no_double"]])
    assert np.abs(ours - expected).max() < TWO_SIDED_TOL


def test_one_sided_matches_gnubg(one: bo.OneSidedDatabase) -> None:
    """gnubg quantises its distributions to 16 bits and prints 3 decimals (percent / rolls)."""
    data = json.loads((FIXTURES / "gnubg_bearoff_one_sided.json").read_text())["positions"]
    assert len(data) >= 200
    worst = {"mean_all": 0.0, "mean_first": 0.0, "off_all": 0.0, "off_first": 0.0}
    for e in data:
        pos = Position.from_id(e["id"])
        for who, b in (("player", pos.array), ("opponent", pos.flip().array)):
            off_all, off_first = one.rolls_distribution(b)
            g = e[who]
            for name, dist in (("off_all", off_all), ("off_first", off_first)):
                ref = np.zeros(bo.N_BINS)
                for k, v in g[f"{name}_percent"].items():
                    ref[int(k)] = v / 100.0
                worst[name] = max(worst[name], float(np.abs(dist - ref).max()))
            rolls = np.arange(bo.N_BINS)
            worst["mean_all"] = max(worst["mean_all"], abs(off_all @ rolls - g["mean_all"]))
            worst["mean_first"] = max(worst["mean_first"], abs(off_first @ rolls - g["mean_first"]))
    assert worst["mean_all"] < 6e-4 and worst["mean_first"] < 6e-4, worst
    assert worst["off_all"] < 2.5e-4 and worst["off_first"] < 5e-5, worst


# --- hand-checkable cases -------------------------------------------------------------------


def test_ace_point_each_side_wins_for_sure(two: bo.TwoSidedDatabase, one: bo.OneSidedDatabase) -> None:
    b = board([1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0])
    r = two.lookup(b)
    assert r["win"][0] == 1.0
    np.testing.assert_array_equal(r["optimal"][0], [1.0, 1.0, 1.0])
    np.testing.assert_allclose(one.probabilities(b)[0], [1, 0, 0, 0, 0])


def test_six_point_against_ace_point(two: bo.TwoSidedDatabase, one: bo.OneSidedDatabase) -> None:
    # 9 of 36 rolls fail to bear the checker off: 11, 12, 13, 14, 23 (2-2 moves 8 pips).
    b = board([0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0])
    r = two.lookup(b)
    assert r["win"][0] == pytest.approx(27 / 36, abs=1e-15)
    np.testing.assert_allclose(r["no_double"][0], [0.5, 0.5, 0.5], atol=1e-15)
    # Doubling is a pass (2 * 0.5 = 1): centred and owned are worth the full cube.
    np.testing.assert_allclose(r["optimal"][0], [1.0, 1.0, 0.5], atol=1e-15)
    off_all, off_first = one.rolls_distribution(b)
    assert off_all[1] == pytest.approx(27 / 36) and off_all[2] == pytest.approx(9 / 36)
    assert off_first[0] == 1.0  # 14 checkers are already off
    np.testing.assert_allclose(one.probabilities(b)[0], [0.75, 0, 0, 0, 0], atol=1e-15)
    # The other way round the ace-point checker is on roll and always wins.
    assert two.lookup(Position(b).flip().array)["win"][0] == 1.0


def test_gammons_from_one_sided(one: bo.OneSidedDatabase) -> None:
    fifteen_on_ace = [15, 0, 0, 0, 0, 0]
    lone = [1, 0, 0, 0, 0, 0]
    # On roll with one checker: win and gammon for sure (opponent has all 15 on the board).
    np.testing.assert_allclose(one.probabilities(board(lone, fifteen_on_ace))[0], [1, 1, 0, 0, 0])
    # Fifteen on the ace against one checker: lose, but bear one off first (no gammon).
    np.testing.assert_allclose(one.probabilities(board(fifteen_on_ace, lone))[0], [0, 0, 0, 0, 0])
    # Fifteen on the six point against one checker on the six point: the opponent finishes in
    # its first roll (27/36) or its second; gammoned unless a checker got off by then.
    b = board([0, 0, 0, 0, 0, 15], [0, 0, 0, 0, 0, 1])
    p = one.probabilities(b)[0]
    _, first = one.rolls_distribution(b)
    assert first[0] == 0.0 and first[1] == pytest.approx(17 / 36)  # 6x, 51, 42, 33, 22
    assert p[0] == 0.0
    expected = 27 / 36 * (1 - first[1]) + 9 / 36 * (1 - first[1] - first[2])
    assert p[3] == pytest.approx(expected, abs=1e-15)


def test_distributions_sum_to_one(one: bo.OneSidedDatabase) -> None:
    np.testing.assert_allclose(one.off_all.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(one.off_first.sum(axis=1), 1.0, atol=1e-12)
    assert one.off_all[0, 0] == 1.0 and one.off_all[1:, 0].max() == 0.0
    # The last stored bin is empty (the worst case, 15 checkers on the six point rolling 2-1
    # every time, takes 30 rolls), so the truncation to N_BINS loses nothing.
    assert one.off_all[:, -1].max() == 0.0 and one.off_first[:, -1].max() == 0.0
    assert one.off_all[:, 25:].sum(axis=1).max() < 1e-15


def test_race_probabilities_match_direct_sums(one: bo.OneSidedDatabase) -> None:
    rng = np.random.default_rng(5)
    idx = rng.integers(1, bo.N_ONE_SIDED, size=(40, 2))
    pts = bo.one_sided_points()
    boards = np.stack([board(list(pts[i]), list(pts[j])) for i, j in idx])
    p = one.probabilities(boards)
    for k, (i, j) in enumerate(idx):
        a, fa, b_, fb = one.off_all[i], one.off_first[i], one.off_all[j], one.off_first[j]
        win = sum(a[n] * b_[m] for n in range(32) for m in range(32) if n <= m)
        wg = sum(a[n] * fb[m] for n in range(1, 32) for m in range(32) if m >= n)
        lg = sum(b_[m] * fa[n] for n in range(32) for m in range(32) if n > m)
        np.testing.assert_allclose(p[k], [win, wg, 0, lg, 0], atol=1e-12)


def test_race_probabilities_stay_within_their_bounds(one: bo.OneSidedDatabase) -> None:
    """The sums round a few ulps past 1 (a win of 1.0000000000000007, a negative loss once flipped): clipped."""
    rng = np.random.default_rng(11)
    idx = rng.integers(1, bo.N_ONE_SIDED, size=(20_000, 2))
    p = bo.race_probabilities(
        one.off_all[idx[:, 0]], one.off_first[idx[:, 0]], one.off_all[idx[:, 1]], one.off_first[idx[:, 1]]
    )
    assert (p >= 0).all() and (p[:, 0] <= 1).all()
    assert (p[:, 1] <= p[:, 0]).all() and (p[:, 3] <= 1 - p[:, 0]).all()


# --- properties ---------------------------------------------------------------------------


def test_cube_state_orderings_and_range(two: bo.TwoSidedDatabase) -> None:
    nd, opt, cubeless = two.no_double, two.optimal, 2 * two.win - 1
    n = bo.N_TWO_SIDED_SIDE
    live = (np.arange(n * n) // n > 0) & (np.arange(n * n) % n > 0)
    eps = 1e-12
    for table in (nd, opt):
        assert np.abs(table).max() <= 1.0
        assert (table[2] <= table[0] + eps).all() and (table[0] <= table[1] + eps).all()
    assert (opt >= nd - eps).all()
    # Owning the cube is worth at least the cubeless equity, the opponent owning it at most.
    assert (opt[2][live] <= cubeless[live] + eps).all()
    assert (cubeless[live] <= opt[1][live] + eps).all()


def _one_ply(two: bo.TwoSidedDatabase, pos: Position) -> tuple[float, np.ndarray]:
    """Win chance and no-double equities of ``pos`` from the database values of its children."""
    win = 0.0
    nd = np.zeros(3)
    for w, dice in zip(WEIGHTS, ROLLS, strict=True):
        kids = np.stack([c.array for c in pos.children(dice)])
        r = two.lookup(kids)
        win += w * float((1.0 - r["win"]).max())
        e_c, e_o, e_u = r["optimal"].T
        nd += w * np.array([(-e_c).max(), (-e_u).max(), (-e_o).max()])
    return win, nd


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 923), st.integers(1, 923))
def test_two_sided_one_ply_consistency(i: int, j: int) -> None:
    two = bo.load_two_sided(progress=False)
    pts = bo.one_sided_points()
    pos = Position(board(list(pts[i]), list(pts[j])))
    win, nd = _one_ply(two, pos)
    r = two.lookup(pos.array)
    assert r["win"][0] == pytest.approx(win, abs=1e-12)
    np.testing.assert_allclose(r["no_double"][0], nd, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, bo.N_ONE_SIDED - 1))
def test_one_sided_one_ply_consistency(i: int) -> None:
    one = bo.load_one_sided(progress=False)
    pts = bo.one_sided_points()
    pos = Position(board(list(pts[i]), [0] * 6))
    expected = 1.0
    for w, dice in zip(WEIGHTS, ROLLS, strict=True):
        kids = np.stack([c.flip().array for c in pos.children(dice)])  # mover's view again
        own = bo.one_sided_index(kids[:, 1:7])
        expected += w * float(one.mean_all[own].min())
    assert one.mean_rolls(pos.array)[0, 0] == pytest.approx(expected, abs=1e-12)


# --- the two-roll lookahead ----------------------------------------------------------------


def test_two_roll_lookahead_6_point_against_ace(two: bo.TwoSidedDatabase) -> None:
    # 27 of 36 first rolls bear the checker off; otherwise the opponent bears off: 0 or 1 each.
    b = board([0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0])
    p = two.two_roll_win_chances(bo.two_sided_index(b))[0]
    assert set(np.unique(p)) == {0.0, 1.0}
    pair = np.outer(WEIGHTS_LOOKAHEAD, WEIGHTS_LOOKAHEAD).ravel()
    assert pair @ p == pytest.approx(27 / 36, abs=1e-15)
    # Row 21 r1 + r2 in nets.lookahead.ROLLS order: 1-1 first (misses), 6-6 last (bears off).
    assert not p[:21].any() and p[-21:].all()


def test_two_roll_lookahead_of_finished_games(two: bo.TwoSidedDatabase) -> None:
    n = bo.N_TWO_SIDED_SIDE
    p = two.two_roll_win_chances(np.array([0, 5, 5 * n, n - 1]))
    assert (p[[0, 1, 3]] == 1.0).all() and (p[2] == 0.0).all()
    with pytest.raises(ValueError, match="two-sided indices"):
        two.two_roll_win_chances(np.array([bo.N_TWO_SIDED]))
    with pytest.raises(ValueError, match="not a bearoff position"):
        two.two_roll_probabilities(Position.initial().array)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, bo.N_TWO_SIDED - 1), min_size=1, max_size=40))  # 0: neither side has a checker
def test_two_roll_lookahead_averages_to_the_win_chance(index: list[int]) -> None:
    two = bo.load_two_sided(progress=False)
    idx = np.array(index)
    p = two.two_roll_win_chances(idx)
    assert p.shape == (len(index), 441) and p.min() >= 0.0 and p.max() <= 1.0
    pair = np.outer(WEIGHTS_LOOKAHEAD, WEIGHTS_LOOKAHEAD).ravel()
    np.testing.assert_allclose(p @ pair, two.win[idx], rtol=0.0, atol=1e-12)
    n = bo.N_TWO_SIDED_SIDE
    pts = bo.one_sided_points()
    boards = np.stack([board(list(pts[k // n]), list(pts[k % n])) for k in index])
    probs = two.two_roll_probabilities(boards)
    np.testing.assert_array_equal(probs[:, :, 0], p)
    assert not probs[:, :, 1:].any()


# --- cache files ------------------------------------------------------------------------------


def test_cache_round_trip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUMPGAMMON_CACHE", str(tmp_path))
    assert bo.cache_dir() == tmp_path
    path = tmp_path / "t.npz"
    bo.save_npz(path, {"version": np.array(3), "a": np.arange(4.0)})
    assert not list(tmp_path.glob("*.tmp"))
    got, why = bo.read_npz(path, {"a": ((4,), "f8")}, 3)
    assert got is not None and why == "" and (got["a"] == np.arange(4.0)).all()


def _truncated(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])


def _nan(path: Path) -> None:
    bo.save_npz(path, {"version": np.array(3), "a": np.array([0.0, np.nan, 0.0, 0.0])})


@pytest.mark.parametrize(
    ("damage", "spec", "version", "why"),
    [
        (None, {"a": ((4,), "f8")}, 4, "version 3, not 4"),
        (None, {"a": ((5,), "f8")}, 3, "not f8(5,)"),
        (None, {"b": ((4,), "f8")}, 3, "unreadable"),
        (lambda p: p.write_bytes(b"garbage"), {"a": ((4,), "f8")}, 3, "unreadable"),
        (_truncated, {"a": ((4,), "f8")}, 3, "unreadable"),
        (lambda p: p.write_bytes(b""), {"a": ((4,), "f8")}, 3, "unreadable"),
        (_nan, {"a": ((4,), "f8")}, 3, "NaN"),
        (lambda p: p.unlink(), {"a": ((4,), "f8")}, 3, "not built yet"),
    ],
)
def test_damaged_cache_is_refused_with_a_reason(
    tmp_path: Path, damage: Callable[[Path], None] | None, spec: dict, version: int, why: str
) -> None:
    path = tmp_path / "t.npz"
    bo.save_npz(path, {"version": np.array(3), "a": np.arange(4.0)})
    if damage is not None:
        damage(path)
    got, reason = bo.read_npz(path, spec, version)
    assert got is None and why in reason


def test_damaged_cache_is_rebuilt_with_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "db.npz"
    spec = {"a": ((2, 3), "f8"), "b": ((2, 3), "f8")}
    built = (np.ones((2, 3)), np.zeros((2, 3)))
    bo.save_npz(path, {"version": np.array(1), "a": built[0], "b": built[1]})
    _truncated(path)
    (tmp_path / "db.npz.abc123.tmp").write_bytes(b"left by a killed write")
    a, b = bo.load_or_build("test", path, spec, 1, lambda progress: built, progress=False, rebuild=False)
    assert (a == 1).all() and (b == 0).all()
    err = capsys.readouterr()
    assert "unreadable" in err.err and "rebuilding the test bearoff database" in err.err and err.out == ""
    assert not list(tmp_path.glob("*.tmp"))
    again, why = bo.read_npz(path, spec, 1)  # the rebuilt file is whole again
    assert again is not None and why == ""
