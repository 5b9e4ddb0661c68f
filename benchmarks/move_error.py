"""``jumpgammon bench moves``: checker-play error against GNU Backgammon's 2-ply, by gnubg's position class.

The set (``benchmarks/data/move_errors.npz``, written by ``tools/gnubg_fixtures/gen_move_errors.py``)
holds decisions from gnubg's own 0-ply self-play games, each with every distinct resulting position
and its cubeless money equity for the mover at gnubg 2-ply (and 0-ply). The error of a choice is
``1000 x (best 2-ply equity - 2-ply equity of the chosen play)`` (milli-equity, never negative);
the mean error per decision (mEMG) is reported for each class beside gnubg 0-ply's own, the play
with the best stored 0-ply equity, scored the same way. Standard errors treat decisions as
independent (they come from many games; decisions of one game are mildly correlated).
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from cube.efficiency import NET_CLASSES
from engine.errors import JumpgammonError
from engine.ids import board_from_position_id
from nets.base import BoardEvaluator
from nets.lookahead import choose_children, segment_argmax

MOVE_ERRORS = Path(__file__).resolve().parent / "data" / "move_errors.npz"


@dataclass(frozen=True)
class MoveErrorSet:
    """Decisions (mover on roll) with every distinct play's resulting position and the mover's equities.

    The plays of decision i are ``child_ids[offsets[i]:offsets[i+1]]`` (opponent on roll), with the
    mover's cubeless equity at gnubg 2-ply in ``equity2`` and at 0-ply in ``equity0``.
    """

    position_ids: np.ndarray
    dice: np.ndarray
    gnubg_class: np.ndarray
    offsets: np.ndarray
    child_ids: np.ndarray
    equity2: np.ndarray
    equity0: np.ndarray
    meta: dict[str, Any]

    @classmethod
    def load(cls, path: str | Path = MOVE_ERRORS) -> MoveErrorSet:
        """The set stored at ``path``; raises JumpgammonError when it is missing or malformed."""
        file = Path(path)
        if not file.is_file():
            raise JumpgammonError(
                f"move-error set {str(file)!r} does not exist (tools/gnubg_fixtures/gen_move_errors.py writes it)"
            )
        if not zipfile.is_zipfile(file):  # else numpy reads it as a pickle and says so
            raise JumpgammonError(f"move-error set {str(file)!r} is not an .npz archive")
        try:
            with np.load(file, allow_pickle=False) as z:
                data = {k: z[k] for k in z.files}
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
            raise JumpgammonError(f"move-error set {str(file)!r} cannot be read: {exc}") from None
        keys = ("position_ids", "dice", "gnubg_class", "offsets", "child_ids", "equity2", "equity0", "meta")
        missing = [k for k in keys if k not in data]
        offsets = data.get("offsets", np.zeros(0, np.int64))
        if missing or len(offsets) != len(data["position_ids"]) + 1 or offsets[-1] != len(data["child_ids"]):
            raise JumpgammonError(f"move-error set {str(file)!r} is malformed (missing {missing} or bad offsets)")
        return cls(
            position_ids=data["position_ids"],
            dice=data["dice"].astype(np.int64),
            gnubg_class=data["gnubg_class"].astype(np.int64),
            offsets=offsets.astype(np.int64),
            child_ids=data["child_ids"],
            equity2=data["equity2"].astype(np.float64),
            equity0=data["equity0"].astype(np.float64),
            meta=json.loads(str(data["meta"])),
        )

    def __len__(self) -> int:
        return len(self.position_ids)

    def boards(self) -> np.ndarray:
        """The decisions' int8 (n, 26) boards, mover on roll."""
        return np.stack([board_from_position_id(p.decode()) for p in self.position_ids])

    def child_boards(self) -> np.ndarray:
        """Every play's resulting int8 board (opponent's view), in segments by ``offsets``."""
        return np.stack([board_from_position_id(p.decode()) for p in self.child_ids])


def decision_errors(equity2: np.ndarray, offsets: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """Milli-equity lost by each decision's ``chosen`` play (an index into ``equity2``) against its best at 2-ply."""
    best = equity2[segment_argmax(equity2, offsets)]
    seg = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    if not (seg[chosen] == np.arange(len(offsets) - 1)).all():
        raise ValueError("each chosen play must belong to its own decision")
    return 1000.0 * (best - equity2[chosen])


@dataclass(frozen=True)
class ErrorSummary:
    """Mean error per decision (mEMG, milli-equity) with its standard error, over ``decisions`` decisions."""

    decisions: int
    memg: float
    se: float


@dataclass(frozen=True)
class ErrorDifference:
    """A paired difference of mEMG (ours minus gnubg 0-ply's, or minus another net's) with its standard error."""

    memg: float
    se: float


@dataclass(frozen=True)
class MoveBenchResult:
    """``bench moves``: the net's and gnubg 0-ply's mEMG against gnubg 2-ply by class (and ``overall``).

    The class maps are keyed by :class:`cube.efficiency.PositionClass` value, then ``"overall"``.
    """

    benchmark: ClassVar[str] = "moves"
    plies: int
    decisions: int
    plays: int
    reference: str
    ours: dict[str, ErrorSummary]
    gnubg_0ply: dict[str, ErrorSummary]
    ours_minus_gnubg_0ply: dict[str, ErrorDifference]
    same_play_as_gnubg_2ply: float
    #: With ``bench moves --against FILE``: that net's errors at the same plies, and ours minus its, paired.
    against: dict[str, ErrorSummary] | None = None
    ours_minus_against: dict[str, ErrorDifference] | None = None

    def to_json(self) -> dict[str, Any]:
        """The result as ``bench moves --json`` prints it."""
        return {"benchmark": self.benchmark, **asdict(self)}


def summarize(errors: np.ndarray, classes: np.ndarray) -> dict[str, ErrorSummary]:
    """Mean error per decision (mEMG) with its standard error and count, per class and ``"overall"``."""
    out: dict[str, ErrorSummary] = {}
    groups = [(c.value, classes == c.gnubg_code) for c in NET_CLASSES] + [("overall", np.ones(len(errors), bool))]
    for label, mask in groups:
        e = errors[mask]
        out[label] = ErrorSummary(
            decisions=int(mask.sum()),
            memg=float(e.mean()) if len(e) else float("nan"),
            se=float(e.std(ddof=1) / np.sqrt(len(e))) if len(e) > 1 else float("nan"),
        )
    return out


def bench_moves(
    ev: BoardEvaluator, plies: int = 0, data: str | Path = MOVE_ERRORS, against: BoardEvaluator | None = None
) -> MoveBenchResult:
    """The evaluator's and gnubg 0-ply's mean move error against gnubg 2-ply, by class, with the paired difference
    (and, with ``against``, that evaluator's at the same plies and ours minus its, paired)."""
    moves = MoveErrorSet.load(data)
    kids = moves.child_boards()
    ours = decision_errors(moves.equity2, moves.offsets, choose_children(ev, kids, moves.offsets, plies))
    gnubg0 = decision_errors(moves.equity2, moves.offsets, segment_argmax(moves.equity0, moves.offsets))
    diff = summarize(ours - gnubg0, moves.gnubg_class)
    other = (
        None
        if against is None
        else decision_errors(moves.equity2, moves.offsets, choose_children(against, kids, moves.offsets, plies))
    )
    other_diff = None if other is None else summarize(ours - other, moves.gnubg_class)
    return MoveBenchResult(
        plies=plies,
        decisions=len(moves),
        plays=int(len(kids)),
        reference="gnubg 2-ply cubeless money equity (gnubg Python package)",
        ours=summarize(ours, moves.gnubg_class),
        gnubg_0ply=summarize(gnubg0, moves.gnubg_class),
        ours_minus_gnubg_0ply={k: ErrorDifference(v.memg, v.se) for k, v in diff.items()},
        same_play_as_gnubg_2ply=float((ours == 0).mean()) if len(ours) else float("nan"),
        against=None if other is None else summarize(other, moves.gnubg_class),
        ours_minus_against=None
        if other_diff is None
        else {k: ErrorDifference(v.memg, v.se) for k, v in other_diff.items()},
    )


def markdown_table(result: MoveBenchResult) -> str:
    """The result as a markdown table: mEMG (SE) per class for ours and gnubg 0-ply."""
    lines = [
        f"| class | decisions | net @{result.plies}-ply mEMG (SE) | gnubg 0-ply mEMG (SE) | difference (SE) |",
        "|---|---|---|---|---|",
    ]
    for label in [c.value for c in NET_CLASSES] + ["overall"]:
        a, g, d = result.ours[label], result.gnubg_0ply[label], result.ours_minus_gnubg_0ply[label]
        lines.append(
            f"| {label} | {a.decisions:,} | {a.memg:.2f} ({a.se:.2f}) | {g.memg:.2f} ({g.se:.2f}) "
            f"| {d.memg:+.2f} ({d.se:.2f}) |"
        )
    return "\n".join(lines)
