"""The proper cube action of a decision in GNU Backgammon's words ("No double, take", "Too good to redouble, pass").

A cube decision is the side on roll's :class:`~cube.states.CubeAction`, the opponent's best
:class:`~cube.states.CubeResponse` to a double, and whether the cube is centred or the side on
roll's own (double or redouble). :func:`proper_action` names the pair as gnubg's analysis does;
:func:`decide` takes gnubg's rule (``FindBestCubeDecision``) on the three equities no double,
double/take and double/pass, in any one unit (money points, normalised equity or MWC), from the
doubler's view.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from cube.states import CubeAction, CubeResponse, CubeState

__all__ = ["OPTIONAL_TOLERANCE", "ProperAction", "ProperDecision", "decide", "proper_action"]

#: gnubg calls a double "optional" when doubling and not doubling differ by at most this (normalised equity).
OPTIONAL_TOLERANCE = 1e-5


class ProperAction(StrEnum):
    """gnubg's name of a cube decision (its ``cubedecision``), each member equal to the text gnubg prints."""

    DOUBLE_TAKE = "Double, take"
    DOUBLE_PASS = "Double, pass"
    NO_DOUBLE_TAKE = "No double, take"
    TOO_GOOD_TAKE = "Too good to double, take"
    TOO_GOOD_PASS = "Too good to double, pass"
    DOUBLE_BEAVER = "Double, beaver"
    NO_DOUBLE_BEAVER = "No double, beaver"
    REDOUBLE_TAKE = "Redouble, take"
    REDOUBLE_PASS = "Redouble, pass"
    NO_REDOUBLE_TAKE = "No redouble, take"
    TOO_GOOD_REDOUBLE_TAKE = "Too good to redouble, take"
    TOO_GOOD_REDOUBLE_PASS = "Too good to redouble, pass"
    NO_REDOUBLE_BEAVER = "No redouble, beaver"
    NO_DOUBLE_DEAD_CUBE = "Never double, take (dead cube)"
    NO_REDOUBLE_DEAD_CUBE = "Never redouble, take (dead cube)"
    OPTIONAL_DOUBLE_TAKE = "Optional double, take"
    OPTIONAL_REDOUBLE_TAKE = "Optional redouble, take"
    OPTIONAL_DOUBLE_BEAVER = "Optional double, beaver"
    OPTIONAL_DOUBLE_PASS = "Optional double, pass"
    OPTIONAL_REDOUBLE_PASS = "Optional redouble, pass"
    NOT_AVAILABLE = "Cube not available"

    @property
    def doubles(self) -> bool:
        """True when the side on roll should (re)double now."""
        return self.name.startswith(("DOUBLE", "REDOUBLE", "OPTIONAL"))

    @property
    def takes(self) -> bool:
        """True when a double should be accepted (take or beaver); False for a pass or no cube."""
        return self.value.endswith(("take", "beaver", "(dead cube)"))


_PLAIN: dict[tuple[CubeAction, CubeResponse, bool], ProperAction] = {
    (CubeAction.DOUBLE, CubeResponse.TAKE, False): ProperAction.DOUBLE_TAKE,
    (CubeAction.DOUBLE, CubeResponse.PASS, False): ProperAction.DOUBLE_PASS,
    (CubeAction.DOUBLE, CubeResponse.BEAVER, False): ProperAction.DOUBLE_BEAVER,
    (CubeAction.NO_DOUBLE, CubeResponse.TAKE, False): ProperAction.NO_DOUBLE_TAKE,
    (CubeAction.NO_DOUBLE, CubeResponse.BEAVER, False): ProperAction.NO_DOUBLE_BEAVER,
    (CubeAction.TOO_GOOD, CubeResponse.TAKE, False): ProperAction.TOO_GOOD_TAKE,
    (CubeAction.TOO_GOOD, CubeResponse.PASS, False): ProperAction.TOO_GOOD_PASS,
    (CubeAction.DOUBLE, CubeResponse.TAKE, True): ProperAction.REDOUBLE_TAKE,
    (CubeAction.DOUBLE, CubeResponse.PASS, True): ProperAction.REDOUBLE_PASS,
    (CubeAction.NO_DOUBLE, CubeResponse.TAKE, True): ProperAction.NO_REDOUBLE_TAKE,
    (CubeAction.NO_DOUBLE, CubeResponse.BEAVER, True): ProperAction.NO_REDOUBLE_BEAVER,
    (CubeAction.TOO_GOOD, CubeResponse.TAKE, True): ProperAction.TOO_GOOD_REDOUBLE_TAKE,
    (CubeAction.TOO_GOOD, CubeResponse.PASS, True): ProperAction.TOO_GOOD_REDOUBLE_PASS,
}
_OPTIONAL = {
    ProperAction.DOUBLE_TAKE: ProperAction.OPTIONAL_DOUBLE_TAKE,
    ProperAction.DOUBLE_PASS: ProperAction.OPTIONAL_DOUBLE_PASS,
    ProperAction.DOUBLE_BEAVER: ProperAction.OPTIONAL_DOUBLE_BEAVER,
    ProperAction.REDOUBLE_TAKE: ProperAction.OPTIONAL_REDOUBLE_TAKE,
    ProperAction.REDOUBLE_PASS: ProperAction.OPTIONAL_REDOUBLE_PASS,
}


def proper_action(
    action: CubeAction,
    response: CubeResponse,
    state: CubeState,
    *,
    optional: bool = False,
    dead: bool = False,
) -> ProperAction:
    """gnubg's name of the side on roll's ``action`` and the opponent's ``response``, at cube ``state``.

    ``UNAVAILABLE`` (the opponent owns the cube) is :attr:`ProperAction.NOT_AVAILABLE`; ``dead``: the
    cube cannot gain the doubler anything (a no double "(dead cube)"); ``optional``: doubling and not
    doubling are equal (a double only). Raises ValueError for a pairing gnubg has no name for.
    """
    state, action, response = CubeState(state), CubeAction(action), CubeResponse(response)
    if state is CubeState.UNAVAILABLE:
        return ProperAction.NOT_AVAILABLE
    redouble = state is CubeState.OWNED
    if dead:
        return ProperAction.NO_REDOUBLE_DEAD_CUBE if redouble else ProperAction.NO_DOUBLE_DEAD_CUBE
    try:
        named = _PLAIN[(action, response, redouble)]
    except KeyError:
        raise ValueError(f"gnubg has no name for {action} with the answer {response}") from None
    if optional:
        if named not in _OPTIONAL:
            raise ValueError(f"{named} cannot be optional (only a double can)")
        return _OPTIONAL[named]
    return named


@dataclass(frozen=True)
class ProperDecision:
    """gnubg's decision on three equities (doubler's view): the action, the response and the best of the three.

    ``best`` is the equity of the proper action (no double for no double and too good);
    ``margin`` is min(double/take, double/pass) minus no double: positive when doubling is right.
    """

    action: CubeAction
    response: CubeResponse
    optional: bool
    best: float
    margin: float


def decide(
    no_double: float, double_take: float, double_pass: float, gammons: bool = True, beavers: bool = False
) -> ProperDecision:
    """gnubg's ``FindBestCubeDecision`` on the doubler's no double, double/take and double/pass equities.

    Double when double/take and double/pass are both at least no double (the opponent taking
    when passing is worth more to the doubler); otherwise no double, "too good" where the
    opponent would pass (or no double beats double/pass) and the doubler has ``gammons`` chances.
    With ``beavers`` (money) a take that leaves the doubler below zero is a beaver.
    """
    nd, dt, dp = float(no_double), float(double_take), float(double_pass)
    doubled = min(dt, dp)
    take = CubeResponse.BEAVER if beavers and dt < 0.0 else CubeResponse.TAKE
    if dt >= nd and dp >= nd:
        takes = dp > dt
        optional = abs((dt if takes else dp) - nd) <= OPTIONAL_TOLERANCE and (takes or gammons)
        response = take if takes else CubeResponse.PASS
        return ProperDecision(CubeAction.DOUBLE, response, optional, doubled, doubled - nd)
    passes = dt > dp or nd <= dt
    response = CubeResponse.PASS if passes else take
    if gammons and (passes or nd > dp):
        return ProperDecision(CubeAction.TOO_GOOD, response, False, nd, doubled - nd)
    if passes:  # no gammons: never too good, so a pass is a double/pass
        return ProperDecision(CubeAction.DOUBLE, response, False, dp, doubled - nd)
    return ProperDecision(CubeAction.NO_DOUBLE, response, False, nd, doubled - nd)
