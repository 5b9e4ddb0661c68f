"""jump-local's lookahead gating never changes a decision, and cube specs parse or fail cleanly."""

from __future__ import annotations

import re

import numpy as np
import pytest

from cube import local_volatility
from cube.states import CubeState
from cube.two_roll import SEARCH_CELLS, decided, uncertain_cells
from engine import Position
from engine.errors import InvalidSpec
from nets import load_evaluator
from nets.cube_advice import money_cube_decisions
from nets.volatility import two_roll_outcomes_batch
from players import make_player, parse_cube_spec
from players.base import CubeContext
from players.cube import CubeDecider
from players.net import NetPlayer
from tests.selfplay_boards import positions_from_games


def _board(mine: dict[int, int], his: dict[int, int]) -> np.ndarray:
    """A bear-off board: the side on roll's checkers on its points, the opponent's on his (1 = each side's ace)."""
    b = np.zeros(26, np.int8)
    for point, n in mine.items():
        b[point] = n
    for point, n in his.items():
        b[25 - point] = -n
    return b


# Last rolls and a return shot: games decided within two rolls (the side on roll's chances after both rolls are 0 or 1).
LAST_ROLLS = (
    _board({2: 2}, {1: 2}),  # AwAAMAAAAAAAAA: 26 rolls of 36 win, else the opponent surely does
    _board({3: 2}, {1: 1}),
    _board({6: 1, 5: 1}, {1: 1}),
    _board({1: 1}, {6: 1, 1: 1}),  # a sure win
    _board({4: 1, 2: 1}, {2: 1, 1: 1}),
)


@pytest.mark.slow  # every lookahead run on positions from self-play
def test_gating_never_changes_a_jump_local_decision() -> None:
    """On positions from self-play, the gated decision equals the decision with every lookahead run."""
    ev = load_evaluator()
    ends = np.stack(LAST_ROLLS)  # decided within two rolls: exact decisions
    boards = np.concatenate([positions_from_games(6, seed=11)[::4][:80], ends])
    strategy = parse_cube_spec("jump-local").strategy
    assert strategy is not None
    probs = ev.evaluate_boards(boards)
    outcomes = two_roll_outcomes_batch(ev, boards)
    decider = CubeDecider(strategy, ev.evaluate_boards, lambda b: two_roll_outcomes_batch(ev, b))
    for state in (CubeState.CENTERED, CubeState.OWNED):
        states = np.full(len(boards), state)
        full = strategy.decide(probs, states, lookahead=outcomes)
        gated = decider.decide(boards, CubeContext.money(states))
        assert np.array_equal(gated.action, full.action)
        assert np.array_equal(gated.response, full.response)
    assert 0 < decider.lookaheads < 2 * len(boards)  # the gate both skipped and ran lookaheads here


@pytest.mark.slow
def test_each_distinct_board_gets_one_lookahead_and_the_cache_changes_nothing() -> None:
    ev = load_evaluator()
    boards = positions_from_games(6, seed=11)[::4][:40]
    doubled = np.concatenate([boards, boards[::-1]])  # every board twice, as in a mirrored pair
    strategy = parse_cube_spec("jump-local").strategy
    assert strategy is not None
    asked: list[int] = []

    def lookahead(b: np.ndarray) -> np.ndarray:
        asked.append(len(b))
        assert len({row.tobytes() for row in b}) == len(b)  # no board twice in one lookahead batch
        return two_roll_outcomes_batch(ev, b)

    cached = CubeDecider(strategy, ev.evaluate_boards, lookahead)
    uncached = CubeDecider(strategy, ev.evaluate_boards, lambda b: two_roll_outcomes_batch(ev, b), cache_size=0)
    for state in (CubeState.CENTERED, CubeState.OWNED, CubeState.CENTERED):
        states = np.full(len(doubled), state)
        a = cached.decide(doubled, CubeContext.money(states))
        b = uncached.decide(doubled, CubeContext.money(states))
        assert np.array_equal(a.action, b.action) and np.array_equal(a.response, b.response)
        assert a.equity is not None and b.equity is not None and np.array_equal(a.equity, b.equity)
    assert cached.lookaheads == uncached.lookaheads > 0  # the same positions needed a volatility
    assert cached.lookaheads_run == sum(asked) <= len(boards)  # each distinct board at most once, ever
    assert uncached.lookaheads_run > cached.lookaheads_run


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("bogus", "is not one of"),
        ("janowski", "is not one of"),
        ("janowski:x", "not a number"),
        ("janowski:1.5", "not in [0, 1]"),
        ("janowski:0.5,0.6,0.7", "is not one of"),
        ("jump:0.7", "not in [0.001, 0.49]"),
        ("jump:0.1:cubic", "is not one of"),
        ("jump-local:nan", "not in"),
        ("none:1", "is not one of"),
    ],
)
def test_bad_cube_specs_name_themselves(text: str, needle: str) -> None:
    with pytest.raises(InvalidSpec, match=re.escape(needle)) as info:
        parse_cube_spec(text)
    assert repr(text) in str(info.value)


@pytest.mark.parametrize(
    ("spec", "cube", "needle"),
    [
        ("net@3", "none", "ply '3'"),
        ("net", "none", "is not one of"),
        ("pubeval", "janowski:0.7", "no probabilities"),
        ("pubeval", "gnubg", "no probabilities"),
        ("chess@0", "none", "is not one of"),
        ("random:x", "none", "seed"),
    ],
)
def test_bad_player_specs_name_themselves(spec: str, cube: str, needle: str) -> None:
    with pytest.raises(InvalidSpec, match=needle):
        make_player(spec, cube)


def test_a_net_with_the_gnubg_spec_decides_as_eval_does() -> None:
    """``gnubg`` on a net: gnubg's model on the net's probabilities, exact in two-sided bear-offs (a last roll
    is a double and a take for money, as gnubg says), the class's x elsewhere."""
    player = make_player("net@0", "gnubg")
    boards = np.stack([Position.from_id(i).array for i in ("AwAAMAAAAAAAAA", "0QAA4BIAAAAAAA", "4HPwATDgc/ABMA")])
    states = np.full(3, CubeState.CENTERED.value)
    actions = player.double_actions(boards, CubeContext.money(states))
    assert list(actions) == ["double", "double", "no double"]
    equities = player.cube_equities(boards, CubeContext.money(states))
    assert equities is not None and equities[0] == pytest.approx(0.889, abs=1e-3)
    assert isinstance(player, NetPlayer)
    want = money_cube_decisions(boards, player.probabilities(boards), states, jacoby=False, beavers=False)
    assert np.allclose(equities, want.equity)


@pytest.mark.slow  # lookaheads of 40 positions
def test_jump_local_mean_abs_reads_the_lookahead_as_mean_absolute_jumps() -> None:
    """``jump-local:A:mean_abs`` decides as the strategy given E|J| of each lookahead, and differs from sigma_J."""
    ev = load_evaluator()
    boards = positions_from_games(6, seed=11)[::4][:40]
    probs = ev.evaluate_boards(boards)
    outcomes = two_roll_outcomes_batch(ev, boards)[:, :, 0]
    mean_abs, std = local_volatility(outcomes, measure="mean_abs"), local_volatility(outcomes)
    assert (mean_abs <= std + 1e-12).all() and (mean_abs < std).any()
    spec = parse_cube_spec("jump-local:0.1:mean_abs")
    assert spec.strategy is not None and spec.strategy.local_measure == "mean_abs"
    states = np.full(len(boards), CubeState.CENTERED)
    decider = CubeDecider(spec.strategy, ev.evaluate_boards, lambda b: two_roll_outcomes_batch(ev, b))
    gated = decider.decide(boards, CubeContext.money(states))
    full = spec.strategy.decide(probs, states, local_alpha=mean_abs)
    assert np.array_equal(gated.action, full.action) and np.array_equal(gated.response, full.response)
    assert decider.lookaheads > 0


@pytest.mark.parametrize("text", ["jump-local:0.1:sd", "jump-local:0.1:", "jump-local::std:x", "jump-local:0.1:MEAN"])
def test_bad_local_measures_are_refused(text: str) -> None:
    with pytest.raises(InvalidSpec, match=re.escape(repr(text))):
        parse_cube_spec(text)


def test_local_measure_specs_parse() -> None:
    for text, measure in [("jump-local", "std"), ("jump-local:0.08:std", "std"), ("jump-local::mean_abs", "mean_abs")]:
        strategy = parse_cube_spec(text).strategy
        assert strategy is not None and strategy.local_measure == measure


@pytest.mark.slow  # lookaheads of 12 positions
def test_two_players_on_one_net_share_each_lookahead(monkeypatch: pytest.MonkeyPatch) -> None:
    """A jump-local:std and a jump-local:mean_abs player on one evaluator run each board's lookahead once between
    them, and get the outcomes an uncached lookahead gives, bit for bit."""
    import players.net as net_module

    ev = load_evaluator()
    boards = positions_from_games(2, seed=5)[::6][:12]
    run: list[int] = []

    def counted(evaluator: object, b: np.ndarray) -> np.ndarray:
        run.append(len(b))
        return two_roll_outcomes_batch(ev, b)

    monkeypatch.setattr(net_module, "two_roll_outcomes_batch", counted)
    cache = {"": ev}
    std, mean_abs = make_player("net@0", "jump-local", cache), make_player("net@0", "jump-local:0.1:mean_abs", cache)
    assert isinstance(std, NetPlayer) and isinstance(mean_abs, NetPlayer)
    first = std.two_roll_outcomes(boards)
    again = mean_abs.two_roll_outcomes(np.concatenate([boards[::-1], boards]))
    assert sum(run) == len({row.tobytes() for row in boards})  # each distinct board once, for both players
    assert np.array_equal(first, two_roll_outcomes_batch(ev, boards))
    assert np.array_equal(again[len(boards) :], first) and np.array_equal(again[: len(boards)], first[::-1])
    other = NetPlayer(load_evaluator(), 0, parse_cube_spec("jump-local"), "other net object")
    other.two_roll_outcomes(boards[:3])
    assert sum(run) == len({row.tobytes() for row in boards}) + 3  # another evaluator keeps its own


def test_a_decided_game_takes_the_exact_decision_and_the_draw_can_ask_for_the_jump_models() -> None:
    """On a last roll (26 of 36 win) jump-local's decision is the exact one: no double 2P - 1, double/take twice it,
    whatever the gate volatilities say; with ``two_roll_search`` off it is the jump model's again."""
    ev = load_evaluator()
    boards = LAST_ROLLS[0][None]
    assert Position.from_id("AwAAMAAAAAAAAA").array.tolist() == boards[0].tolist()
    assert decided(two_roll_outcomes_batch(ev, np.stack(LAST_ROLLS))).all()
    strategy = parse_cube_spec("jump-local").strategy
    assert strategy is not None
    decider = CubeDecider(strategy, ev.evaluate_boards, lambda b: two_roll_outcomes_batch(ev, b))
    context = CubeContext.money(np.array([CubeState.OWNED]))
    exact = decider.decide(boards, context)
    assert exact.equity is not None
    assert float(exact.equity[0]) == pytest.approx(2 * (2 * 26 / 36 - 1), abs=1e-6)  # redouble, take
    assert decider.lookaheads_run == 1
    decider.two_roll_search = False
    model = decider.decide(boards, context)
    assert model.equity is not None
    assert float(model.equity[0]) < float(exact.equity[0]) - 0.1  # the jump model's last-roll artefact


def test_a_nearly_decided_game_takes_the_two_roll_search() -> None:
    """Three checkers against two in a bear-off, 55 of the 441 two-roll lines open: jump-local decides by the
    two-roll search (the model only at the open lines) whatever the gate volatilities say; off, the model alone."""
    ev = load_evaluator()
    boards = Position.from_id("QQAAKAQAAAAAAA").array[None]
    outcomes = two_roll_outcomes_batch(ev, boards)
    assert 0 < int(uncertain_cells(outcomes)[0]) <= SEARCH_CELLS
    strategy = parse_cube_spec("jump-local").strategy
    assert strategy is not None
    decider = CubeDecider(strategy, ev.evaluate_boards, lambda b: two_roll_outcomes_batch(ev, b))
    context = CubeContext.money(np.array([CubeState.CENTERED]))
    searched = decider.decide(boards, context)
    expected = strategy.decide(ev.evaluate_boards(boards), CubeState.CENTERED, lookahead=outcomes)
    assert searched.equity is not None and float(searched.equity[0]) == pytest.approx(float(expected.equity[0]))
    assert decider.lookaheads_run == 1
    decider.two_roll_search = False
    alone = decider.decide(boards, context)
    assert alone.equity is not None and float(alone.equity[0]) != pytest.approx(float(searched.equity[0]), abs=1e-3)
