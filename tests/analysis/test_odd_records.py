"""Records gnubg 1.07 writes that are valid but out of the ordinary (tests/fixtures/gnubg_odd, made by
tools/gnubg_fixtures/gen_odd_records.py), and XG's ways of writing the same things.

Each is read as gnubg reads it: a roll followed by a resignation before any play, a raccoon
(a redouble after a beaver), a money session played without the cube; and a record whose stated
points disagree with its replay is refused.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from analysis.analyse import analyse_file
from analysis.inputs import read_records
from analysis.matfile import parse_mat
from analysis.records import Action, InvalidRecord
from analysis.replay import MatchReplay, replay
from cube.met import published_met
from nets.evaluator import Evaluator, load_evaluator
from nets.mlp import cubeless_equity

FOLDER = Path(__file__).resolve().parents[1] / "fixtures" / "gnubg_odd"
GAMMON_SESSION = Path(__file__).resolve().parents[1] / "fixtures" / "gnubg_analysis" / "arena_money_s1_pair_000001.mat"


@pytest.fixture(scope="module")
def ev() -> Evaluator:
    return load_evaluator()


def _replayed(path: Path) -> MatchReplay:
    (record,) = read_records(path)
    return replay(record)


def _shape(r: MatchReplay) -> list[tuple[int | None, int, bool, int, int]]:
    """Per game: winner, points, resigned, checker turns, cube turns."""
    return [(g.winner, g.points, g.resigned, len(g.checker), len(g.cube)) for g in r.games]


@pytest.mark.parametrize("suffix", [".mat", ".sgf"])
def test_a_roll_followed_by_a_resignation_is_no_checker_decision(suffix: str) -> None:
    """gnubg records the dice of a roll its roller (or the opponent) resigned after, with no play: the game ends at
    the resignation, and that roll is judged as no play (gnubg reads it so; it used to refuse the whole file)."""
    r = _replayed(FOLDER / f"rolled_resign{suffix}")
    shape = _shape(r)
    assert [(w, p, resigned) for w, p, resigned, _, _ in shape] == [(0, 1, True), (1, 1, True), (1, 2, True)]
    assert [checker for _, _, _, checker, _ in shape] == [3, 2, 4]  # the rolls before the resignations only


def test_both_files_of_each_odd_record_replay_alike() -> None:
    for name in ("rolled_resign", "raccoon"):
        assert _shape(_replayed(FOLDER / f"{name}.mat")) == _shape(_replayed(FOLDER / f"{name}.sgf"))


@pytest.mark.parametrize("suffix", [".mat", ".sgf"])
def test_a_raccoon_doubles_the_beavered_cube_and_is_not_judged(suffix: str, ev: Evaluator) -> None:
    r = _replayed(FOLDER / f"raccoon{suffix}")
    assert r.games[0].points == 8  # 2, beavered to 4, the raccoon to 8: a single game won by the doubler
    analysis = analyse_file(FOLDER / f"raccoon{suffix}", ev, 0, published_met(), "shipped", progress=False)
    (m,) = analysis.matches
    doubled = [c for g in m.games for c in g.cube if c.doubled]
    beaver = [c for c in doubled if c.response is Action.BEAVER]
    assert len(beaver) == 1 and beaver[0].taker_error == 0.0
    assert sum(p.beavers for p in m.players) == 1


def test_a_money_session_without_the_cube_has_no_cube_decisions(ev: Evaluator) -> None:
    """gnubg's ``set cube use off`` writes RU[NoCube] in its .sgf: no cube turn is judged, and every play is valued
    with the cube dead (the cubeless equity; single games while the Jacoby rule holds a centred cube)."""
    analysis = analyse_file(FOLDER / "nocube.sgf", ev, 0, published_met(), "shipped", progress=False)
    (m,) = analysis.matches
    assert m.rules.max_cube == 1 and m.rules.jacoby
    assert not [c for g in m.games for c in g.cube]
    assert all(p.cube_decisions == 0 for p in m.players)
    decision = next(d for g in m.games for d in g.checker if len(d.candidates) > 1)
    best = decision.candidates[0]
    probs = np.array(best.probabilities)[None]
    assert best.equity == pytest.approx(2.0 * probs[0, 0] - 1.0, abs=1e-6)  # Jacoby, cube centred: gammons do not count
    assert best.equity != pytest.approx(float(cubeless_equity(probs)[0]), abs=1e-6)
    plain = analyse_file(FOLDER / "nocube.mat", ev, 0, published_met(), "shipped", progress=False)
    assert [c for g in plain.matches[0].games for c in g.cube]  # the .mat cannot say so: read with the cube


XG_LINES = [
    # (line, expected events: (player, action, dice, move))
    ("  7) 33: Cannot Move             64: 13/7 11/7", [(0, "roll", (3, 3), ""), (1, "roll", (6, 4), "13/7 11/7")]),
    ("  4) 52: ???                     Wins 1 point", [(0, "roll", (5, 2), ""), (1, "win", None, None)]),
    (
        "  2) 63: 24/18 13/10             52:  Wins 1 point",
        [(0, "roll", (6, 3), "24/18 13/10"), (1, "roll", (5, 2), ""), (1, "win", None, None)],
    ),
    ("  3) 52:                         Wins 1 point", [(0, "roll", (5, 2), ""), (1, "win", None, None)]),
]


@pytest.mark.parametrize(("line", "expected"), XG_LINES)
def test_xg_and_gnubg_ways_of_writing_no_play(line: str, expected: list[tuple[object, ...]]) -> None:
    text = f" 1 point match\n\n Game 1\n A : 0                          B : 0\n{line}\n"
    (game,) = parse_mat(text, Path("x.mat")).games
    assert [(e.player, e.action.value, e.dice, e.move) for e in game.events] == expected


def test_a_record_whose_points_disagree_with_its_replay_is_refused() -> None:
    """A game won with a gammon on a centred cube scores 1 under the Jacoby rule: a file that says 2 was played
    without it, and reading it with the rule would have scored it wrongly without a word."""
    text = GAMMON_SESSION.read_text()
    flipped = text.replace('[Jacoby "Off"]', '[Jacoby "On"]')
    assert flipped != text
    replay(parse_mat(text, GAMMON_SESSION))  # as written: consistent
    with pytest.raises(InvalidRecord, match=r"says player 0 wins 2 points; the replay scores 1 \(read with the Jacoby"):
        replay(parse_mat(flipped, GAMMON_SESSION))


def test_an_untagged_money_file_states_the_jacoby_rule_by_its_points() -> None:
    """gnubg's .mat export writes no rule tags and gnubg plays money with the Jacoby rule by default: an untagged
    session whose centred-cube gammon is stated as 1 point was played with the rule, and is read so."""
    text = "\n".join(line for line in GAMMON_SESSION.read_text().splitlines() if not line.startswith("; [Jacoby"))
    assert not replay(parse_mat(text, GAMMON_SESSION)).record.rules.jacoby  # a gammon stated as 2: no rule
    single = text.replace("Wins 2 points", "Wins 1 point", 1)
    assert single != text
    assert replay(parse_mat(single, GAMMON_SESSION)).record.rules.jacoby
    tagged = '; [Jacoby "Off"]\n' + single  # a file that says the rule is off keeps it off, and the points disagree
    with pytest.raises(InvalidRecord, match="the replay scores 2"):
        replay(parse_mat(tagged, GAMMON_SESSION))


def test_a_match_in_progress_is_analysed_to_its_last_play(tmp_path: Path, ev: Evaluator) -> None:
    """A record that stops in the middle of its last game (a match in progress) is analysed, as gnubg does: the
    games before it as in the whole file, the last to its last play, valued there (result and luck then cover the
    same rolls)."""
    whole_path = FOLDER.parent / "gnubg_analysis" / "gnubg_05pt_s09.mat"
    lines = whole_path.read_text().splitlines()
    last_game = max(i for i, line in enumerate(lines) if line.strip().startswith("Game "))
    cut = last_game + 8  # a few moves into the last game
    path = tmp_path / "in_progress.mat"
    path.write_text("\n".join(lines[:cut]) + "\n")
    met = published_met()
    whole = analyse_file(whole_path, ev, 0, met, "shipped", progress=False).matches[0]
    part = analyse_file(path, ev, 0, met, "shipped", progress=False).matches[0]
    assert len(part.games) == len(whole.games)

    def unplaced(decisions: tuple[Any, ...]) -> list[Any]:  # the same decisions, read from another file's lines
        return [replace(d, where="") for d in decisions]

    for a, b in zip(part.games[:-1], whole.games[:-1], strict=True):
        assert (a.winner, a.points) == (b.winner, b.points)
        assert (unplaced(a.checker), unplaced(a.cube)) == (unplaced(b.checker), unplaced(b.cube))
    last = part.games[-1]
    assert last.winner is None and last.points == 0 and 0 < len(last.checker) < len(whole.games[-1].checker)
    assert unplaced(last.checker) == unplaced(whole.games[-1].checker[: len(last.checker)])
    assert len(last.graph) == len(last.checker) + 1  # no result point after the last play
    start = met.mwc(5 - part.games[0].score[0], 5 - part.games[0].score[1], crawford=part.games[0].crawford)
    assert part.players[0].result == pytest.approx(last.graph[-1].value - start)
    assert part.players[0].result == pytest.approx(-part.players[1].result)


def test_a_match_in_progress_stopped_at_a_double_judges_the_double(tmp_path: Path, ev: Evaluator) -> None:
    """A record that stops at a double not yet answered (it was refused): the double is judged, no answer is."""
    whole_path = FOLDER.parent / "gnubg_analysis" / "gnubg_05pt_s09.mat"
    lines = whole_path.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  4)  Doubles => 2"))  # in the last game
    path = tmp_path / "at_a_double.mat"
    path.write_text("\n".join([*lines[:at], lines[at].split("Takes")[0].rstrip()]) + "\n")
    met = published_met()
    whole = analyse_file(whole_path, ev, 0, met, "shipped", progress=False).matches[0]
    part = analyse_file(path, ev, 0, met, "shipped", progress=False).matches[0]
    last, full = part.games[-1], whole.games[-1]
    assert last.winner is None and last.cube[-1].doubled and last.cube[-1].response is None
    judged = next(c for c in full.cube if c.doubled and c.ply == last.cube[-1].ply)
    assert last.cube[-1].doubler_error == pytest.approx(judged.doubler_error)
    assert last.cube[-1].taker_error == 0 and last.cube[-1].taker_kind is None
    doubler, taker = last.cube[-1].player, 1 - last.cube[-1].player
    assert part.players[doubler].doubles == whole.players[doubler].doubles
    assert part.players[taker].takes == whole.players[taker].takes - 1  # the take the record does not reach
