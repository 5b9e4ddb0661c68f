"""``eval`` and ``hint`` at a match score: MWC, both cube models, moves ranked by MWC, bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cli.main import main
from cube.gamestate import flip_probabilities
from cube.match import MatchCube, MatchScore, cube_decision, cubeful_mwc, cubeless_mwc, game_result_mwc
from cube.match_jump import jump_cube_decision
from cube.met import published_met
from cube.states import CubeState
from engine import MatchState, Position
from tests.cli.helpers import assert_clean_error, run_cli

START = "4HPwATDgc/ABMA"
# rounding of the JSON's probabilities (6 decimals) moves the recomputed MWCs by about this
TOL = 2e-5


def match_id(**fields: object) -> str:
    return MatchState(**fields).id  # type: ignore[arg-type]


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    return code, json.loads(out)


def probs_of(d: dict) -> np.ndarray:
    keys = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
    return np.array([d[k] for k in keys])


# (match fields, the side on roll's away, opponent's away, crawford, cube value, state)
SCORES = [
    (dict(match_length=7, score=(2, 4), dice=(6, 2)), 5, 3, False, 1, CubeState.CENTERED),
    (dict(match_length=7, score=(2, 4), dice=(6, 2), on_roll=1, turn=1), 3, 5, False, 1, CubeState.CENTERED),
    (dict(match_length=9, score=(3, 1), cube=2, cube_owner=0, dice=(3, 1)), 6, 8, False, 2, CubeState.OWNED),
]


@pytest.mark.parametrize(("fields", "away", "opp_away", "crawford", "value", "state"), SCORES)
@pytest.mark.parametrize("met_name", ["Kazaross-XG2", "Woolsey"])
def test_eval_at_a_score(
    capsys: pytest.CaptureFixture[str],
    fields: dict,
    away: int,
    opp_away: int,
    crawford: bool,
    value: int,
    state: CubeState,
    met_name: str,
) -> None:
    """The JSON's MWCs and decisions are cube.match's and cube.match_jump's for its own probabilities."""
    mid = match_id(**fields)
    code, js = run_json(capsys, "eval", f"{START}:{mid}", "--met", met_name)
    assert code == 0
    m = js["match"]
    assert (m["away"], m["opp_away"], m["crawford"], m["cube"], m["met"]) == (away, opp_away, crawford, value, met_name)
    met = published_met(met_name)
    cube = MatchCube(MatchScore(away, opp_away, crawford), value, state)
    probs = probs_of(js["probabilities"])
    assert js["cubeless_mwc"] == pytest.approx(float(cubeless_mwc(probs, met, cube)), abs=TOL)
    models = js["cube"]["models"]
    assert js["cube"]["state"] == state
    assert list(models) == ["gnubg", "jump", "jump_local"]
    # gnubg's contact cube life (its manual, seed 001) and the paper's self-play remote volatility, 11.3% (seed 000)
    assert models["gnubg"]["label"] == "gnubg(x=0.680: contact)" and models["jump"]["label"] == "jump(alpha=0.113)"
    assert "local_alpha" in models["jump_local"]["label"]
    expect = {
        "gnubg": cube_decision(probs, met, cube, 0.68),
        "jump": jump_cube_decision(probs, met, cube, 0.113),
        "jump_local": jump_cube_decision(
            probs, met, cube, 0.113, min(1.24 * js["jump_volatility"]["mean_abs_jump"], 0.4999)
        ),
    }
    for name, d in models.items():
        want = expect[name]
        assert d["cubeful_mwc"] == pytest.approx(want.mwc.optimal, abs=TOL)
        for key in ("no_double", "double_take", "double_pass"):
            assert d["mwc"][key] == pytest.approx(getattr(want.mwc, key), abs=TOL)
            assert d["equity"][key] == pytest.approx(getattr(want.equity, key), abs=10 * TOL)
        assert (
            d["action"]
            .lower()
            .startswith(
                {"double": "double", "no double": "no double", "too good": "too good"}[want.action].replace(
                    "double", "redouble" if state is CubeState.OWNED else "double"
                )
            )
        )
    # dice set: every play, ranked by the mover's cubeful MWC (opponent on roll at the same cube)
    moves = js["moves"]
    dice = fields["dice"]
    assert {mv["position_id"] for mv in moves} == {c.id for c in Position.from_id(START).children(dice)}
    mwcs = [mv["mwc"] for mv in moves]
    assert mwcs == sorted(mwcs, reverse=True) and moves[0]["difference"] == 0
    for mv in moves[:3]:
        p = probs_of(mv["probabilities"])
        opp = float(cubeful_mwc(flip_probabilities(p), met, cube.flipped(), 0.68))
        assert mv["mwc"] == pytest.approx(1.0 - opp, abs=TOL)
        assert mv["cubeless_mwc"] == pytest.approx(float(cubeless_mwc(p, met, cube)), abs=TOL)


def test_eval_crawford_game_has_no_cube(capsys: pytest.CaptureFixture[str]) -> None:
    mid = match_id(match_length=7, score=(6, 3), crawford=True)
    code, js = run_json(capsys, "eval", f"{START}:{mid}")
    assert code == 0 and js["match"]["crawford"] and js["match"]["away"] == 1
    for d in js["cube"]["models"].values():
        # gnubg's words, for every model (the jump models said "Crawford game: no cube")
        assert d["action"] == "Never double, take (dead cube)"
        assert d["mwc"]["double_take"] is None and d["cubeful_mwc"] == pytest.approx(js["cubeless_mwc"], abs=1e-6)


@pytest.mark.parametrize(
    ("fields", "label"),
    [
        (dict(match_length=7, score=(6, 6)), "Never double, take (dead cube)"),  # double match point
        (dict(match_length=1, score=(0, 0)), "Never double, take (dead cube)"),
        (  # 2-away on roll holding the 2-cube
            dict(match_length=7, score=(3, 5), cube=2, cube_owner=1, on_roll=1, turn=1),
            "Never redouble, take (dead cube)",
        ),
        (dict(match_length=7, score=(5, 3), cube=2, cube_owner=1), "Cube not available"),  # the opponent's cube
    ],
)
def test_every_model_names_a_cube_that_cannot_be_turned_as_gnubg(
    capsys: pytest.CaptureFixture[str], fields: dict, label: str
) -> None:
    """gnubg's FindBestCubeDecision: a cube the side on roll cannot turn is dead unless the opponent holds it."""
    code, js = run_json(capsys, "eval", f"{START}:{match_id(**fields)}")
    assert code == 0
    assert {d["action"] for d in js["cube"]["models"].values()} == {label}


def test_eval_text_at_a_score(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", f"{START}:{match_id(match_length=5, score=(1, 2), dice=(4, 1))}"]) == 0
    text = capsys.readouterr().out
    assert "Match to 5: 1-2, the side on roll first (4-away against 3-away)" in text and "Cubeless MWC" in text
    assert "Cubeless equity (money)" in text  # a money figure, named so at a match score
    assert "jump(alpha=0.113)" in text and "gnubg(x=0.680: contact)" in text and "MWC:" in text


def test_hint_at_a_score_ranks_by_mwc(capsys: pytest.CaptureFixture[str]) -> None:
    mid = match_id(match_length=5, score=(3, 0))
    code, js = run_json(capsys, "hint", f"{START}:{mid}", "--dice", "5", "2", "--met", "Woolsey")
    assert code == 0 and js["met"] == "Woolsey" and (js["away"], js["opp_away"]) == (2, 5)
    kids = Position.from_id(START).children((5, 2))
    assert {mv["position_id"] for mv in js["moves"]} == {k.id for k in kids}
    mwcs = [mv["mwc"] for mv in js["moves"]]
    assert mwcs == sorted(mwcs, reverse=True)
    main(["hint", f"{START}:{mid}", "--dice", "5", "2"])
    text = capsys.readouterr().out
    assert "2-away against 5-away" in text and "ranked by MWC" in text and "MWC:" in text


def test_hint_at_a_score_values_each_play_after_the_opponents_best_cube_action(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A race 27 pips behind at 7-away/7-away: after every 21 the opponent doubles and the mover passes, so
    each play is worth the match equity of losing one point, as gnubg 1.07's hint shows (43.74%); the
    opponent's no-double value (about 44.0%) was shown."""
    code, js = run_json(capsys, "hint", "3HsPAAC4O3cAAA:cAnlAAAAAAAE")
    assert code == 0
    pass_mwc = game_result_mwc(published_met("Kazaross-XG2"), MatchScore(7, 7), lost=1)
    assert round(100 * pass_mwc, 2) == 43.74
    assert len(js["moves"]) > 1
    for mv in js["moves"]:
        assert mv["mwc"] == pytest.approx(pass_mwc, abs=1e-6)


def test_hint_at_a_score_looks_deeper_at_the_plays_gnubg_would(capsys: pytest.CaptureFixture[str]) -> None:
    """At double match point gammons do not count: the filter for the deeper look is by the cubeful MWC (normalised),
    not the money equity, so the safe play is looked at 1 ply too and no 0-ply play ranks above a 1-ply one."""
    dmp = "7DwHA0Dn3QYAAA:cAnqAGAAMAAE"  # 7-point match at 6-6, 42 to play
    code, js = run_json(capsys, "hint", dmp, "--plies", "1")
    assert code == 0
    plies = [mv["plies"] for mv in js["moves"]]
    assert plies == sorted(plies, reverse=True)
    deep = {mv["move"] for mv in js["moves"] if mv["plies"] == 1}
    assert {"5/3 5/1", "4/off 3/1"} <= deep
    code, flat = run_json(capsys, "hint", dmp)
    best = flat["moves"][0]["equity"]
    within = [mv["move"] for mv in flat["moves"] if mv["equity"] >= best - 0.16][:8]
    assert deep == set(within)


@pytest.mark.parametrize(
    ("command", "ident", "extra", "needle"),
    [
        ("eval", f"{START}:{match_id(match_length=5, score=(5, 2))}", [], "score 5-2"),
        ("hint", f"{START}:{match_id(match_length=5, score=(1, 6))}", ["--dice", "3", "1"], "score 1-6"),
        ("eval", f"{START}:{match_id(match_length=7, score=(2, 3), crawford=True)}", [], "crawford"),
        ("eval", f"{START}:{match_id(match_length=7, score=(0, 2), cube=16, cube_owner=1)}", [], "cube 16"),
        (
            "hint",
            f"{START}:{match_id(match_length=7, score=(2, 2), cube=16, cube_owner=0)}",
            ["--dice", "3", "1"],
            "cube 16",
        ),
        ("eval", f"{START}:{match_id(match_length=7, score=(2, 4))}", ["--met", "Nosuch"], "'Nosuch'"),
        ("hint", START, ["--dice", "3", "1", "--met", "Nosuch"], "'Nosuch'"),
        ("eval", f"{START}:{match_id(match_length=70, score=(2, 4))}", [], "match length 70"),
    ],
)
@pytest.mark.parametrize("as_json", [True, False])
def test_bad_match_input(
    capsys: pytest.CaptureFixture[str], command: str, ident: str, extra: list[str], needle: str, as_json: bool
) -> None:
    """One line naming the input, exit code 2 (JSON on stdout with --json, else text on stderr)."""
    code, out, err = run_cli(capsys, command, ident, *extra, *(["--json"] if as_json else []))
    assert_clean_error(code, out, err, needle, as_json)


@pytest.mark.parametrize("command", [["eval"], ["hint", "--dice", "3", "1"]])
def test_met_for_a_money_position_is_refused_not_ignored(
    capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    code, out, err = run_cli(capsys, command[0], "4HPwATDgc/ABMA", *command[1:], "--met", "Woolsey")
    assert code == 2 and out == "" and "--met 'Woolsey'" in err and "money game" in err
