"""Position analysis for ``jumpgammon eval``: probabilities, volatility, cube actions, moves.

Everything is from the side on roll's view; the cube state follows the match ID (centred,
owned by the side on roll, or by the opponent).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cube.states import CubeState
from engine.match import MatchState
from engine.position import Position
from nets.evaluator import Evaluator
from nets.lookahead import evaluate_plies, rank_moves
from nets.mlp import OUTPUTS, cubeless_equity
from nets.volatility import jump_volatility, two_roll_outcomes

# gnubg's usual cube efficiency for contact positions, and a typical remote volatility.
JANOWSKI_X = 0.68
REMOTE_ALPHA = 0.10


def cube_state_of(match: MatchState | None) -> CubeState:
    """The cube state for the side on roll in ``match`` (centred without a match)."""
    if match is None or match.cube_owner is None:
        return CubeState.CENTERED
    return CubeState.OWNED if match.cube_owner == match.on_roll else CubeState.UNAVAILABLE


def probabilities_json(p: np.ndarray) -> dict[str, float]:
    """The five probabilities keyed by name."""
    return {name: round(float(v), 6) for name, v in zip(OUTPUTS, p, strict=True)}


def analyse(ev: Evaluator, position: Position, match: MatchState | None, plies: int) -> dict[str, Any]:
    """Everything ``eval`` reports, as a JSON-ready dict (side on roll's view)."""
    import cube

    probs = evaluate_plies(ev, position.array[None], plies)[0]
    outcomes = two_roll_outcomes(ev, position)
    vol = jump_volatility(ev, position, outcomes)
    state = cube_state_of(match)
    jacoby = bool(match.jacoby) if match is not None and match.match_length == 0 else False
    result: dict[str, Any] = {
        "position_id": position.id,
        "match_id": match.id if match else None,
        "plies": plies,
        "probabilities": probabilities_json(probs),
        "cubeless_equity": round(float(cubeless_equity(probs)), 6),
        "jump_volatility": {k: (round(v, 6) if isinstance(v, float) else v) for k, v in vol.to_json().items()},
    }
    if match is not None and match.match_length > 0:
        result["cube"] = {"state": state, "note": "match-play cube decisions are not modelled; money-game theory only"}
    else:
        models = {
            f"janowski(x={JANOWSKI_X}, capped)": cube.janowski(JANOWSKI_X, capped=True).decision(
                probs, state, jacoby=jacoby
            ),
            f"jump_local(remote_alpha={REMOTE_ALPHA}, numerical)": cube.jump_local(REMOTE_ALPHA, "numerical").decision(
                probs, state, jacoby=jacoby, lookahead=outcomes[:, 0]
            ),
        }
        result["cube"] = {
            "state": state,
            "models": {
                name: {
                    "no_double": round(d.no_double, 6),
                    "double_take": round(d.double_take, 6),
                    "double_pass": round(d.double_pass, 6),
                    "equity": round(d.equity, 6),
                    "action": d.label,
                }
                for name, d in models.items()
            },
        }
    if match is not None and match.dice[0] and not position.is_over():
        result["moves"] = moves_json(ev, position, match.dice, plies)
    return result


def moves_json(ev: Evaluator, position: Position, dice: tuple[int, int], plies: int) -> list[dict[str, Any]]:
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


def format_moves(moves: list[dict[str, Any]]) -> str:
    """gnubg-like text of ranked moves: move, equity, difference, the five probabilities."""
    lines = []
    for m in moves:
        diff = "" if m["rank"] == 1 else f" ({m['difference']:+.3f})"
        p = m["probabilities"]
        lines.append(f"{m['rank']:4d}. {m['plies']}-ply  {m['move']:<28} Eq.: {m['equity']:+.3f}{diff}")
        lines.append(
            f"       {p['win']:.3f} {p['win_gammon']:.3f} {p['win_backgammon']:.3f} - "
            f"{1 - p['win']:.3f} {p['lose_gammon']:.3f} {p['lose_backgammon']:.3f}"
        )
    return "\n".join(lines)
