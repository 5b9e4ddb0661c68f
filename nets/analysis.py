"""Position analysis for ``jumpgammon eval``: probabilities, volatility, cube actions, moves.

Everything is from the side on roll's view; the cube state follows the match ID (centred,
owned by the side on roll, or by the opponent).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cube.gamestate import flip_probabilities
from cube.gnubg_model import GNUBG_MODEL, match_cube_lives
from cube.jump_linear import STATISTICAL_SCALE
from cube.match import MatchCube, MatchCubeDecision, MatchScore, cubeful_mwc, cubeless_mwc, mwc_to_equity
from cube.match_jump import MAX_MATCH_VOLATILITY, jump_cube_decision
from cube.match_strategy import LINEAR_ALPHA
from cube.met import MatchEquityTable
from cube.states import CubeAction, CubeState
from engine.match import MatchState
from engine.position import Position
from nets.base import BoardEvaluator
from nets.cube_advice import CubeAdvice, cube_lives, match_cube_advice, money_cube_advice
from nets.evaluator import Evaluator
from nets.lookahead import evaluate_plies, rank_moves
from nets.mlp import OUTPUTS, cubeless_equity
from nets.volatility import jump_volatility, two_roll_outcomes

# A typical remote volatility for the jump model.
REMOTE_ALPHA = 0.10
#: Beavers are not part of a match ID; ``eval`` evaluates money without them and says so.
MONEY_BEAVERS = False


def cube_state_of(match: MatchState | None) -> CubeState:
    """The cube state for the side on roll in ``match`` (centred without a match)."""
    if match is None or match.cube_owner is None:
        return CubeState.CENTERED
    return CubeState.OWNED if match.cube_owner == match.on_roll else CubeState.UNAVAILABLE


def probabilities_json(p: np.ndarray) -> dict[str, float]:
    """The five probabilities keyed by name."""
    return {name: round(float(v), 6) for name, v in zip(OUTPUTS, p, strict=True)}


def match_cube_of(match: MatchState, met: MatchEquityTable) -> MatchCube:
    """The side on roll's score, cube value and cube state in a match (``match_length`` > 0).

    Raises CubeInputError naming the match length when ``met`` does not cover the match.
    """
    me = match.on_roll
    n = match.match_length
    met.truncated(n)  # the check and its message
    score = MatchScore(n - match.score[me], n - match.score[1 - me], match.crawford)
    return MatchCube(score, match.cube, cube_state_of(match))


def match_cube_label(d: MatchCubeDecision, cube: MatchCube) -> str:
    """Human label of a match cube decision, e.g. "Double, take", "No redouble, pass", "Cube unavailable"."""
    if not d.available:
        return "Crawford game: no cube" if cube.score.crawford else "Cube unavailable"
    verb = "redouble" if cube.state is CubeState.OWNED else "double"
    first = {
        CubeAction.DOUBLE: verb.capitalize(),
        CubeAction.NO_DOUBLE: f"No {verb}",
        CubeAction.TOO_GOOD: f"Too good to {verb}",
    }[d.action]
    return f"{first}, {d.response}" + (" (optional)" if d.optional else "")


def _rounded(values: Any) -> dict[str, float | None]:
    return {k: (None if np.isnan(v) else round(float(v), 6)) for k, v in vars(values).items()}


def _advice_json(a: CubeAdvice) -> dict[str, Any]:
    """gnubg's model's decision keyed as in ``--json`` (money: points per unit cube; match: also MWC)."""
    d: dict[str, Any] = {
        "label": a.label,
        "position_class": str(a.life.position_class),
        "action": str(a.action),
    }
    if a.mwc is None:
        d.update(
            no_double=round(a.no_double, 6),
            double_take=None if a.double_take is None else round(a.double_take, 6),
            double_pass=None if a.double_pass is None else round(a.double_pass, 6),
            equity=round(a.equity, 6),
        )
        return d
    assert a.cubeful_mwc is not None
    names = ("no_double", "double_take", "double_pass")
    d["optional"] = str(a.action).startswith("Optional")
    d["cubeful_mwc"] = round(a.cubeful_mwc, 6)
    d["mwc"] = {k: (None if v is None else round(v, 6)) for k, v in zip(names, a.mwc, strict=True)}
    d["mwc"]["optimal"] = round(a.cubeful_mwc, 6)
    eqs = (a.no_double, a.double_take, a.double_pass)
    d["equity"] = {k: (None if v is None else round(v, 6)) for k, v in zip(names, eqs, strict=True)}
    d["equity"]["optimal"] = round(a.equity, 6)
    return d


def match_cube_json(
    board: np.ndarray, probs: np.ndarray, met: MatchEquityTable, cube: MatchCube, local_alpha: float
) -> dict[str, dict[str, Any]]:
    """The cube decision under gnubg's model (x by the position's class) and the jump model (constant and local).

    ``local_alpha``: the position's jump volatility for the linear approximation (already scaled).
    """
    jumps = {
        "jump": (f"jump(alpha={LINEAR_ALPHA})", jump_cube_decision(probs, met, cube, LINEAR_ALPHA)),
        "jump_local": (
            f"jump_local(remote_alpha={LINEAR_ALPHA}, local_alpha={local_alpha:.4f})",
            jump_cube_decision(probs, met, cube, LINEAR_ALPHA, local_alpha),
        ),
    }
    out = {GNUBG_MODEL: _advice_json(match_cube_advice(board, probs, met, cube))}
    for name, (label, d) in jumps.items():
        out[name] = {
            "label": label,
            "action": match_cube_label(d, cube),
            "optional": d.optional,
            "cubeful_mwc": round(d.mwc.optimal, 6),
            "mwc": _rounded(d.mwc),
            "equity": _rounded(d.equity),
        }
    return out


def analyse(
    ev: Evaluator, position: Position, match: MatchState | None, plies: int, met: MatchEquityTable | None = None
) -> dict[str, Any]:
    """Everything ``eval`` reports, as a JSON-ready dict (side on roll's view); ``met`` for a match at a score.

    Without a match ID the position is a money game in gnubg's default state (cube centred at 1,
    Jacoby rule on), the state whose match ID ``eval`` prints.
    """
    import cube

    if match is None:
        match = MatchState(on_roll=1, turn=1)
    probs = evaluate_plies(ev, position.array[None], plies)[0]
    outcomes = two_roll_outcomes(ev, position)
    vol = jump_volatility(ev, position, outcomes)
    state = cube_state_of(match)
    jacoby = bool(match.jacoby) if match.match_length == 0 else False
    result: dict[str, Any] = {
        "position_id": position.id,
        "match_id": match.id,
        "plies": plies,
        "probabilities": probabilities_json(probs),
        "cubeless_equity": round(float(cubeless_equity(probs)), 6),
        "jump_volatility": {k: (round(v, 6) if isinstance(v, float) else v) for k, v in vol.to_json().items()},
    }
    at_score = match.match_length > 0
    if at_score:
        if met is None:
            raise ValueError("a match at a score needs a match equity table")
        cube_now = match_cube_of(match, met)
        local_alpha = min(STATISTICAL_SCALE * vol.mean_abs_jump, float(np.nextafter(MAX_MATCH_VOLATILITY, 0.0)))
        cubeless = float(cubeless_mwc(probs, met, cube_now))
        result["match"] = {
            "length": match.match_length,
            "score": [match.score[match.on_roll], match.score[1 - match.on_roll]],
            "away": cube_now.score.away,
            "opp_away": cube_now.score.opp_away,
            "crawford": cube_now.score.crawford,
            "cube": cube_now.value,
            "met": met.name,
        }
        result["cubeless_mwc"] = round(cubeless, 6)
        result["cubeless_normalised_equity"] = round(float(mwc_to_equity(cubeless, met, cube_now)), 6)
        result["cube"] = {
            "state": state,
            "models": match_cube_json(position.array, probs, met, cube_now, local_alpha),
        }
    else:
        jump_label = f"jump_local(remote_alpha={REMOTE_ALPHA}, numerical)"
        local = cube.jump_local(REMOTE_ALPHA, "numerical").decision(
            probs, state, jacoby=jacoby, beavers=MONEY_BEAVERS, lookahead=outcomes[:, 0]
        )
        gnubg = money_cube_advice(position.array, probs, state, jacoby=jacoby, beavers=MONEY_BEAVERS)
        result["cube"] = {
            "state": state,
            "jacoby": jacoby,
            "beavers": MONEY_BEAVERS,
            "models": {
                GNUBG_MODEL: _advice_json(gnubg),
                "jump_local": {
                    "label": jump_label,
                    "action": local.label,
                    "no_double": round(local.no_double, 6),
                    "double_take": round(local.double_take, 6),
                    "double_pass": round(local.double_pass, 6),
                    "equity": round(local.equity, 6),
                },
            },
        }
    if position.is_over():  # no cube decision at all: the figures above would be a finished game's
        result["cube"] = {"state": state, "note": "no cube action: the game is over"}
    elif match.dice[0]:  # the figures are the decision before this roll; none can be taken now
        result["cube"]["note"] = "the dice are rolled: no cube action now (the figures are for before the roll)"
    if match.dice[0] and not position.is_over():
        if at_score and met is not None:
            result["moves"] = moves_mwc_json(ev, position, match.dice, plies, met, match_cube_of(match, met))
        else:
            result["moves"] = moves_json(ev, position, match.dice, plies)
    return result


def moves_json(ev: BoardEvaluator, position: Position, dice: tuple[int, int], plies: int) -> list[dict[str, Any]]:
    """Every legal play ranked like gnubg's hint (mover's view)."""
    ranked = rank_moves(ev, position, dice, plies)
    best = ranked[0].equity
    return [
        {
            "rank": i + 1,
            "move": str(r.move),
            "position_id": r.position.id,
            "plies": r.plies,
            "equity": round(r.equity, 6),
            "difference": round(r.equity - best, 6),
            "probabilities": probabilities_json(r.probabilities),
        }
        for i, r in enumerate(ranked)
    ]


def moves_mwc_json(
    ev: BoardEvaluator, position: Position, dice: tuple[int, int], plies: int, met: MatchEquityTable, cube: MatchCube
) -> list[dict[str, Any]]:
    """Every legal play ranked by the mover's MWC at the match score (mover's view).

    ``mwc`` is cubeful, gnubg's model (x by each child's class) with the opponent on roll at the same cube:
    one minus the opponent's cubeful MWC; ``cubeless_mwc`` ignores the cube; ``difference`` is in MWC.
    """
    ranked = rank_moves(ev, position, dice, plies)
    mover = np.stack([r.probabilities for r in ranked])
    opponent = flip_probabilities(mover)
    theirs = cube.flipped()
    lives = cube_lives(np.stack([r.position.array for r in ranked]))
    x = np.array([match_cube_lives(life, p, theirs.state)[0] for life, p in zip(lives, opponent, strict=True)])
    mwc = 1.0 - cubeful_mwc(opponent, met, theirs, x)
    cubeless = cubeless_mwc(mover, met, cube)
    order = sorted(range(len(ranked)), key=lambda i: -float(mwc[i]))
    best = float(mwc[order[0]])
    return [
        {
            "rank": k + 1,
            "move": str(ranked[i].move),
            "position_id": ranked[i].position.id,
            "plies": ranked[i].plies,
            "mwc": round(float(mwc[i]), 6),
            "cubeless_mwc": round(float(cubeless[i]), 6),
            "equity": round(ranked[i].equity, 6),
            "difference": round(float(mwc[i]) - best, 6),
            "probabilities": probabilities_json(ranked[i].probabilities),
        }
        for k, i in enumerate(order)
    ]


def format_moves(moves: list[dict[str, Any]]) -> str:
    """gnubg-like text of ranked moves: move, equity, difference, the five probabilities."""
    lines = []
    for m in moves:
        p = m["probabilities"]
        if "mwc" in m:
            diff = "" if m["rank"] == 1 else f" ({100 * m['difference']:+.2f}%)"
            lines.append(f"{m['rank']:4d}. {m['plies']}-ply  {m['move']:<28} MWC: {100 * m['mwc']:.2f}%{diff}")
        else:
            diff = "" if m["rank"] == 1 else f" ({m['difference']:+.3f})"
            lines.append(f"{m['rank']:4d}. {m['plies']}-ply  {m['move']:<28} Eq.: {m['equity']:+.3f}{diff}")
        lines.append(
            f"       {p['win']:.3f} {p['win_gammon']:.3f} {p['win_backgammon']:.3f} - "
            f"{1 - p['win']:.3f} {p['lose_gammon']:.3f} {p['lose_backgammon']:.3f}"
        )
    return "\n".join(lines)
