"""The gnubg external-mode client: argument checks without gnubg, then live play when gnubg is installed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from arena import Rules, play_block
from engine import FibsBoard, Position
from players.base import CubeContext
from players.gnubg_client import (
    GNUBG,
    MAX_LINE,
    GnubgExternal,
    GnubgExternalError,
    evaluation_commands,
    gnubg_available,
)
from players.gnubg_external import GnubgExternalPlayer

needs_gnubg = pytest.mark.skipif(
    not gnubg_available(), reason=f"GNU Backgammon is not installed at {GNUBG} (apt-get install gnubg)"
)


def test_evaluation_commands() -> None:
    cmds = evaluation_commands(0, 2, noise=0.0, deterministic=True, prune=True, cubeful=True)
    assert "set evaluation chequerplay evaluation plies 0" in cmds
    assert "set evaluation cubedecision evaluation plies 2" in cmds
    with pytest.raises(ValueError, match="plies"):
        evaluation_commands(7, 0, noise=0.0, deterministic=True, prune=True, cubeful=True)


def test_refusals_need_no_gnubg() -> None:
    with pytest.raises(ValueError, match="localhost"):
        GnubgExternal(host="example.org")
    with pytest.raises(ValueError, match="port"):
        GnubgExternal(launch=False)
    client = GnubgExternal()
    with pytest.raises(ValueError, match="overflows"):
        client.request("board:" + "x" * MAX_LINE)
    with pytest.raises(ValueError, match="one line"):
        client.request("version\nexit")
    with pytest.raises(GnubgExternalError, match="not connected"):
        client.request("version")
    with pytest.raises(GnubgExternalError, match="not found"), GnubgExternal(executable="/nonexistent/gnubg"):
        pass


def test_match_scores_are_swapped_for_decisions_only_in_match_play() -> None:
    client = GnubgExternal()
    p = Position.initial()
    match = FibsBoard.from_position(p, dice=(3, 1), match_length=5, score=(4, 1))
    sent = client._for_decision(match)
    assert (sent.player_score, sent.opponent_score) == (1, 4)
    money = FibsBoard.from_position(p, dice=(3, 1), score=(4, 1))
    assert client._for_decision(money) == money
    assert GnubgExternal(swap_match_scores=False)._for_decision(match) == match


@pytest.fixture(scope="module")
def gnubg() -> Iterator[GnubgExternal]:
    if not gnubg_available():
        pytest.skip(f"GNU Backgammon is not installed at {GNUBG}")
    with GnubgExternal(plies=0, timeout=30) as client:
        yield client


@needs_gnubg
def test_version(gnubg: GnubgExternal) -> None:
    info = gnubg.version()
    assert info["Software"].startswith("1.07") and info["Interface"] == "2"


@needs_gnubg
def test_plays_legal_moves_through_a_seeded_game(gnubg: GnubgExternal) -> None:
    rng = np.random.default_rng(11)
    position = Position.initial()
    roll = (3, 1)  # an opening roll (no doubles)
    moves = 0
    for turn in range(60):
        if turn:
            roll = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        child = gnubg.choose(position, roll, match_length=7, score=(turn % 6, 3))
        assert child in position.children(roll)
        moves += 1
        if child.is_over():
            break
        position = child
    assert moves >= 20


@needs_gnubg
def test_cube_decisions_and_evaluation(gnubg: GnubgExternal) -> None:
    crushing = Position.from_board([0, 2] + [0] * 17 + [-4, -3, -3, 0, 0, 0, 0])  # no gammon left: cash it
    assert gnubg.double_decision(crushing)
    too_good = Position.from_board([0, 2] + [0] * 17 + [-5, -5, -5, 0, 0, 0, 0])  # a gammon (no Jacoby rule)
    assert not gnubg.double_decision(too_good)
    assert not gnubg.double_decision(crushing, cube=2, owner="opponent")  # never asked
    assert gnubg.take_decision(crushing) == "drop"
    centred = CubeContext.money(np.array(["centered"]))
    assert GnubgExternalPlayer(gnubg).double_responses(crushing.flip().array[None], centred)[0] == "pass"
    assert not gnubg.double_decision(Position.initial())
    assert gnubg.take_decision(Position.initial()) == "take"  # beavers are off
    win, *_, equity = gnubg.evaluate(Position.initial())
    assert 0.45 < win < 0.6 and -0.2 < equity < 0.2
    # Match play: the 1-away leader's match-winning chance at an even position is well above 1/2.
    assert gnubg.evaluate(Position.initial(), match_length=5, score=(4, 1))[5] > 0.7


@needs_gnubg
def test_a_money_game_with_the_cube_and_no_process_left() -> None:
    with GnubgExternal(plies=0) as client:
        pid = client.pid
        player = GnubgExternalPlayer(client)
        result = play_block((player, player), seed=5, first_pair=0, n_pairs=1, rules=Rules(cubeful=True))
        assert set(result.winner) <= {0, 1} and (abs(result.points_seat0) >= 1).all()
        assert result.points_seat0[0] == result.points_seat0[1]  # the same player in both seats: the same game twice
    assert pid is not None and not Path(f"/proc/{pid}").exists()
