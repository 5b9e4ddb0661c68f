"""Reading and replaying game records: .mat and --save files, and one-line errors for every bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.inputs import read_records
from analysis.matfile import parse_mat
from analysis.records import Action, InvalidRecord
from analysis.replay import replay
from engine.position import Position
from tests.cli.helpers import assert_clean_error, run_cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

MONEY_PASS = """\
; [Jacoby "Off"]

 0 point match

 Game 1
 Alice : 0                      Bob : 0
  1) 31: 8/5 6/5                 42: 8/4 6/4
  2)  Doubles => 2                Drops
      Wins 1 point
"""

MATCH_3 = """\
 3 point match

 Game 1
 Alice : 0                      Bob : 0
  1)                             21: 13/11 6/5
  2) 66: 24/18 24/18 13/7 13/7   Doubles => 2
  3)  Drops
                                  Wins 1 point

 Game 2
 Alice : 0                      Bob : 1
  1) 31: 8/5 6/5                 43: 13/9 13/10
  2)  Doubles => 2                Drops
      Wins 1 point
"""


def _write(tmp_path: Path, text: str, name: str = "game.mat") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_mat_money_session_replays_with_the_cube(tmp_path: Path) -> None:
    (record,) = read_records(_write(tmp_path, MONEY_PASS))
    assert record.names == ("Alice", "Bob") and record.length == 0 and not record.rules.jacoby
    game = replay(record).games[0]
    assert [t.dice for t in game.checker] == [(3, 1), (4, 2)]
    assert game.checker[0].child == Position.initial().play("8/5 6/5", (3, 1))
    assert game.winner == 0 and game.points == 1 and game.passed
    (cube,) = [c for c in game.cube if c.doubled]
    assert cube.player == 0 and cube.response is Action.PASS


def test_mat_match_scores_and_columns(tmp_path: Path) -> None:
    (record,) = read_records(_write(tmp_path, MATCH_3))
    played = replay(record)
    assert [g.score for g in played.games] == [(0, 0), (0, 1)]
    first = played.games[0]
    assert first.checker[0].player == 1 and first.winner == 1  # Bob opened in the right column; Alice dropped
    assert [c.player for c in first.cube if c.doubled] == [1]
    assert played.games[1].winner == 0


def test_gnubg_export_reads_as_gnubg_replays_it() -> None:
    """gnubg's own .mat export of a match it played: positions match gnubg's, game by game (fixture)."""
    fixture = json.loads((FIXTURES / "gnubg_analysis" / "analysis.json").read_text())
    for entry in fixture["files"][:6]:
        (record,) = read_records(FIXTURES / "gnubg_analysis" / entry["file"])
        played = replay(record)
        assert len(played.games) == len(entry["games"])
        for game, theirs in zip(played.games, entry["games"], strict=True):
            before = [a[3] for a in theirs["actions"] if a[1] == "move"]
            assert [t.position.id for t in game.checker] == before
            assert (game.winner, game.points) == (theirs["winner"], theirs["points"])


BAD = [
    # a game cut short before another game (the last game may stop anywhere: a match in progress)
    ("truncated", [*MATCH_3.splitlines()[:5], "", *MATCH_3.splitlines()[9:]], "ends in the middle of the game"),
    ("cut mid-line", [*MONEY_PASS.splitlines()[:6], "  1) 31: 8/5 6/"], "line 7"),
    ("illegal", MONEY_PASS.replace("8/5 6/5", "8/4 6/5").splitlines(), "game 1 move 1"),
    ("dice", MONEY_PASS.replace("31: 8/5 6/5", "71: 8/1").splitlines(), "dice '71'"),
    ("score", MATCH_3.replace("Bob : 1", "Bob : 3").splitlines(), "not below the match length 3"),
    ("no header", MONEY_PASS.splitlines()[3:], "expected the header 'N point match'"),
    ("wrong cube value", MONEY_PASS.replace(" Doubles => 2    ", " Doubles => 4    ").splitlines(), "double to 4"),
]


@pytest.mark.parametrize(("label", "lines", "needle"), BAD, ids=[b[0] for b in BAD])
def test_bad_mat_is_one_error_naming_the_place(tmp_path: Path, label: str, lines: list[str], needle: str) -> None:
    path = _write(tmp_path, "\n".join(lines) + "\n")
    with pytest.raises(InvalidRecord) as info:
        replay(read_records(path)[0])
    assert needle in str(info.value) and path.name in str(info.value)


@pytest.mark.parametrize("as_json", [False, True])
@pytest.mark.parametrize(("label", "lines", "needle"), BAD[:5], ids=[b[0] for b in BAD[:5]])
def test_cli_bad_input_exits_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], label: str, lines: list[str], needle: str, as_json: bool
) -> None:
    path = _write(tmp_path, "\n".join(lines) + "\n")
    page = tmp_path / "page.html"
    argv = ["analyse", str(path), "--html", str(page), "--no-progress"] + (["--json"] if as_json else [])
    code, out, err = run_cli(capsys, *argv)
    assert_clean_error(code, out, err, needle, as_json)
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def test_saved_lines_read_as_the_arena_wrote_them(tmp_path: Path) -> None:
    """The games of gnubg_mat_import.json's first tournament, written as --save lines, replay to their positions."""
    fixture = json.loads((FIXTURES / "gnubg_mat_import.json").read_text())
    sessions = [s for s in fixture["sessions"] if s["tournament"] == 0]
    head = {"tournament": {"player_a": "A", "player_b": "B", "rules": sessions[0]["rules"]}}
    records = [r for s in sessions for r in s["records"]]
    path = _write(tmp_path, "\n".join(json.dumps(x) for x in [head, *records]) + "\n", "games.jsonl")
    (record,) = read_records(path)
    played = replay(record)
    assert len(played.games) == len(records)
    for game, saved in zip(played.games, records, strict=True):
        children = [e[4] for e in saved["events"] if e[1] == "roll"]
        assert [t.child.id for t in game.checker] == children
        assert game.winner == saved["winner"] ^ saved["seat_of_a"] and game.points == saved["points"]


def test_saved_line_with_an_illegal_position_names_line_and_move(tmp_path: Path) -> None:
    head = {"tournament": {"player_a": "A", "player_b": "B", "rules": {}}}
    game = {"seat_of_a": 0, "winner": 0, "points": 1, "events": [[0, "roll", 3, 1, Position.initial().id]]}
    path = _write(tmp_path, json.dumps(head) + "\n" + json.dumps(game) + "\n", "games.jsonl")
    with pytest.raises(InvalidRecord, match=r"games.jsonl line 2 event 1.*not a legal play of 31"):
        replay(read_records(path)[0])


@pytest.mark.parametrize(
    "event", [[True, "roll", 3, 1, "4HPwATDgc/ABMA"], [0, "roll", True, 1, "4HPwATDgc/ABMA"], [0, "double", True]]
)
def test_a_json_boolean_is_not_a_seat_a_die_or_a_cube(tmp_path: Path, event: list) -> None:
    """``true`` is a Python int: it read as seat 1, a die of 1 or a cube of 1."""
    head = {"tournament": {"player_a": "A", "player_b": "B", "rules": {}}}
    game = {"seat_of_a": 0, "winner": 0, "points": 1, "events": [event]}
    path = _write(tmp_path, json.dumps(head) + "\n" + json.dumps(game) + "\n", "games.jsonl")
    with pytest.raises(InvalidRecord, match="games.jsonl line 2 event 1: expected"):
        read_records(path)


def test_unmatched_columns_are_refused() -> None:
    text = MONEY_PASS.replace("  2)  Doubles => 2                Drops", "  2)  Doubles => 2  Drops  Takes")
    with pytest.raises(InvalidRecord, match="more than two actions"):
        parse_mat(text, Path("x.mat"))
