"""A position's cube decision under GNU Backgammon's model, at any score: the one place ``eval``, ``hint``,
the ``gnubg`` cube spec and rollouts take it from.

:func:`cube_lives` classifies each board as gnubg does (contact, crashed, race, one- and
two-sided bear-off, over) and looks the two-sided bear-offs up in the exact cubeful database;
:func:`money_cube_decisions` and :func:`match_cube_advice` then apply :mod:`cube.gnubg_model`.
Everything is from the view of the side on roll of each board.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cube.actions import ProperAction, proper_action
from cube.efficiency import CubeEfficiency, PositionClass
from cube.gnubg_model import CubeLife, gnubg_match_decision, gnubg_money_decisions, match_cube_lives
from cube.match import MatchCube, MatchCubeDecision
from cube.met import MatchEquityTable
from cube.states import CubeState
from cube.strategy import CubeDecision, CubeDecisions
from engine.batch import crashed, phases
from engine.position import GamePhase
from nets.bearoff import load_two_sided

__all__ = [
    "CubeAdvice",
    "cube_lives",
    "gnubg_class_codes",
    "match_cube_advice",
    "money_cube_advice",
    "money_cube_decisions",
    "position_classes",
]

#: gnubg's default cube efficiencies, built once (each construction validates every field).
_EFFICIENCY = CubeEfficiency()
_CLASS_OF_PHASE = {
    GamePhase.CONTACT: PositionClass.CONTACT,
    GamePhase.RACE: PositionClass.RACE,
    GamePhase.BEAROFF_ONE_SIDED: PositionClass.BEAROFF_ONE_SIDED,
    GamePhase.BEAROFF_TWO_SIDED: PositionClass.BEAROFF_TWO_SIDED,
    GamePhase.OVER: PositionClass.OVER,
}


def position_classes(boards: np.ndarray) -> list[PositionClass]:
    """gnubg's class of each int8 (n, 26) board (side on roll's view), crashed split from contact.

    The one classifier of positions by gnubg's classes; :func:`gnubg_class_codes` gives them as codes.
    """
    b = np.ascontiguousarray(np.asarray(boards).reshape(-1, 26), dtype=np.int8)
    kinds = [_CLASS_OF_PHASE[GamePhase(int(k))] for k in phases(b)]
    is_crashed = crashed(b)
    return [
        PositionClass.CRASHED if k is PositionClass.CONTACT and c else k for k, c in zip(kinds, is_crashed, strict=True)
    ]


def gnubg_class_codes(boards: np.ndarray) -> np.ndarray:
    """int8 (n,) gnubg ``positionclass`` codes of the boards (:attr:`PositionClass.gnubg_code`), as files keep them."""
    return np.array([k.gnubg_code for k in position_classes(boards)], dtype=np.int8)


def cube_lives(boards: np.ndarray) -> list[CubeLife]:
    """gnubg's cube life of each board (side on roll's view): its class, x, and the database's equities."""
    b = np.ascontiguousarray(np.asarray(boards).reshape(-1, 26), dtype=np.int8)
    classes = position_classes(b)
    pips = (np.clip(b.astype(np.int64), 0, None) * np.arange(26)).sum(axis=1)
    two = np.flatnonzero([k is PositionClass.BEAROFF_TWO_SIDED for k in classes])
    exact: dict[int, tuple[float, float, float]] = {}
    if len(two):
        nd = load_two_sided(progress=False).lookup(b[two])["no_double"]
        exact = {int(i): (float(r[0]), float(r[1]), float(r[2])) for i, r in zip(two, nd, strict=True)}
    pairs = enumerate(zip(classes, pips, strict=True))
    return [CubeLife.of_class(k, int(p), exact.get(i), _EFFICIENCY) for i, (k, p) in pairs]


def money_cube_decisions(
    boards: np.ndarray, probs: np.ndarray, states: CubeState | str | np.ndarray, *, jacoby: bool, beavers: bool
) -> CubeDecisions:
    """gnubg's money cube decisions for many boards with their (n, 5) probabilities (side on roll, per unit cube)."""
    return gnubg_money_decisions(probs, states, cube_lives(boards), jacoby=jacoby, beavers=beavers)


@dataclass(frozen=True)
class CubeAdvice:
    """One position's cube decision under gnubg's model, side on roll's view.

    ``no_double``, ``double_take``, ``double_pass`` are normalised equities (per unit of the
    current cube; at a match score, gnubg's normalised match equity) and None where the side on
    roll cannot double; ``mwc`` holds the same three as match winning chances (None in money);
    ``label`` names the model with the x it used and why.
    """

    action: ProperAction
    no_double: float
    double_take: float | None
    double_pass: float | None
    equity: float
    label: str
    life: CubeLife
    mwc: tuple[float, float | None, float | None] | None = None
    cubeful_mwc: float | None = None


def money_cube_advice(
    board: np.ndarray, probs: np.ndarray, state: CubeState, *, jacoby: bool, beavers: bool
) -> CubeAdvice:
    """gnubg's money cube decision of one board with its five probabilities (side on roll's view)."""
    life = cube_lives(board[None])[0]
    d: CubeDecision = gnubg_money_decisions(probs[None], state, [life], jacoby=jacoby, beavers=beavers)[0]
    can = state is not CubeState.UNAVAILABLE
    return CubeAdvice(
        action=proper_action(d.action, d.response, state),
        no_double=d.no_double,
        double_take=d.double_take if can else None,
        double_pass=d.double_pass if can else None,
        equity=d.equity,
        label=life.label(),
        life=life,
    )


def _or_none(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def match_cube_advice(board: np.ndarray, probs: np.ndarray, met: MatchEquityTable, cube: MatchCube) -> CubeAdvice:
    """gnubg's cube decision of one board at a match score (side on roll's view), with the MWCs."""
    life = cube_lives(board[None])[0]
    x, x_doubled = match_cube_lives(life, probs, cube.state)
    d: MatchCubeDecision = gnubg_match_decision(probs, met, cube, life)
    return CubeAdvice(
        action=d.proper(cube.state),
        no_double=d.equity.no_double,
        double_take=_or_none(d.equity.double_take),
        double_pass=_or_none(d.equity.double_pass),
        equity=d.equity.optimal,
        label=life.label(x, x_doubled) if life.exact is not None else life.label(),
        life=life,
        mwc=(d.mwc.no_double, _or_none(d.mwc.double_take), _or_none(d.mwc.double_pass)),
        cubeful_mwc=d.mwc.optimal,
    )
