"""Jellyfish .mat files as GNU Backgammon 1.07 imports them (arena/mat.py).

tests/fixtures/gnubg_mat_import.json holds tournament games, the .mat text written for them and
what gnubg 1.07 read back from it (tools/gnubg_fixtures/gen_mat_import.py): the fixture tests
need no gnubg. The live test has gnubg import freshly written files when it is installed.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from arena import Rules, play_block
from arena.mat import MatGame, block_games, game_lines, mat_move, mat_name, session_text
from cube.states import CubeAction, CubeResponse
from engine.match import MAX_CUBE
from engine.position import Position
from players.base import CubeContext
from players.random_player import RandomPlayer

REPO = Path(__file__).resolve().parents[2]
FIXTURE = json.loads((REPO / "tests" / "fixtures" / "gnubg_mat_import.json").read_text())
GENERATOR = REPO / "tools" / "gnubg_fixtures" / "gen_mat_import.py"
GNUBG = Path("/usr/games/gnubg")
GAME_OVER, GAME_DROP = 2, 4  # gnubg's game states at the end of a game


def session_games(session: dict[str, Any]) -> list[MatGame]:
    """The fixture session's games as the writer takes them."""
    return [MatGame.from_saved(record) for record in session["records"]]


def expected_actions(game: MatGame, max_cube: int = MAX_CUBE) -> list[list[Any]]:
    """gnubg's records for ``game`` as the gen_mat_import read-back lists them (players by column, A = 0).

    A move: ``["move", player, dice, hops highest first, position after]``; a cube action:
    ``[kind, player, cube, owner]`` after it; a beaver is the beaverer's double and the doubler's take.
    """
    actions: list[list[Any]] = []
    position = Position.initial()
    cube, owner, offered = 1, -1, 1
    for event in game.events:
        column = int(event[0]) ^ game.seat_of_a
        kind = event[1]
        if kind == "roll":
            d1, d2, child = int(event[2]), int(event[3]), str(event[4])
            move = next(m for m, c in position.plays((d1, d2)) if c.id == child)
            hops = sorted(([src, dst] for src, dst in move.hops), reverse=True)
            actions.append(["move", column, f"{max(d1, d2)}{min(d1, d2)}", hops, child])
            position = Position.from_id(child)
        elif kind == "double":
            offered = int(event[2])
            actions.append(["double", column, cube, owner])
        elif kind == "take" or (kind == "beaver" and offered * 2 > max_cube):
            cube, owner = offered, column
            actions.append(["take", column, cube, owner])
        elif kind == "beaver":
            actions.append(["double", column, offered, column])
            cube, owner = offered * 2, column
            actions.append(["take", column ^ 1, cube, owner])
        elif kind == "pass":
            actions.append(["drop", column, cube, owner])
    return actions


def gnubg_actions(read: dict[str, Any]) -> list[list[Any]]:
    """gnubg's read-back actions with each move's hops highest first (gnubg may list them in another order)."""
    return [[*a[:3], sorted(a[3], reverse=True), a[4]] if a[0] == "move" else a for a in read["actions"]]


def first_difference(expected: Sequence[object], got: Sequence[object]) -> int:
    """The index of the first item where the two lists differ (the shorter one's length if one extends the other)."""
    return next(
        (k for k, (e, g) in enumerate(zip(expected, got, strict=False)) if e != g), min(len(expected), len(got))
    )


def readback_mismatches(
    games: Sequence[MatGame],
    players: tuple[str, str],
    readback: dict[str, Any],
    max_cube: int = MAX_CUBE,
    match_length: int = 0,
) -> list[str]:
    """How gnubg's read-back of a session (or of a match) differs from its recorded games (empty when it read them
    all right)."""
    problems = []
    if readback["messages"]:
        problems.append(f"gnubg printed {readback['messages']!r} on import")
    if readback["names"] != [mat_name(players[0]), mat_name(players[1])]:
        problems.append(f"gnubg read the names {readback['names']}")
    if len(readback["games"]) != len(games):
        problems.append(f"gnubg read {len(readback['games'])} games, not {len(games)}")
    score = [0, 0]
    for number, (game, read) in enumerate(zip(games, readback["games"], strict=False), start=1):
        expected, got = expected_actions(game, max_cube), gnubg_actions(read)
        if got != expected:
            at = first_difference(expected, got)
            seen = got[at] if at < len(got) else "nothing"
            wanted = expected[at] if at < len(expected) else "nothing"
            problems.append(f"game {number}, action {at}: gnubg read {seen}, recorded {wanted}")
        passed = any(event[1] == "pass" for event in game.events)
        winner = game.winner ^ game.seat_of_a
        result = {"winner": winner, "points": game.points, "resigned": False, "score": list(score)}
        result["state"] = GAME_DROP if passed else GAME_OVER
        got_result = {key: read[key] for key in result}
        if got_result != result:
            problems.append(f"game {number}: gnubg read {got_result}, recorded {result}")
        score[winner] = min(score[winner] + game.points, match_length) if match_length else score[winner] + game.points
    return problems


def move_section_lines(text: str) -> list[str]:
    """The move and ``Wins`` lines of a .mat text (each game's lines after its score line)."""
    lines, in_game = [], False
    for line in text.splitlines():
        if line.startswith(" Game "):
            in_game = False
        elif " : " in line and not in_game:
            in_game = True
        elif in_game and line.strip():
            lines.append(line)
    return lines


# ---------------------------------------------------------------------------
# The fixture: no gnubg needed
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("index", range(len(FIXTURE["sessions"])))
def test_arena_mat_writes_the_text_gnubg_imported(index: int) -> None:
    session = FIXTURE["sessions"][index]
    text = session_text(session_games(session), tuple(session["players"]), session["rules"])
    assert text == "\n".join(session["mat"]) + "\n"


@pytest.mark.parametrize("index", range(len(FIXTURE["sessions"])))
def test_gnubg_read_every_move_cube_action_and_result_as_recorded(index: int) -> None:
    session = FIXTURE["sessions"][index]
    players = (session["players"][0], session["players"][1])
    assert readback_mismatches(session_games(session), players, session["gnubg"], session["rules"]["max_cube"]) == []


@pytest.mark.parametrize("index", range(len(FIXTURE["matches"])))
def test_a_match_is_written_as_the_text_gnubg_imported_and_read_as_played(index: int) -> None:
    """One file per match: gnubg 1.07 read every move, cube action, result, score and Crawford flag as played."""
    match = FIXTURE["matches"][index]
    games, players, length = session_games(match), (match["players"][0], match["players"][1]), match["match_length"]
    assert session_text(games, players, match["rules"], match_length=length) == "\n".join(match["mat"]) + "\n"
    assert readback_mismatches(games, players, match["gnubg"], match_length=length) == []
    assert [g["crawford"] for g in match["gnubg"]["games"]] == [r["crawford"] for r in match["records"]]


def test_the_match_fixture_covers_crawford_cube_actions_and_points_past_the_length() -> None:
    records = [r for m in FIXTURE["matches"] for r in m["records"]]
    assert any(r["crawford"] for r in records) and any(r["away"][0] == 1 or r["away"][1] == 1 for r in records)
    assert {"double", "take", "pass"} <= {e[1] for r in records for e in r["events"]}
    assert any(r["points"] > min(r["away"]) for r in records)  # a gammon or cube worth more than the winner needed


def test_the_read_back_check_notices_a_changed_record() -> None:
    session = FIXTURE["sessions"][0]
    players = (session["players"][0], session["players"][1])
    games = session_games(session)
    wrong_points = [MatGame(g.events, g.seat_of_a, g.winner, g.points + 1) for g in games]
    assert any("recorded" in p for p in readback_mismatches(wrong_points, players, session["gnubg"]))
    swapped_seats = [MatGame(g.events, 1 - g.seat_of_a, g.winner, g.points) for g in games]
    assert readback_mismatches(swapped_seats, players, session["gnubg"])
    renamed = readback_mismatches(games, ("someone", "else"), session["gnubg"])
    assert renamed == [f"gnubg read the names {session['gnubg']['names']}"]


def test_the_fixture_covers_cube_actions_results_and_special_moves() -> None:
    events = [e for s in FIXTURE["sessions"] for r in s["records"] for e in r["events"]]
    assert {"double", "take", "pass", "beaver"} <= {e[1] for e in events}
    assert {1, 2, 3} <= {r["multiplier"] for s in FIXTURE["sessions"] for r in s["records"]}
    jacoby = [s for s in FIXTURE["sessions"] if s["rules"]["jacoby"]]
    assert any(r["cube"] == 1 and not r["passed"] for s in jacoby for r in s["records"])
    reads = [a for s in FIXTURE["sessions"] for g in s["gnubg"]["games"] for a in g["actions"]]
    hops = [hop for a in reads if a[0] == "move" for hop in a[3]]
    assert any(a[0] == "move" and not a[3] for a in reads)  # a roll with no play
    assert any(src == 25 for src, _ in hops) and any(dst == 0 for _, dst in hops)
    drop_columns = {a[1] for a in reads if a[0] == "drop"}
    assert drop_columns == {0, 1}
    assert FIXTURE["gnubg_version"].startswith("GNU Backgammon 1.07")


@pytest.mark.parametrize("index", range(len(FIXTURE["sessions"])))
def test_no_move_line_could_reuse_the_right_cell_of_the_line_before(index: int) -> None:
    # gnubg 1.07 keeps the previous line's right cell for a line under 16 characters without ':'.
    for line in move_section_lines("\n".join(FIXTURE["sessions"][index]["mat"])):
        assert ":" in line or len(line) > 15, line


# ---------------------------------------------------------------------------
# The writer's rules, on small cases
# ---------------------------------------------------------------------------


def test_names_lose_what_gnubg_reads_as_a_score_or_rating_separator() -> None:
    assert mat_name("net:w.jgw@1 [janowski:0.7,0.3]") == "net=w.jgw@1_[janowski=0.7;0.3]"
    assert len(mat_name("x" * 40)) == 31


def test_plays_are_written_one_die_at_a_time_and_a_dance_is_the_roll_alone() -> None:
    start = Position.initial()
    run = next(c for m, c in start.plays((6, 5)) if str(m) == "24/13")
    assert mat_move(start, (6, 5), run) == "24/18 18/13"
    closed = np.zeros(26, np.int64)
    closed[25], closed[6] = 2, 13
    closed[19:25], closed[18] = -2, -3
    board = Position(closed)
    assert mat_move(board, (3, 3), board.children((3, 3))[0]) == ""
    with pytest.raises(ValueError):
        mat_move(start, (6, 5), start)


def _opening_then_double(answer: str) -> list[list[Any]]:
    """Seat 0 opens with 6-5 (24/13), seat 1 doubles to 2 and seat 0 answers ``answer``."""
    start = Position.initial()
    child = next(c for m, c in start.plays((6, 5)) if str(m) == "24/13")
    return [[0, "roll", 6, 5, child.id], [1, "double", 2], [0, answer]]


def test_a_drop_in_the_left_column_shares_its_line_with_the_wins_line() -> None:
    lines = game_lines(_opening_then_double("pass"), winner=1, points=1)
    assert lines == [f"{'  1) 65: 24/18 18/13':<33} Doubles => 2", f"{'  2)  Drops':<33} Wins 1 point"]
    mirrored = game_lines(_opening_then_double("pass"), winner=1, points=1, left_seat=1)
    assert mirrored == [f"{'  1)':<33}65: 24/18 18/13", f"{'  2)  Doubles => 2':<33} Drops", "      Wins 1 point"]


def test_a_beaver_is_written_without_a_take_unless_the_cube_limit_refused_it() -> None:
    events = _opening_then_double("beaver")
    assert game_lines(events, winner=0, points=4)[1] == "  2)  Beavers => 4"
    assert game_lines(events, winner=0, points=2, max_cube=2)[1] == "  2)  Takes"


# ---------------------------------------------------------------------------
# Live: gnubg 1.07 imports freshly written files
# ---------------------------------------------------------------------------


def capped_beavers(events: Sequence[Sequence[Any]], max_cube: int) -> int:
    """How many of a game's beavers the cube limit turned into takes."""
    offered, count = 1, 0
    for event in events:
        if event[1] == "double":
            offered = int(event[2])
        count += event[1] == "beaver" and offered * 2 > max_cube
    return count


class HashedCube(RandomPlayer):
    """Random legal plays; doubles and answers by a hash of the board, so cube actions of every kind come quickly."""

    def _hash(self, boards: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):
            h = (np.asarray(boards, np.int64) * self.weights[:26]).sum(axis=1).view(np.uint64)
            h ^= h >> np.uint64(29)
        return (h % np.uint64(1000)).astype(np.int64)

    def double_actions(self, boards: np.ndarray, context: CubeContext) -> np.ndarray:
        return np.where(self._hash(boards) % 7 == 0, CubeAction.DOUBLE, CubeAction.NO_DOUBLE)

    def double_responses(self, boards: np.ndarray, doubler: CubeContext) -> np.ndarray:
        answers = np.array([CubeResponse.TAKE, CubeResponse.BEAVER, CubeResponse.BEAVER, CubeResponse.PASS])
        return answers[self._hash(boards) % 4]


@pytest.mark.skipif(not GNUBG.exists(), reason="GNU Backgammon 1.07 is not installed (apt-get install gnubg)")
def test_gnubg_imports_freshly_written_files(tmp_path: Path) -> None:
    rules = Rules(cubeful=True, jacoby=True, beavers=True, max_cube=16)
    rules_dict = {"jacoby": True, "beavers": True, "max_cube": 16}
    players = ("A: hashed cube, 1", "B: hashed cube, 2")
    block = play_block((HashedCube(1), HashedCube(2)), seed=11, first_pair=0, n_pairs=4, rules=rules, record=True)
    sessions = []
    for pair in range(4):
        games = block_games(block, 2 * pair)
        path = tmp_path / f"pair_{pair:06d}.mat"
        path.write_text(session_text(games, players, rules_dict))
        sessions.append(games)
    events = {e[1] for games in sessions for g in games for e in g.events}
    assert {"double", "take", "pass", "beaver"} <= events
    # a beaver the limit stops is recorded as the take it is (records from before say "beaver": the writer takes both)
    assert not any(capped_beavers(g.events, max_cube=16) for games in sessions for g in games)
    assert any(e[1] == "double" and e[2] == 16 for games in sessions for g in games for e in g.events)

    job, out = tmp_path / "job.json", tmp_path / "readback.json"
    job_sessions = [{"mat": str(tmp_path / f"pair_{pair:06d}.mat"), "jacoby": True} for pair in range(4)]
    job.write_text(json.dumps({"sessions": job_sessions, "out": str(out)}))
    command = [str(GNUBG), "-t", "-q", "-r", "-p", str(GENERATOR)]
    env = dict(os.environ, MAT_IMPORT_JOB=str(job))
    subprocess.run(
        command, cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=True, timeout=60
    )
    readback = json.loads(out.read_text())
    assert readback["gnubg_version"].startswith("GNU Backgammon 1.07")
    for games, read in zip(sessions, readback["sessions"], strict=True):
        assert readback_mismatches(games, players, read, max_cube=16) == []
