"""The supervised data sets on disk: shard files of labelled positions, and their pooling into per-net fit data.

A data folder holds a manifest (the settings that define the data) and numbered shards, each an
.npz of boards (side on roll's view, before it rolls), their five target probabilities, game ids
and phases, and optionally decision groups. :func:`load_phase_data` pools the shards of several
folders with rows from elsewhere (rollout labels) and splits them by game into each phase net's
training and validation arrays.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine.batch import crashed, phases
from engine.errors import JumpgammonError
from engine.position import GamePhase, PhaseName
from nets.encoding import encode

MANIFEST = "manifest.json"
SHARD_FORMAT = "shard_{:05d}.npz"
# Phases a net evaluates when the bearoff databases are loaded, with the net that does (a crashed net, where
# there is one, takes the contact positions of gnubg's crashed class).
NET_OF_PHASE: dict[int, str] = {int(GamePhase.CONTACT): PhaseName.CONTACT, int(GamePhase.RACE): PhaseName.RACE}
GAME_ID_STRIDE = 1 << 32  # game ids: shard * stride + game number within the shard


@dataclass
class Shard:
    """One shard of labelled positions: boards (side on roll's view), targets, game ids and phases."""

    boards: np.ndarray  # int8 (n, 26)
    targets: np.ndarray  # float32 (n, 5): the labelling evaluator's probabilities for the side on roll
    games: np.ndarray  # int64 (n,): the game each position came from (validation splits by it)
    phases: np.ndarray  # int8 (n,): GamePhase values, CONTACT or RACE
    decisions: np.ndarray | None = None  # int64 (n,): the decision group of each row, -1 for none

    def group_ids(self) -> np.ndarray:
        """The decision group of each row (-1: none); shards from before groups existed have none."""
        return self.decisions if self.decisions is not None else np.full(len(self.boards), -1, np.int64)

    def to_bytes(self) -> bytes:
        """The shard as .npz bytes."""
        buffer = io.BytesIO()
        arrays = {"boards": self.boards, "targets": self.targets, "games": self.games, "phases": self.phases}
        if self.decisions is not None:
            arrays["decisions"] = self.decisions
        np.savez(buffer, **arrays)  # type: ignore[arg-type]
        return buffer.getvalue()

    @classmethod
    def read(cls, path: Path) -> Shard:
        """Read a shard; raises JumpgammonError if the file is not one."""
        try:
            with np.load(path, allow_pickle=False) as z:
                decisions = z["decisions"] if "decisions" in z.files else None
                shard = cls(z["boards"], z["targets"], z["games"], z["phases"], decisions)
        except (OSError, KeyError, ValueError) as exc:
            raise JumpgammonError(f"{path}: not a data shard ({exc})") from None
        n = len(shard.boards)
        if shard.boards.shape != (n, 26) or shard.targets.shape != (n, 5) or shard.games.shape != (n,):
            raise JumpgammonError(f"{path}: shard arrays of inconsistent shapes")
        return shard


def read_manifest(path: Path) -> dict[str, Any]:
    """A data folder's manifest (a JSON object); raises JumpgammonError naming the file if it is not one."""
    try:
        saved = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise JumpgammonError(f"{path}: not a data manifest ({exc})") from None
    if not isinstance(saved, dict):
        raise JumpgammonError(f"{path}: not a data manifest (a JSON object expected)")
    return saved


def check_distinct_folders(folders: tuple[Path, ...]) -> None:
    """Refuse a data folder given twice, or two made with the same settings (their shards repeat the same games)."""
    seen: dict[Path, Path] = {}
    made_by: list[tuple[dict[str, Any], Path]] = []
    for folder in folders:
        real = folder.resolve()
        if real in seen:
            raise JumpgammonError(f"--data {str(folder)!r} is given twice (as {str(seen[real])!r} too)")
        seen[real] = folder
        manifest = folder / MANIFEST
        if manifest.is_file():
            settings = read_manifest(manifest)
            for other_settings, other in made_by:
                if other_settings == settings:
                    raise JumpgammonError(
                        f"--data {str(folder)!r} and {str(other)!r} were made with the same settings and seed: "
                        "their shards are the same games; make one with another --seed"
                    )
            made_by.append((settings, folder))


def shard_paths(data: Path) -> list[Path]:
    """The shard files of a data folder, in order."""
    return sorted(data.glob("shard_*.npz"))


@dataclass(frozen=True)
class ExtraRows:
    """Labelled positions from outside the shards (rollout labels), pooled with them in a fit.

    ``targets`` are the five probabilities for the side on roll of ``boards``; ``games`` tell the
    rows' games apart within this source (validation splits by them); ``weight`` is every row's
    weight in the loss; ``provenance`` goes into the candidate's record.
    """

    boards: np.ndarray  # int8 (n, 26)
    targets: np.ndarray  # float32 (n, 5)
    games: np.ndarray  # int64 (n,)
    weight: float
    provenance: dict[str, Any]


def board_keys(boards: np.ndarray) -> set[bytes]:
    """The set of ``boards`` (int8 (n, 26)) as bytes keys, for membership tests."""
    return {row.tobytes() for row in np.ascontiguousarray(boards, dtype=np.int8)}


@dataclass
class PhaseData:
    """One net's training and validation arrays: encoded inputs, targets and decision groups.

    A group matrix holds, per decision, the row indices of its plays (padded with -1 to
    ``GROUP_WIDTH``); only groups with two or more plays in this net's phase are kept.
    """

    x_train: np.ndarray
    y_train: np.ndarray
    x_val: np.ndarray
    y_val: np.ndarray
    groups_train: np.ndarray = field(default_factory=lambda: np.zeros((0, GROUP_WIDTH), np.int64))
    groups_val: np.ndarray = field(default_factory=lambda: np.zeros((0, GROUP_WIDTH), np.int64))
    w_train: np.ndarray | None = None  # float32 row weights in the loss; None: all 1
    w_val: np.ndarray | None = None


GROUP_WIDTH = 8  # the most plays gnubg's Normal filter keeps


def group_matrix(group_ids: np.ndarray) -> np.ndarray:
    """Rows of each decision group (ids >= 0) as an (n_groups, GROUP_WIDTH) matrix padded with -1; singles dropped."""
    rows = np.flatnonzero(group_ids >= 0)
    if len(rows) == 0:
        return np.zeros((0, GROUP_WIDTH), np.int64)
    ids = group_ids[rows]
    order = np.argsort(ids, kind="stable")
    rows, ids = rows[order], ids[order]
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    sizes = np.diff(np.r_[starts, len(ids)])
    slot = np.arange(len(ids)) - np.repeat(starts, sizes)
    out = np.full((len(starts), GROUP_WIDTH), -1, np.int64)
    keep = slot < GROUP_WIDTH
    out[np.repeat(np.arange(len(starts)), sizes)[keep], slot[keep]] = rows[keep]
    return out[sizes >= 2]


def load_phase_data(
    folders: tuple[Path, ...],
    validation: float,
    seed: int,
    encoder: Callable[[np.ndarray], np.ndarray] = encode,
    split_crashed: bool = False,
    extra: tuple[ExtraRows, ...] = (),
    excluded: set[bytes] | None = None,
) -> tuple[dict[str, PhaseData], dict[str, Any]]:
    """Every shard of ``folders`` and the ``extra`` rows split by game into training and validation data per net.

    Returns the data per net and their provenance. ``encoder`` turns int8 (n, 26) boards into the
    nets' float32 inputs (v1 by default). With ``split_crashed`` the contact positions of gnubg's
    crashed class go to a net of their own, ``PhaseName.CRASHED``. Rows whose board is in ``excluded`` are
    left out (counted in the provenance); extra rows a phase net does not evaluate are left out too.
    """
    check_distinct_folders(folders)
    boards, targets, games, ph, groups, weights = [], [], [], [], [], []
    provenance: list[dict[str, Any]] = []
    for folder_index, folder in enumerate(folders):
        paths = shard_paths(folder)
        if not paths:
            raise JumpgammonError(f"--data {str(folder)!r} holds no shards")
        manifest = folder / MANIFEST
        provenance.append(
            {
                "folder": str(folder),
                "shards": len(paths),
                "manifest": read_manifest(manifest) if manifest.is_file() else None,
            }
        )
        for path in paths:
            s = Shard.read(path)
            boards.append(s.boards)
            targets.append(s.targets)
            games.append(s.games + folder_index * (1 << 56))  # folders never share a game
            ph.append(s.phases)
            ids = s.group_ids()
            groups.append(np.where(ids >= 0, ids + folder_index * (1 << 56), -1))
            weights.append(np.ones(len(s.boards), np.float32))
    for extra_index, rows in enumerate(extra, start=len(folders)):
        row_phases = phases(rows.boards).astype(np.int8)
        keep = np.isin(row_phases, list(NET_OF_PHASE))
        provenance.append({**rows.provenance, "rows": len(rows.boards), "outside_the_phase_nets": int((~keep).sum())})
        boards.append(rows.boards[keep].astype(np.int8))
        targets.append(rows.targets[keep].astype(np.float32))
        games.append(rows.games[keep] + extra_index * (1 << 56))
        ph.append(row_phases[keep])
        groups.append(np.full(int(keep.sum()), -1, np.int64))
        weights.append(np.full(int(keep.sum()), rows.weight, np.float32))
    all_boards, all_targets = np.concatenate(boards), np.concatenate(targets)
    all_games, all_phases = np.concatenate(games), np.concatenate(ph)
    all_groups, all_weights = np.concatenate(groups), np.concatenate(weights)
    omitted = 0
    if excluded:
        out_rows = np.fromiter((row.tobytes() in excluded for row in all_boards), bool, len(all_boards))
        omitted = int(out_rows.sum())
        if omitted:  # group ids index rows: drop the rows' group memberships before the rows
            all_groups = np.where(out_rows, -1, all_groups)
            keep_rows = ~out_rows
            all_boards, all_targets, all_games = all_boards[keep_rows], all_targets[keep_rows], all_games[keep_rows]
            all_phases, all_groups, all_weights = all_phases[keep_rows], all_groups[keep_rows], all_weights[keep_rows]
    if len(all_boards) == 0:
        raise JumpgammonError("the data hold no position to fit once the held-out boards are left out")
    is_val = held_out(all_games, validation, seed)
    # A board met in a training game too would measure memory, not generalisation: such validation rows are
    # left out, except the plays of a decision group, which stays whole (counted in the provenance).
    seen = seen_in_training(all_boards, is_val)
    in_group = all_groups >= 0
    dropped = seen & ~in_group
    if dropped.any():
        keep_rows = ~dropped
        all_groups = all_groups[keep_rows]
        all_boards, all_targets, all_games = all_boards[keep_rows], all_targets[keep_rows], all_games[keep_rows]
        all_phases, all_weights, is_val = all_phases[keep_rows], all_weights[keep_rows], is_val[keep_rows]
    routes = {name: all_phases == phase for phase, name in NET_OF_PHASE.items()}
    if split_crashed:
        contact = routes[PhaseName.CONTACT]
        smashed = contact & crashed(all_boards)
        routes = {
            PhaseName.CONTACT: contact & ~smashed,
            PhaseName.CRASHED: smashed,
            PhaseName.RACE: routes[PhaseName.RACE],
        }
    out = {}
    counts = {}
    for name, mask in routes.items():
        tr, va = mask & ~is_val, mask & is_val
        out[name] = PhaseData(
            encoder(all_boards[tr]),
            all_targets[tr],
            encoder(all_boards[va]),
            all_targets[va],
            group_matrix(all_groups[tr]),
            group_matrix(all_groups[va]),
            all_weights[tr],
            all_weights[va],
        )
        counts[name] = {
            "train": int(tr.sum()),
            "validation": int(va.sum()),
            "groups_train": len(out[name].groups_train),
            "groups_validation": len(out[name].groups_val),
        }
    held_games = len(np.unique(all_games[is_val]))
    return out, {
        "folders": provenance,
        "positions": counts,
        "games": len(np.unique(all_games)),
        "validation_games": held_games,
        "excluded_rows": omitted,
        "validation_rows_seen_in_training": {
            "left_out": int(dropped.sum()),
            "kept_in_groups": int((seen & in_group).sum()),
        },
    }


def seen_in_training(boards: np.ndarray, is_val: np.ndarray) -> np.ndarray:
    """Bool mask of the validation rows (``is_val``) whose board (int8 (n, 26)) is also a training row's."""
    rows = np.ascontiguousarray(boards, dtype=np.int8)
    keys = rows.view(np.dtype((np.void, rows.shape[1]))).ravel()
    return is_val & np.isin(keys, keys[~is_val])


def held_out(games: np.ndarray, validation: float, seed: int) -> np.ndarray:
    """Bool mask of the rows whose game is held out for validation (each game with chance ``validation``)."""
    unique, inverse = np.unique(games, return_inverse=True)
    held = np.random.default_rng(seed).random(len(unique)) < validation
    return held[inverse]
