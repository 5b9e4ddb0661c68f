"""The promotion rule: when a candidate net may replace the shipped one.

A candidate is promoted only if both hold:

1. **Head to head**: cubeless money games at 0 ply against the shipped net, in mirrored pairs (each
   dice sequence played twice, seats swapped; :mod:`arena.tournament`), the candidate's points per
   game are at least ``margin_se`` paired standard errors above 0.
2. **Checker play at 1 ply**: on ``bench moves`` (:mod:`benchmarks.move_error`), the candidate's
   mean error per decision against gnubg 2-ply is no worse than the shipped net's by more than one
   standard error of the per-decision paired difference.

The second check runs only when the first passes (it takes minutes). This module judges; the CLI
(``jumpgammon weights promote``) writes the shipped file when told to.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from arena.tournament import PlayerSpec, TournamentConfig, run_tournament
from benchmarks.move_error import MOVE_ERRORS, MoveErrorSet, decision_errors
from nets.evaluator import load_evaluator
from nets.lookahead import choose_children
from weights import DEFAULT_WEIGHTS

MARGIN_SE = 2.0  # paired standard errors the candidate must be ahead by


@dataclass(frozen=True)
class PromotionConfig:
    """What a promotion verdict is computed from."""

    candidate: Path
    shipped: Path = DEFAULT_WEIGHTS
    games: int = 4000  # head-to-head games, an even number (mirrored pairs)
    seed: int = 1
    plies: int = 1  # lookahead of the move-error check
    margin_se: float = MARGIN_SE
    moves_data: Path = MOVE_ERRORS


@dataclass(frozen=True)
class HeadToHead:
    """The candidate's points per game against the shipped net (candidate's view) and the check's outcome."""

    games: int
    seed: int
    ppg: float
    se: float | None  # paired standard error; None with a single pair
    passed: bool


@dataclass(frozen=True)
class MoveCheck:
    """Both nets' mean move error (mEMG, SE) at ``plies`` against gnubg 2-ply, their paired difference, the outcome."""

    plies: int
    decisions: int
    candidate_memg: float
    candidate_se: float
    shipped_memg: float
    shipped_se: float
    difference: float  # candidate minus shipped, per decision
    difference_se: float
    passed: bool


@dataclass(frozen=True)
class Verdict:
    """Whether the candidate may replace the shipped net, with the measurements and the reasons."""

    candidate: str
    shipped: str
    head_to_head: HeadToHead
    moves: MoveCheck | None  # None when the head-to-head check failed (not measured)
    promote: bool
    reasons: list[str]

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


def head_to_head(cfg: PromotionConfig, progress: bool = True) -> HeadToHead:
    """The candidate against the shipped net at 0 ply, cubeless, mirrored; passed when ahead by ``margin_se`` SE."""
    tournament = TournamentConfig(
        PlayerSpec(f"net:{cfg.candidate}@0"), PlayerSpec(f"net:{cfg.shipped}@0"), cfg.games, cfg.seed
    )
    result, _ = run_tournament(tournament, progress=progress)
    passed = result.se is not None and result.ppg > 0 and result.ppg >= cfg.margin_se * result.se
    return HeadToHead(result.games, cfg.seed, result.ppg, result.se, passed)


def move_check(cfg: PromotionConfig) -> MoveCheck:
    """Both nets' move errors at ``cfg.plies`` on the same decisions; passed unless the candidate is over 1 SE worse."""
    moves = MoveErrorSet.load(cfg.moves_data)
    kids = moves.child_boards()
    errors = {}
    for name, path in (("candidate", cfg.candidate), ("shipped", cfg.shipped)):
        chosen = choose_children(load_evaluator(path), kids, moves.offsets, cfg.plies)
        errors[name] = decision_errors(moves.equity2, moves.offsets, chosen)
    n = len(moves)
    diff = errors["candidate"] - errors["shipped"]

    def se(x: np.ndarray) -> float:
        return float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else float("nan")

    difference, difference_se = float(diff.mean()), se(diff)
    return MoveCheck(
        plies=cfg.plies,
        decisions=n,
        candidate_memg=float(errors["candidate"].mean()),
        candidate_se=se(errors["candidate"]),
        shipped_memg=float(errors["shipped"].mean()),
        shipped_se=se(errors["shipped"]),
        difference=difference,
        difference_se=difference_se,
        passed=bool(difference <= difference_se) if not math.isnan(difference_se) else difference <= 0,
    )


def judge(cfg: PromotionConfig, progress: bool = True) -> Verdict:
    """The promotion verdict for ``cfg.candidate`` against ``cfg.shipped`` (the move check only after a won match)."""
    h2h = head_to_head(cfg, progress)
    reasons = []
    se_text = f"{h2h.se:.4f}" if h2h.se is not None else "none"
    if h2h.passed:
        reasons.append(f"head to head {h2h.ppg:+.4f} ppg (SE {se_text}) is at least {cfg.margin_se:g} SE above 0")
        moves: MoveCheck | None = move_check(cfg)
        assert moves is not None  # for mypy: just made
        verb = "is" if moves.passed else "is not"
        reasons.append(
            f"{cfg.plies}-ply move error {moves.candidate_memg:.2f} against {moves.shipped_memg:.2f} mEMG "
            f"(difference {moves.difference:+.2f}, SE {moves.difference_se:.2f}) {verb} within one SE"
        )
    else:
        moves = None
        reasons.append(
            f"head to head {h2h.ppg:+.4f} ppg (SE {se_text}) is not {cfg.margin_se:g} SE above 0; "
            "move error not measured"
        )
    promote = h2h.passed and moves is not None and moves.passed
    return Verdict(str(cfg.candidate), str(cfg.shipped), h2h, moves, promote, reasons)
