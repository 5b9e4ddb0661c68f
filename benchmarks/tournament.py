"""Bot-vs-bot cubeless money tournaments in lockstep batches, with mirrored dice.

Each seeded dice sequence is played twice with the players' seats swapped, so luck largely
cancels; the standard error is taken over those pairs.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Protocol

import numpy as np
from tqdm import tqdm

from engine.batch import phases
from engine.position import GamePhase, Position
from nets.lookahead import best_children

MAX_PLIES = 600


class BatchPolicy(Protocol):
    """A player choosing one child (opponent's view) per (board, dice) pair."""

    name: str

    def choose(self, boards: np.ndarray, dice: np.ndarray) -> np.ndarray: ...


class EvaluatorPolicy:
    """Greedy 0-ply play with an evaluator (best cubeless equity for the mover)."""

    def __init__(self, evaluator: object, name: str = "jumpgammon-0ply") -> None:
        self.ev = evaluator
        self.name = name

    def choose(self, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        """The chosen children, one per pair."""
        return best_children(self.ev, boards, dice)  # type: ignore[arg-type]


@dataclass
class TournamentResult:
    """Points per game for player A against B (A's view) with its standard error."""

    player_a: str
    player_b: str
    games: int
    ppg: float
    se: float
    wins_a: int
    gammons_a: int
    backgammons_a: int
    gammons_b: int
    backgammons_b: int

    def to_json(self) -> dict[str, object]:
        """JSON-ready dict."""
        return asdict(self)


def _outcome_points(final_child: np.ndarray) -> int:
    """1, 2 or 3 points for the mover who just finished; ``final_child`` is the loser's view."""
    from engine.game import result_multiplier

    return result_multiplier(Position(final_child))


def play_tournament(
    a: BatchPolicy, b: BatchPolicy, pairs: int, seed: int = 0, progress: bool = True
) -> TournamentResult:
    """Play ``2 * pairs`` games (each dice sequence with both seatings); A's points per game."""
    rng = np.random.default_rng(seed)
    n = 2 * pairs
    rolls = rng.integers(1, 7, size=(pairs, MAX_PLIES, 2))
    # Opening: re-roll doubles; the higher die's side starts (seat 0 if the first die is higher).
    for g in range(pairs):
        while rolls[g, 0, 0] == rolls[g, 0, 1]:
            rolls[g, 0] = rng.integers(1, 7, size=2)
    seq = np.concatenate([rolls, rolls])  # game g and g + pairs share dice
    a_seat = np.concatenate([np.zeros(pairs, int), np.ones(pairs, int)])  # A plays seat 0 or 1
    on_roll_seat = (seq[:, 0, 0] < seq[:, 0, 1]).astype(int)  # seat 0 starts if its die is higher
    boards = np.repeat(Position.initial().array[None, :], n, axis=0)
    ply = np.zeros(n, int)
    points_a = np.zeros(n)
    live = np.ones(n, bool)
    stats = {"wins_a": 0, "gammons_a": 0, "backgammons_a": 0, "gammons_b": 0, "backgammons_b": 0}
    bar = tqdm(total=n, disable=not progress, unit="game")
    while live.any():
        idx = np.flatnonzero(live)
        dice = seq[idx, ply[idx]]
        a_moves = on_roll_seat[idx] == a_seat[idx]
        kids = np.empty((len(idx), 26), np.int8)
        for mask, policy in ((a_moves, a), (~a_moves, b)):
            if mask.any():
                kids[mask] = policy.choose(boards[idx[mask]], dice[mask])
        over = phases(kids) == GamePhase.OVER
        for j in np.flatnonzero(over):
            g = idx[j]
            pts = _outcome_points(kids[j])
            winner_is_a = bool(a_moves[j])
            points_a[g] = pts if winner_is_a else -pts
            if winner_is_a:
                stats["wins_a"] += 1
                stats["gammons_a"] += pts >= 2
                stats["backgammons_a"] += pts == 3
            else:
                stats["gammons_b"] += pts >= 2
                stats["backgammons_b"] += pts == 3
        boards[idx] = kids
        live[idx[over]] = False
        on_roll_seat[idx] = 1 - on_roll_seat[idx]
        ply[idx] += 1
        stuck = live & (ply >= MAX_PLIES)
        if stuck.any():
            raise RuntimeError(f"{int(stuck.sum())} games exceeded {MAX_PLIES} plies")
        bar.update(int(over.sum()))
    bar.close()
    pair_means = (points_a[:pairs] + points_a[pairs:]) / 2.0
    return TournamentResult(
        player_a=a.name,
        player_b=b.name,
        games=n,
        ppg=float(points_a.mean()),
        se=float(pair_means.std(ddof=1) / np.sqrt(pairs)) if pairs > 1 else float("nan"),
        **stats,
    )
