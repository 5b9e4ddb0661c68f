"""Local jump volatility: the 441 pairs of rolls, in one batched two-ply pass.

The side on roll plays its best (0-ply) move for each of its 21 rolls, then the opponent its
best reply for each of 21 rolls; the resulting positions (original side on roll again) are
evaluated at 0-ply. Pair weights are 1/36^2 (double-double), 1/18^2 (non-double pairs) and
1/(18*36) (mixed), summing to 1.

An evaluator that judges the two-sided bearoff positions by the exact database (an
:class:`~nets.evaluator.Evaluator` with its ``two_sided`` table loaded) gets the database's own
two-roll lookahead (:meth:`nets.bearoff.TwoSidedDatabase.two_roll_win_chances`) for the boards in
it: the same values (ties between plays aside) without a batched search over every child.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from engine.position import Position
from nets.base import BoardEvaluator
from nets.bearoff import TwoSidedDatabase, covered_by_two_sided
from nets.evaluator import Evaluator
from nets.lookahead import ROLL_WEIGHTS, best_children, expand_rolls
from nets.mlp import cubeless_equity

PAIR_WEIGHTS = np.outer(ROLL_WEIGHTS, ROLL_WEIGHTS).ravel()


@dataclass(frozen=True)
class JumpVolatility:
    """Two-roll spread of the side on roll's cubeless win chance (and equity), its own view."""

    p_average: float  # P_a = sum_i w_i P_i
    sigma: float  # sigma_J = sqrt(sum_i w_i (P_i - P_a)^2)
    mean_abs_jump: float  # E|P_i - P_a|
    equity_average: float
    equity_sigma: float
    equity_mean_abs_jump: float
    n_pairs: int = 441

    def to_json(self) -> dict[str, float]:
        """JSON-ready dict of the fields."""
        return asdict(self)


def two_roll_outcomes(ev: BoardEvaluator, position: Position) -> np.ndarray:
    """Probabilities (441, 5) after each pair of rolls, for the original side on roll.

    Row ``21 * i + j``: the side on roll rolled ``ROLLS[i]``, then the opponent ``ROLLS[j]``.
    """
    return two_roll_outcomes_batch(ev, position.array[None, :])[0]


def exact_two_sided(ev: BoardEvaluator) -> TwoSidedDatabase | None:
    """The two-sided bearoff database ``ev`` judges its two-sided positions by, or None when it has none."""
    if isinstance(ev, Evaluator) and isinstance(ev.two_sided, TwoSidedDatabase):
        return ev.two_sided
    return None


def two_roll_outcomes_batch(ev: BoardEvaluator, boards: np.ndarray) -> np.ndarray:
    """Probabilities (n, 441, 5) after each pair of rolls for each board's side on roll, in one batched pass.

    Boards in ``ev``'s two-sided bearoff database (:func:`exact_two_sided`) take its exact lookahead.
    """
    boards = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 26)
    db = exact_two_sided(ev)
    exact = covered_by_two_sided(boards) if db is not None and len(boards) else np.zeros(len(boards), bool)
    if db is None or not exact.any():
        return two_roll_search(ev, boards)
    out = np.empty((len(boards), len(PAIR_WEIGHTS), 5))
    out[exact] = db.two_roll_probabilities(boards[exact])
    if not exact.all():
        out[~exact] = two_roll_search(ev, boards[~exact])
    return out


def two_roll_search(ev: BoardEvaluator, boards: np.ndarray) -> np.ndarray:
    """Probabilities (n, 441, 5) after each pair of rolls for each board's side on roll: ``ev`` judges every child."""
    boards = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 26)
    first_boards, first_dice = expand_rolls(boards)
    after_mine = best_children(ev, first_boards, first_dice)  # opponent on roll
    second_boards, second_dice = expand_rolls(after_mine)
    after_reply = best_children(ev, second_boards, second_dice)  # original side on roll
    return ev.evaluate_boards(after_reply).reshape(len(boards), len(PAIR_WEIGHTS), 5)


def jump_volatility(ev: BoardEvaluator, position: Position, outcomes: np.ndarray | None = None) -> JumpVolatility:
    """Local jump volatility of ``position`` from its side on roll's view.

    ``outcomes`` may pass in :func:`two_roll_outcomes` already computed for this position.
    """
    probs = two_roll_outcomes(ev, position) if outcomes is None else outcomes
    w = PAIR_WEIGHTS
    p = probs[:, 0]
    e = cubeless_equity(probs)
    pa = float(w @ p)
    ea = float(w @ e)
    return JumpVolatility(
        p_average=pa,
        sigma=float(np.sqrt(w @ (p - pa) ** 2)),
        mean_abs_jump=float(w @ np.abs(p - pa)),
        equity_average=ea,
        equity_sigma=float(np.sqrt(w @ (e - ea) ** 2)),
        equity_mean_abs_jump=float(w @ np.abs(e - ea)),
    )
