"""gnubg's .sgf match files: each reads into the same games, plays and cube actions as the .mat gnubg saved it from.

The fixtures (tests/fixtures/gnubg_sgf) are gnubg 1.07's ``save match`` of .mat fixtures it
imported (tools/gnubg_fixtures/gen_sgf.py); bad input gets the .mat reader's one-line errors.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from analysis.inputs import read_records
from analysis.records import InvalidRecord
from analysis.replay import MatchReplay, replay
from analysis.sgf import parse_sgf
from tests.cli.helpers import assert_clean_error, run_cli

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
INDEX = json.loads((FIXTURES / "gnubg_sgf" / "index.json").read_text())
FILES = INDEX["files"]


def _signature(r: MatchReplay) -> list[Any]:
    """Everything the analysis reads from a replay: per game its score, Crawford, result, plays and cube turns."""
    return [
        (
            g.number,
            g.score,
            g.crawford,
            g.winner,
            g.points,
            g.resigned,
            g.passed,
            [(t.player, t.dice, t.position.id, t.child.id, t.cube) for t in g.checker],
            [(c.player, c.position.id, c.cube, c.doubled, c.response) for c in g.cube],
        )
        for g in r.games
    ]


@pytest.mark.parametrize("entry", FILES, ids=[Path(e["sgf"]).stem for e in FILES])
def test_sgf_reads_as_its_mat(entry: dict[str, Any]) -> None:
    (sgf,) = read_records(FIXTURES / entry["sgf"])
    (mat,) = read_records(FIXTURES / entry["mat"])
    assert (sgf.names, sgf.length, sgf.rules) == (mat.names, mat.length, mat.rules)
    assert [(g.number, g.score) for g in sgf.games] == [(g.number, g.score) for g in mat.games]
    assert _signature(replay(sgf)) == _signature(replay(mat))


def test_the_fixtures_cover_the_dialect() -> None:
    """Between them the fixtures hold money and matches, drops, resignations, a beaver, Jacoby and Crawford games."""
    played = [replay(read_records(FIXTURES / e["sgf"])[0]) for e in FILES]
    games = [g for r in played for g in r.games]
    assert any(r.length == 0 for r in played) and any(r.length > 0 for r in played)
    assert any(g.passed for g in games) and any(g.resigned for g in games) and any(g.crawford for g in games)
    assert any(r.record.rules.beavers for r in played) and any(r.record.rules.jacoby for r in played)
    texts = "".join((FIXTURES / e["sgf"]).read_text() for e in FILES)
    for needle in ("[take]", "[drop]", "[double]"):
        assert needle in texts
    # moves are dice then (from, to) letter pairs: a-x the points, y the bar, z off
    assert re.search(r";[BW]\[\d\d(?:[a-z]{2})*y[a-x]", texts)  # a checker entering from the bar
    assert re.search(r";[BW]\[\d\d(?:[a-z]{2})*[a-x]z", texts)  # a checker borne off


SGF = (FIXTURES / "gnubg_sgf" / "gnubg_03pt_s04.sgf").read_text()
GAME_1 = SGF[: SGF.index("\n(;") + 1]  # the first game's tree, ended by a drop
FIRST_PLAY = SGF[SGF.index("\n;") + 1 :].split("\n", 1)[0]  # the opening roll's node, e.g. ';B[51...]'

BAD = [
    ("truncated", SGF[: SGF.index("\n;", len(SGF) // 2)], "the file ends early (expected ';' (a node)"),
    (
        "game cut short",  # before another game: only the last game may stop anywhere (a match in progress)
        GAME_1[: GAME_1.index("\n;W[double]")] + ")\n" + SGF[SGF.index("\n(;") + 1 :],
        "ends in the middle of the game",
    ),
    ("cut in a value", SGF[: SGF.index("PB[") + 5], "the file ends inside the value of property PB"),
    ("no closing paren", SGF.rstrip().rstrip(")"), "the file ends early (expected"),
    ("illegal move", SGF.replace(FIRST_PLAY, FIRST_PLAY[:5] + "ab" + FIRST_PLAY[7:], 1), "game 1 move 1"),
    ("bad action", SGF.replace(";W[double]", ";W[redouble]", 1), "cannot read W[redouble]"),
    ("dice", SGF.replace(FIRST_PLAY, FIRST_PLAY[:3] + "7" + FIRST_PLAY[4:], 1), "are not two dice 1-6"),
    ("odd letters", SGF.replace(FIRST_PLAY, FIRST_PLAY[:-1] + "a]", 1), "cannot read W[42hdfda]"),
    ("bad MI", SGF.replace("[ws:0]", "[ws:x]", 1), "MI[ws:x]"),
    ("no MI", SGF.replace("MI[length:3][game:0][ws:0][bs:0]", "", 1), "the MI property lacks length, game, ws, bs"),
    ("not backgammon", SGF.replace("GM[6]", "GM[1]", 1), "GM[1] is not backgammon"),
    ("score", SGF.replace("[bs:0]", "[bs:3]", 1), "not below the match length 3"),
    ("bad result", SGF.replace("RE[", "RE[X", 1), "is not a result"),
    ("set-up position", SGF.replace("GM[6]", "GM[6]AW[a]", 1), "property AW sets up a position"),
    ("variant", SGF.replace("RU[Crawford]", "RU[Nackgammon]", 1), "RU[Nackgammon] is a variant game"),
]


@pytest.mark.parametrize(("label", "text", "needle"), BAD, ids=[b[0] for b in BAD])
def test_bad_sgf_is_one_error_naming_the_place(tmp_path: Path, label: str, text: str, needle: str) -> None:
    path = tmp_path / "match.sgf"
    path.write_text(text)
    with pytest.raises(InvalidRecord) as info:
        replay(read_records(path)[0])
    message = str(info.value)
    assert needle in message and path.name in message and "\n" not in message


def test_errors_name_the_line() -> None:
    text = SGF.replace(";W[double]", ";W[redouble]", 1)
    line = text[: text.index("W[redouble]")].count("\n") + 1
    with pytest.raises(InvalidRecord, match=rf"^m\.sgf line {line}: cannot read W\[redouble\]"):
        parse_sgf(text, Path("m.sgf"))


@pytest.mark.parametrize(("label", "text", "needle"), [BAD[0], BAD[4], BAD[7]], ids=["truncated", "illegal", "MI"])
def test_cli_bad_sgf_exits_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], label: str, text: str, needle: str
) -> None:
    path = tmp_path / "match.sgf"
    path.write_text(text)
    code, out, err = run_cli(capsys, "analyse", str(path), "--html", str(tmp_path / "page.html"), "--no-progress")
    assert_clean_error(code, out, err, needle, False)
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def _without_places(value: Any) -> Any:
    """A JSON report less what names the file and the line (``path``, ``title``, ``where``, ``seconds``)."""
    if isinstance(value, dict):
        return {k: _without_places(v) for k, v in value.items() if k not in ("path", "title", "where", "seconds")}
    if isinstance(value, list):
        return [_without_places(v) for v in value]
    return value


def test_cli_analyses_an_sgf_as_its_mat(capsys: pytest.CaptureFixture[str]) -> None:
    """The --json report of an .sgf is the report of its .mat, but for the file's name and lines."""
    entry = FILES[0]
    reports = []
    for key in ("sgf", "mat"):
        code, out, _ = run_cli(capsys, "analyse", str(FIXTURES / entry[key]), "--no-progress", "--json")
        assert code == 0
        reports.append(_without_places(json.loads(out)))
    assert reports[0] == reports[1]
    assert reports[0]["matches"][0]["games"][0]["checker"]
