"""gnubg's cube model at any score against GNU Backgammon 1.07 (``tests/fixtures/gnubg_cube_table.json``).

The fixture holds 75 positions of every class (contact, crashed, races over the pip counts, one-
and two-sided bear-offs, a last roll), each with money cases (centred, and a cube of 2 owned by
either side) and two match situations of eight (Crawford games, post-Crawford, owned and
opponent-owned cubes), with gnubg's 0-ply probabilities and cube analysis.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cube.efficiency import PositionClass
from cube.match import MatchCube, MatchScore
from cube.met import published_met
from cube.states import CubeState
from engine import Position
from engine.match import MatchState
from nets.analysis import MatchModelAdvice, MoneyModelAdvice, analyse
from nets.cube_advice import CubeAdvice, cube_lives, match_cube_advice, money_cube_advice, position_classes
from nets.evaluator import Evaluator, load_evaluator

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "gnubg_cube_table.json"
CASES: list[dict[str, Any]] = json.loads(FIXTURE.read_text())["cases"]
TOLERANCE = 1e-3  # the issue's; gnubg computes in single precision


def advice(case: dict[str, Any], probs: np.ndarray) -> CubeAdvice:
    """Our gnubg-model decision for a fixture case with the given probabilities."""
    board = Position.from_id(case["position_id"]).array
    state = CubeState(case["owner"])
    if case["length"] == 0:
        return money_cube_advice(board, probs, state, jacoby=case.get("jacoby", False), beavers=False)
    score = MatchScore.from_scores(case["length"], case["score"][0], case["score"][1], case["crawford"])
    return match_cube_advice(board, probs, published_met(), MatchCube(score, case["cube"], state))


def case_id(case: dict[str, Any]) -> str:
    return f"{case['position_id']} {case['kind']} {case['owner']}" + (" jacoby" if case.get("jacoby") else "")


def gnubg_text(case: dict[str, Any]) -> str:
    """gnubg's proper action; its Python binding calls the opponent's cube "Unknown cube decision"."""
    return "Cube not available" if case["decision_text"] == "Unknown cube decision" else case["decision_text"]


def figures(a: CubeAdvice) -> list[float | None]:
    return [a.equity, a.no_double, a.double_take, a.double_pass]


def test_the_table_covers_every_class_money_and_match_scores() -> None:
    positions = {c["position_id"] for c in CASES}
    assert len(positions) >= 60
    by_class = {
        k: {c["position_id"] for c in CASES if c["gnubg_class"] == k}
        for k in ("contact", "crashed", "race", "bearoff1", "bearoff2")
    }
    assert all(len(v) >= 8 for v in by_class.values()), {k: len(v) for k, v in by_class.items()}
    race_pips = sorted(c["pips"][0] for c in CASES if c["gnubg_class"] == "race")
    assert race_pips[0] < 40 and race_pips[-1] > 90  # races at several pip counts
    kinds = {c["kind"] for c in CASES}
    assert "money" in kinds and len(kinds - {"money"}) >= 4
    with_jacoby = [c for c in CASES if c.get("jacoby")]  # gnubg's default money rule, on a centred cube
    assert len(with_jacoby) >= 60 and any(c["equities"][1] != d["equities"][1] for c, d in jacoby_pairs())
    assert any(c["crawford"] for c in CASES) and any("post-Crawford" in c["kind"] for c in CASES)
    assert "AwAAMAAAAAAAAA" in positions  # a last roll


def jacoby_pairs() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each Jacoby case with the same position's case without the rule (money, cube 1 centred)."""
    plain = {c["position_id"]: c for c in CASES if c["length"] == 0 and c["cube"] == 1 and not c.get("jacoby")}
    return [(c, plain[c["position_id"]]) for c in CASES if c.get("jacoby")]


def test_our_classes_are_gnubgs() -> None:
    boards = np.stack([Position.from_id(c["position_id"]).array for c in CASES])
    assert [PositionClass.from_gnubg_name(c["gnubg_class"]) for c in CASES] == position_classes(boards)


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_fed_gnubgs_probabilities_the_figures_are_gnubgs(case: dict[str, Any]) -> None:
    """Optimal, no double, double/take and double/pass within 0.001, and the same proper action."""
    ours = advice(case, np.clip(case["probabilities"], 0.0, 1.0))
    assert str(ours.action) == gnubg_text(case)
    for mine, theirs in zip(figures(ours), case["equities"], strict=True):
        if mine is not None:  # no double/take where the side on roll may not double
            assert mine == pytest.approx(theirs, abs=TOLERANCE)
    if case["length"] > 0:
        assert ours.mwc is not None and ours.mwc[0] == pytest.approx(case["mwc"][1], abs=TOLERANCE)


@pytest.fixture(scope="module")
def evaluator() -> Evaluator:
    return load_evaluator()


def match_state(case: dict[str, Any]) -> MatchState:
    """The match state of a fixture case, player 1 on roll (in money Jacoby off unless the case has it on)."""
    owner = {"centered": None, "owned": 1, "unavailable": 0}[case["owner"]]
    mine, theirs = case["score"]
    return MatchState(
        cube=case["cube"],
        cube_owner=owner,
        on_roll=1,
        turn=1,
        crawford=case["crawford"],
        match_length=case["length"],
        score=(theirs, mine),
        extra_bits=0 if case.get("jacoby") else 1,
    )


BEAROFFS = [c for c in CASES if c["gnubg_class"] == "bearoff2"]


@pytest.mark.slow
@pytest.mark.parametrize("case", BEAROFFS, ids=[case_id(c) for c in BEAROFFS])
def test_in_two_sided_bearoffs_evals_own_figures_are_gnubgs(case: dict[str, Any], evaluator: Evaluator) -> None:
    """Both engines' probabilities are exact there, so ``eval``'s whole path must give gnubg's figures."""
    result = analyse(evaluator, Position.from_id(case["position_id"]), match_state(case), 0, published_met())
    d = result.cube.models()["gnubg"]
    assert d.action == gnubg_text(case)
    if isinstance(d, MoneyModelAdvice):
        assert case["length"] == 0
        mine = [d.equity, d.no_double, d.double_take, d.double_pass]
    else:
        e = d.equity
        mine = [e.optimal, e.no_double, e.double_take, e.double_pass]
    for m, g in zip(mine, case["equities"], strict=True):
        if m is not None:
            assert m == pytest.approx(g, abs=TOLERANCE)


# (ID pair, no double, double/take, proper action, label): the wrong answers a user met, now gnubg's.
NAMED = [
    ("AwAAMAAAAAAAAA:cAkAAAAAAAAA", 0.444, 0.889, "Double, take", "gnubg(exact: two-sided bear-off database)"),
    ("0QAA4BIAAAAAAA:cAkAAAAAAAAA", 0.652, 1.005, "Double, pass", "gnubg(exact: two-sided bear-off database)"),
    ("AwAAMAAAAAAAAA:MAHgADAAKAAA", 0.444, 0.633, "Double, take", "gnubg(x=0.000, after a double 0.000: effective"),
]


@pytest.mark.parametrize(("ids", "nd", "dt", "action", "label"), NAMED)
def test_eval_gives_gnubgs_answer_in_bearoffs(
    ids: str, nd: float, dt: float, action: str, label: str, evaluator: Evaluator
) -> None:
    position, match = Position.from_id(ids.split(":")[0]), MatchState.from_id(ids.split(":")[1])
    d = analyse(evaluator, position, match, 0, published_met()).cube.models()["gnubg"]
    assert isinstance(d, MoneyModelAdvice if match.match_length == 0 else MatchModelAdvice)
    got = (
        (d.no_double, d.double_take) if isinstance(d, MoneyModelAdvice) else (d.equity.no_double, d.equity.double_take)
    )
    assert got == (pytest.approx(nd, abs=1e-3), pytest.approx(dt, abs=1e-3))
    assert d.action == action and d.label.startswith(label)


def test_a_race_uses_the_rollers_pips() -> None:
    """76 against 57 pips: x = 0.00125 x 76 + 0.55 = 0.645, and the label says so."""
    life = cube_lives(Position.from_id("u9uGAAC23VkAAA").array[None])[0]
    assert life.position_class is PositionClass.RACE and life.x == pytest.approx(0.645)
    assert life.label() == "gnubg(x=0.645: race, 76 pips)"


@pytest.mark.slow
def test_a_bare_id_is_evaluated_as_the_match_id_it_prints(evaluator: Evaluator) -> None:
    """No match ID: gnubg's default money state (Jacoby on), whose ID ``eval`` prints, gives the same figures."""
    position = Position.from_id("4HPwATDgc/ABMA")
    bare = analyse(evaluator, position, None, 0)
    assert bare.match_id == "cAkAAAAAAAAA" and bare.cube.jacoby is True
    printed = analyse(evaluator, position, MatchState.from_id(bare.match_id), 0)
    assert bare.cube == printed.cube


def test_every_model_names_a_cube_the_opponent_owns_as_gnubg_does(evaluator: Evaluator) -> None:
    """The jump row said "Cube unavailable" and gave double/take and double/pass figures for a cube it cannot turn."""
    opponent_owns = MatchState.from_id("QQkAAAAAAAAA")
    report = analyse(evaluator, Position.from_id("0OfBASiYZ8PBAA"), opponent_owns, 0)
    assert report.cube.state == CubeState.UNAVAILABLE and report.cube.money_models is not None
    for model in report.cube.money_models.values():
        assert (model.action, model.double_take, model.double_pass) == ("Cube not available", None, None)
        assert model.equity == model.no_double


@pytest.mark.parametrize(
    ("ids", "note", "open_lines"),
    [
        ("AwAAMAAAAAAAAA:cAkAAAAAAAAA", "; exact: decided within two rolls)", 0),
        ("QQAAKAQAAAAAAA:cAkAAAAAAAAA", "; two rolls searched: 55 of 441 lines open)", 55),
        ("4HPwATDgc/ABMA:cAkAAAAAAAAA", "numerical)", None),
        ("AwAAMAAAAAAAAA:cAngADAAKAAE", "; exact: decided within two rolls)", 0),
        ("QQAAKAQAAAAAAA:cAngADAAKAAE", "; two rolls searched: 55 of 441 lines open)", 55),
    ],
)
def test_the_local_jump_row_says_where_it_took_the_two_roll_figures(
    ids: str, note: str, open_lines: int | None, evaluator: Evaluator
) -> None:
    """The jump_local row's label and JSON name the exact figures (decided), the search (a few lines open) or
    neither, in money play and at a match score."""
    position, match = Position.from_id(ids.split(":")[0]), MatchState.from_id(ids.split(":")[1])
    d = analyse(evaluator, position, match, 0, published_met()).cube.models()["jump_local"]
    assert d.label.startswith("jump_local(remote_alpha=") and d.label.endswith(note)
    assert d.to_json().get("two_roll_open_lines") == open_lines
