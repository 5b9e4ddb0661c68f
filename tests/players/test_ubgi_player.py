"""``ubgi:COMMAND`` players: this engine's UBGI mode, driven as an external engine, plays and decides as ``net@0``.

The engine is started as a real process (``python -m cli.main ubgi``). Its moves must be the ones
``net@0`` chooses in process, position for position; its cube decisions those of ``net@0`` with the
``gnubg`` cube spec (money) or ``gnubg-match`` (at a match score); and a short tournament between
the two on the same dice must come out exactly even.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from arena.games import Rules
from arena.tournament import PlayerSpec, TournamentConfig, run_tournament
from cube.match import MatchCube, MatchScore
from cube.met import DEFAULT_MET, met_by_name
from cube.states import CubeAction, CubeState
from engine import InvalidSpec, Position
from engine.batch import flip_boards
from players.base import CubeContext, Player
from players.specs import make_player
from players.ubgi import Dialect, UbgiPlayer, format_move, parse_move, spec_command

ENGINE = "ubgi:" + shlex.join([sys.executable, "-m", "cli.main", "ubgi"])


def game_positions(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` positions of random games (side on roll's view) with a roll each."""
    rng = np.random.default_rng(seed)
    boards: list[np.ndarray] = []
    dice: list[tuple[int, int]] = []
    position = Position.initial()
    while len(boards) < n:
        roll = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        boards.append(position.array.copy())
        dice.append(roll)
        children = position.children(roll)
        position = children[int(rng.integers(len(children)))]
        if position.is_over():
            position = Position.initial()
    return np.array(boards), np.array(dice)


@pytest.fixture(scope="module")
def players() -> Iterator[tuple[UbgiPlayer, Player, Player]]:
    ubgi = make_player(ENGINE, "gnubg")
    assert isinstance(ubgi, UbgiPlayer)
    yield ubgi, make_player("net@0", "gnubg"), make_player("net@0", "gnubg-match", met=met_by_name(DEFAULT_MET))
    ubgi.engine.close()


def test_the_engine_identifies_itself(players: tuple) -> None:
    ubgi = players[0]
    assert ubgi.engine.identity["name"] == "jumpgammon" and ubgi.engine.options


def test_it_plays_the_moves_net0_plays(players: tuple) -> None:
    ubgi, net, _ = players
    boards, dice = game_positions(160, seed=5)
    assert np.array_equal(ubgi.choose_moves(boards, dice), net.choose_moves(boards, dice))


def test_its_money_cube_decisions_are_net0s_with_gnubgs_model(players: tuple) -> None:
    ubgi, net, _ = players
    boards, _ = game_positions(120, seed=6)
    for state in (CubeState.CENTERED, CubeState.OWNED):
        states = np.full(len(boards), state)
        for jacoby in (False, True):
            context = CubeContext.money(states, jacoby, False)
            mine = ubgi.double_actions(boards, context) == CubeAction.DOUBLE
            theirs = net.double_actions(boards, context) == CubeAction.DOUBLE
            assert np.array_equal(mine, theirs)
        doubled = flip_boards(boards)  # the doubled side's view
        for beavers in (False, True):
            assert np.array_equal(
                ubgi.double_responses(doubled, CubeContext.money(states, False, beavers)),
                net.double_responses(doubled, CubeContext.money(states, False, beavers)),
            )


def test_its_match_cube_decisions_are_net0s_with_gnubgs_match_model(players: tuple) -> None:
    ubgi, _, net = players
    boards, _ = game_positions(60, seed=7)
    cubes = [
        MatchCube(MatchScore(3, 5), 1, CubeState.CENTERED),
        MatchCube(MatchScore(4, 2), 2, CubeState.OWNED),
        MatchCube(MatchScore(7, 7), 1, CubeState.CENTERED),
    ]
    for cube in cubes:
        batch = CubeContext.match([cube] * len(boards))
        mine = ubgi.double_actions(boards, batch) == CubeAction.DOUBLE
        theirs = net.double_actions(boards, batch) == CubeAction.DOUBLE
        assert np.array_equal(mine, theirs)
        doubled = flip_boards(boards)
        assert np.array_equal(ubgi.double_responses(doubled, batch), net.double_responses(doubled, batch))


@pytest.mark.slow
def test_against_net0_on_the_same_dice_it_scores_exactly_zero() -> None:
    money = TournamentConfig(
        PlayerSpec(ENGINE, "gnubg"), PlayerSpec("net@0", "gnubg"), games=8, seed=3, rules=Rules(cubeful=True)
    )
    result, _ = run_tournament(money, progress=False)
    assert result.ppg == 0.0 and result.se == 0.0
    match = TournamentConfig(
        PlayerSpec(ENGINE, "gnubg"),
        PlayerSpec("net@0", "gnubg-match"),
        games=4,
        seed=3,
        match_length=3,
        rules=Rules(cubeful=True),
    )
    mresult, _ = run_tournament(match, progress=False)
    assert mresult.mwc == 0.5 and mresult.se == 0.0


def test_moves_are_written_out_and_read_back() -> None:
    position = Position.initial()
    for dice in ((6, 5), (3, 3), (2, 1)):
        for move, child in position.plays(dice):
            text = format_move(move)
            assert "*" not in text and "(" not in text
            assert parse_move(text, position, dice) == child
            assert parse_move(text.replace("/", " "), position, dice) == child
            assert parse_move(text.replace("/", "-"), position, dice) == child


@pytest.mark.parametrize(
    ("spec", "cube", "needle"),
    [
        ("ubgi:", "none", "names no command"),
        ("ubgi:'unclosed", "none", "cannot split"),
        ("ubgi:/no/such/engine", "none", "cannot be started"),
        (f"ubgi:{sys.executable} -c pass", "none", "ended"),
        (ENGINE, "janowski:0.7", "none or gnubg"),
    ],
)
def test_bad_ubgi_specs_name_themselves(spec: str, cube: str, needle: str) -> None:
    with pytest.raises(InvalidSpec) as info:
        make_player(spec, cube)
    assert needle in str(info.value) and spec.strip() in str(info.value)


def test_the_spec_is_split_like_a_shell_command() -> None:
    assert spec_command("ubgi:wildbg-ubgi --threads 2") == ["wildbg-ubgi", "--threads", "2"]


# --- the UCI-like dialect of wildbg's engine (position gnubgid / dice / go / bestmove) ---------------------

DOUBLE = Path(__file__).with_name("uci_dialect_engine.py")


@pytest.mark.slow
@pytest.mark.parametrize("ids", [False, True], ids=["bestmove", "bestmoveid"])
def test_an_engine_of_the_uci_dialect_is_driven_in_its_dialect(ids: bool) -> None:
    spec = "ubgi:" + shlex.join([sys.executable, str(DOUBLE), *(["--ids"] if ids else [])])
    ubgi = make_player(spec, "none")
    assert isinstance(ubgi, UbgiPlayer)
    try:
        assert ubgi.engine.dialect is Dialect.UCI and ubgi.engine.identity["name"] == "uci-dialect-double"
        boards, dice = game_positions(80, seed=8)
        assert np.array_equal(ubgi.choose_moves(boards, dice), make_player("net@0").choose_moves(boards, dice))
    finally:
        ubgi.engine.close()


def test_the_uci_dialect_gets_no_cube_questions() -> None:
    spec = "ubgi:" + shlex.join([sys.executable, str(DOUBLE)])
    with pytest.raises(InvalidSpec, match="dialect.*cube spec none"):
        make_player(spec, "gnubg")
