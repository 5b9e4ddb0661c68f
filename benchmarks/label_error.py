"""Equity error against the project's own rollouts: a net, and GNU Backgammon 0-ply beside it, on labelled positions.

The strength target "equity MAE against the project's own 1296-trial rollouts of 2,000 held-out
positions, at most gnubg 0-ply's on the same positions" is this measurement on a held-out
rollout-label folder (``jumpgammon label``, :mod:`training.rollout_labels`). Every figure is the
cubeless money equity of the side on roll before it rolls. The mean absolute error of each
evaluator against the labels comes with its SE over rows (rows taken as independent), and the
net's error minus gnubg's is paired row by row, so its SE is that of the per-row difference. The
labels' own noise adds to every error (about their SE squared over twice the error) and cancels
only partly in the difference; the labels' mean SE is reported beside.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from nets.base import BoardEvaluator
from nets.lookahead import evaluate_plies
from nets.mlp import cubeless_equity
from players.cube import parse_cube_spec
from players.gnubg_binding import gnubg
from players.gnubg_player import make_gnubg_player
from training.rollout_labels import MANIFEST, equity_errors, label_groups, read_labels


@dataclass(frozen=True)
class LabelErrors:
    """``bench labels``: the net's equity error against a rollout-label folder, a reference's (gnubg 0-ply, or another
    net) on the same rows, and the net minus the reference, paired."""

    benchmark: ClassVar[str] = "label-error"
    folder: str
    rows: int
    labelling_net: str  # the labelling net's SHA-256 (manifest)
    trials: int | None  # rollout trials a row (manifest), None when the manifest does not say
    plies: int  # the judged net's lookahead
    net: dict[str, dict[str, float | int]]  # by group (all, class, reason): rows, mae, mae_se, mean_error, label SE
    reference: str | None  # what the reference is ("gnubg 0-ply", "net:FILE@PLY"), None without one
    reference_errors: dict[str, dict[str, float | int]] | None  # the reference's, the same groups
    net_minus_reference: dict[str, dict[str, float]] | None  # per group: paired difference of absolute errors, its SE

    def to_json(self) -> dict[str, Any]:
        """The figures as ``bench labels --json`` prints them."""
        return {
            "benchmark": self.benchmark,
            "folder": self.folder,
            "rows": self.rows,
            "labelling_net": self.labelling_net,
            "trials": self.trials,
            "plies": self.plies,
            "net": self.net,
            "reference": self.reference,
            "reference_errors": self.reference_errors,
            "net_minus_reference": self.net_minus_reference,
        }


def paired_abs_difference(
    equity: np.ndarray, other: np.ndarray, labels: np.ndarray, groups: dict[str, np.ndarray]
) -> dict[str, dict[str, float]]:
    """Per group: mean of |equity - label| - |other - label| and its SE over the group's rows (negative: ``equity``
    is closer to the labels)."""
    diff = np.abs(equity - labels) - np.abs(other - labels)
    out: dict[str, dict[str, float]] = {}
    for name, mask in groups.items():
        n = int(mask.sum())
        if n < 2:
            continue
        out[name] = {
            "mean": round(float(diff[mask].mean()), 5),
            "se": round(float(diff[mask].std(ddof=1) / math.sqrt(n)), 5),
        }
    return out


def gnubg_equity() -> Callable[[np.ndarray], np.ndarray] | None:
    """GNU Backgammon 0-ply's cubeless equity of each board's side on roll, None without the gnubg package."""
    if gnubg is None:
        return None
    player = make_gnubg_player(0, parse_cube_spec("none"))
    return lambda boards: cubeless_equity(player.probabilities(boards))


def net_equity(ev: BoardEvaluator, plies: int = 0) -> Callable[[np.ndarray], np.ndarray]:
    """A net's cubeless equity at ``plies`` of each board's side on roll."""
    return lambda boards: cubeless_equity(evaluate_plies(ev, boards, plies))


def label_errors(
    folder: Path,
    ev: BoardEvaluator,
    plies: int = 0,
    reference: Callable[[np.ndarray], np.ndarray] | None = None,
    reference_name: str = "gnubg 0-ply",
) -> LabelErrors:
    """The equity errors of ``ev`` at ``plies`` (and of ``reference``, boards -> cubeless equity of the side on roll,
    such as :func:`gnubg_equity` or :func:`net_equity`, when given) against the rollout labels in ``folder``;
    JumpgammonError without shards."""
    data = read_labels(folder)
    manifest = json.loads((folder / MANIFEST).read_text()) if (folder / MANIFEST).exists() else {}
    identity = manifest.get("identity", {})
    boards = data.boards.astype(np.int8)
    ours = net_equity(ev, plies)(boards)
    net = equity_errors(data, ours)
    theirs = None if reference is None else np.asarray(reference(boards), dtype=np.float64)
    groups = label_groups(data)
    by_group = {name: groups[name] for name in net}
    return LabelErrors(
        folder=str(folder),
        rows=len(data),
        labelling_net=str(identity.get("weights_sha256", "unknown"))[:16],
        trials=identity.get("rollout", {}).get("trials"),
        plies=plies,
        net=net,
        reference=None if theirs is None else reference_name,
        reference_errors=None if theirs is None else equity_errors(data, theirs),
        net_minus_reference=None
        if theirs is None
        else paired_abs_difference(ours, theirs, data.equity.astype(np.float64), by_group),
    )
