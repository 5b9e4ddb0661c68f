"""gnubg's names of cube decisions (:mod:`cube.actions`) against gnubg 1.07's own analyses and cube.match's rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cube.actions import ProperAction, decide, proper_action
from cube.match import decision_rule
from cube.states import CubeAction, CubeResponse, CubeState

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "gnubg_match_cube.json"
UNNAMED = {"Unknown cube decision", "Never double, take (dead cube)", "Never redouble, take (dead cube)"}


def gnubg_cases() -> list[dict[str, Any]]:
    """gnubg's 0-ply match cube analyses whose proper action follows from the three equities alone."""
    cases = json.loads(FIXTURE.read_text())["cases"]
    return [c for c in cases if c["decision_text"] not in UNNAMED]


def test_the_names_of_gnubgs_own_analyses() -> None:
    """Fed gnubg's normalised no double, double/take and double/pass, the rule names gnubg's proper action."""
    cases = gnubg_cases()
    assert len(cases) > 400
    for c in cases:
        _, nd, dt, dp = c["equities"]
        d = decide(nd, dt, dp, gammons=c["probabilities"][1] > 0.0)
        name = proper_action(d.action, d.response, CubeState(c["owner"]), optional=d.optional)
        assert name == c["decision_text"], c


finite = st.floats(-3.0, 3.0, allow_nan=False)


@given(finite, finite, finite, st.booleans())
def test_decide_is_cube_match_decision_rule(nd: float, dt: float, dp: float, gammons: bool) -> None:
    """One rule: the scalar :func:`decide` gives the vectorised :func:`cube.match.decision_rule`'s action and answer."""
    rule = decision_rule(np.array([nd]), np.array([dt]), np.array([dp]), np.array([gammons]))
    d = decide(nd, dt, dp, gammons)
    assert (d.action, d.response, d.optional) == (rule.action[0], rule.response[0], bool(rule.optional[0]))
    assert d.margin == pytest.approx(min(dt, dp) - nd)
    assert d.best == pytest.approx(nd if d.action is not CubeAction.DOUBLE else min(dt, dp))


def test_beaver_and_unavailable_names() -> None:
    """A take leaving the doubler below zero is a beaver where beavers are played; the opponent's cube: none."""
    d = decide(-0.3, -0.4, 1.0, beavers=True)
    assert proper_action(d.action, d.response, CubeState.CENTERED) is ProperAction.NO_DOUBLE_BEAVER
    assert proper_action(d.action, d.response, CubeState.UNAVAILABLE) is ProperAction.NOT_AVAILABLE
    assert proper_action(CubeAction.DOUBLE, CubeResponse.TAKE, CubeState.OWNED) == "Redouble, take"
    assert proper_action(CubeAction.NO_DOUBLE, CubeResponse.TAKE, CubeState.OWNED, dead=True).takes
    assert ProperAction.TOO_GOOD_PASS.takes is False and ProperAction.DOUBLE_PASS.doubles
    with pytest.raises(ValueError, match="optional"):
        proper_action(CubeAction.NO_DOUBLE, CubeResponse.TAKE, CubeState.CENTERED, optional=True)
