"""Supervised fits on rollout labels: `jumpgammon label` folders pooled with shards, held-out boards left out.

:mod:`training.supervised.fit` fits the phase nets to rows; this module reads the rows it cannot
(rollout-label folders, :mod:`training.rollout_labels`) and the boards of held-out folders of
either kind, then runs the fit. A label row's targets are the rollout's five luck-adjusted
probabilities, from the view of the side on roll before it rolls, as a shard row's are.
"""

from __future__ import annotations

import json
from pathlib import Path

from engine.errors import JumpgammonError
from training import rollout_labels
from training.supervised.fit import FitConfig, FitResult, fit
from training.supervised.shards import ExtraRows, Shard, board_keys, shard_paths


def is_label_folder(folder: Path) -> bool:
    """True when ``folder`` holds rollout-label shards (``labels_*.npz``)."""
    return bool(rollout_labels.shard_paths(folder))


def split_folders(folders: tuple[Path, ...]) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """``folders`` as (self-play shard folders, rollout-label folders), each in the order given."""
    labels = tuple(f for f in folders if is_label_folder(f))
    return tuple(f for f in folders if f not in labels), labels


def label_rows(folder: Path, weight: float) -> ExtraRows:
    """Every row of a rollout-label folder as fit rows of loss weight ``weight``; raises JumpgammonError if none."""
    data = rollout_labels.read_labels(folder)
    manifest = folder / rollout_labels.MANIFEST
    return ExtraRows(
        boards=data.boards,
        targets=data.probabilities,
        games=data.games,
        weight=weight,
        provenance={
            "folder": str(folder),
            "kind": "rollout-labels",
            "shards": len(rollout_labels.shard_paths(folder)),
            "manifest": json.loads(manifest.read_text()) if manifest.is_file() else None,
        },
    )


def held_out_boards(folders: tuple[Path, ...]) -> set[bytes]:
    """The boards (as :func:`training.supervised.shards.board_keys`) of held-out folders of either kind.

    Raises JumpgammonError naming a folder that holds neither rollout-label nor self-play shards.
    """
    keys: set[bytes] = set()
    for folder in folders:
        if is_label_folder(folder):
            keys |= board_keys(rollout_labels.read_labels(folder).boards)
        elif paths := shard_paths(folder):
            for path in paths:
                keys |= board_keys(Shard.read(path).boards)
        else:
            raise JumpgammonError(f"--exclude {str(folder)!r} holds no rollout-label or self-play shards")
    return keys


def fit_with_labels(cfg: FitConfig, progress: bool = True) -> FitResult:
    """Run :func:`training.supervised.fit.fit` with the rows of ``cfg.labels``, without the boards of ``cfg.exclude``.

    Returns the fit's result; the candidate's record lists the label folders and the rows left out.
    """
    overlap = set(cfg.exclude) & {*cfg.data, *cfg.labels}
    if overlap:
        raise JumpgammonError(f"--exclude {sorted(map(str, overlap))} is also training data")
    extra = tuple(label_rows(folder, cfg.label_weight) for folder in cfg.labels)
    excluded = held_out_boards(cfg.exclude) if cfg.exclude else None
    return fit(cfg, progress, extra, excluded)
