"""A training run's checkpoint: nets, optimiser state, in-flight games and the dice RNG in one file.

The file is an ordinary weights file (any player can load its nets); the run's state rides
beside the nets as ``train.*`` tensors plus a ``run`` record in the header, so one atomic write
keeps nets and state consistent even when the process is killed mid-run. Resuming from it
continues the run bit for bit (same seed and thread count). Everything here is numpy: the
trainer (:mod:`training.td`) turns nets and optimiser state into torch objects and back.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine.errors import InvalidWeights
from nets.evaluator import TRAINING_PREFIX, Evaluator, encoding_of, nets_from_weights
from nets.weights import decode_weights, write_atomic
from training.selfplay_cube import CUBE_ARRAYS, CubeTally

TRAINER = "td0-selfplay"
_BOARDS = TRAINING_PREFIX + "boards"
_FIRST = TRAINING_PREFIX + "first"
_CUBE = TRAINING_PREFIX + "cube."  # the per-game cube state of cubeful self-play, one array per name


@dataclass
class TrainState:
    """Progress counters of a run."""

    games: int = 0
    positions: int = 0
    steps: int = 0
    seconds: float = 0.0


@dataclass
class RunState:
    """Everything besides the nets that a run needs to continue exactly where it stopped."""

    progress: TrainState = field(default_factory=TrainState)
    config: dict[str, Any] = field(default_factory=dict)  # the settings the run was started or last resumed with
    rng: dict[str, Any] | None = None  # numpy bit-generator state of the dice stream
    boards: np.ndarray | None = None  # (parallel, 26) int8 in-flight games, side on roll's view
    first: np.ndarray | None = None  # (parallel,) bool: game at its opening roll
    # torch optimiser state dicts per phase net, with numpy arrays in place of tensors
    optimizers: dict[str, dict[str, Any]] | None = None
    # cubeful self-play: per-game cube arrays (see training.selfplay_cube.CUBE_ARRAYS) and the cube counters
    cube_games: dict[str, np.ndarray] | None = None
    cube_tally: dict[str, Any] | None = None


def _optimizer_tensors(name: str, state: dict[str, Any]) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Split an optimiser state dict (arrays in place of tensors) into named arrays and a JSON-ready remainder."""
    arrays: dict[str, np.ndarray] = {}
    slots: dict[str, list[str]] = {}
    for index, per_param in state["state"].items():
        slots[str(index)] = sorted(per_param)
        for key, value in per_param.items():
            arrays[f"{TRAINING_PREFIX}optim.{name}.{index}.{key}"] = np.asarray(value)
    groups = [{k: (list(v) if isinstance(v, tuple) else v) for k, v in g.items()} for g in state["param_groups"]]
    return arrays, {"slots": slots, "param_groups": groups}


def _optimizer_state(name: str, record: Any, tensors: dict[str, np.ndarray], source: str) -> dict[str, Any]:
    """Rebuild an optimiser state dict (arrays in place of tensors) from its JSON record; raises InvalidWeights."""
    try:
        state = {
            int(index): {key: tensors[f"{TRAINING_PREFIX}optim.{name}.{index}.{key}"].copy() for key in keys}
            for index, keys in record["slots"].items()
        }
        groups = [{k: (tuple(v) if k == "betas" else v) for k, v in g.items()} for g in record["param_groups"]]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InvalidWeights(f"{source}: optimiser state of net {name!r} is damaged ({exc!r})") from None
    return {"state": state, "param_groups": groups}


def save_checkpoint(path: Path, ev: Evaluator, run: RunState) -> None:
    """Write the nets and the run's state to ``path`` in one atomic step."""
    extra: dict[str, np.ndarray] = {}
    optim_records: dict[str, Any] = {}
    for name, state in (run.optimizers or {}).items():
        arrays, record = _optimizer_tensors(name, state)
        extra.update(arrays)
        optim_records[name] = record
    if run.boards is not None and run.first is not None:
        extra[_BOARDS] = np.ascontiguousarray(run.boards, dtype=np.int8)
        extra[_FIRST] = run.first.astype(np.int8)
    for name, array in (run.cube_games or {}).items():
        extra[_CUBE + name] = np.ascontiguousarray(array)
    record = {
        "trainer": TRAINER,
        "config": run.config,
        "state": asdict(run.progress),
        "rng": run.rng,
        "optimizers": optim_records,
    }
    if run.cube_tally is not None:
        record["cube_tally"] = run.cube_tally
    write_atomic(path, ev.to_bytes(record, extra))


def load_checkpoint(path: Path) -> tuple[Evaluator, RunState]:
    """The nets (numpy) and run state saved in ``path``; a plain weights file gives a run with no saved state."""
    source = str(path)
    header, tensors = decode_weights(path.read_bytes(), source)
    nets = nets_from_weights(header, tensors, source)
    ev = Evaluator(nets, header, encoding=encoding_of(header, source))
    record = header.get("run", {})
    try:
        progress = TrainState(**record.get("state", {}))
        config = dict(record.get("config", {}))
    except (TypeError, ValueError) as exc:
        raise InvalidWeights(f"{source}: run record is damaged ({exc})") from None
    _check_progress(progress, source)
    run = RunState(
        progress=progress,
        config=config,
        rng=_checked_rng(record.get("rng"), source),
        cube_tally=_checked_tally(record.get("cube_tally"), source),
    )
    cube_games = {key[len(_CUBE) :]: value for key, value in tensors.items() if key.startswith(_CUBE)}
    if cube_games:
        missing = [name for name in CUBE_ARRAYS if name not in cube_games]
        lengths = {len(array) if array.ndim else -1 for array in cube_games.values()}
        if missing or len(lengths) != 1:
            raise InvalidWeights(f"{source}: the cube state of the games in flight is damaged (missing {missing})")
        run.cube_games = cube_games
    if _BOARDS in tensors and _FIRST in tensors:
        boards, first = tensors[_BOARDS], tensors[_FIRST]
        if boards.ndim != 2 or boards.shape[1] != 26 or first.shape != (boards.shape[0],):
            raise InvalidWeights(f"{source}: in-flight games of shapes {boards.shape} and {first.shape}")
        if cube_games and len(next(iter(cube_games.values()))) != len(boards):
            raise InvalidWeights(f"{source}: the cube state is not for the {len(boards)} games in flight")
        run.boards, run.first = boards.astype(np.int8), first.astype(bool)
    optimizers = record.get("optimizers") or {}
    if isinstance(optimizers, dict) and optimizers:
        run.optimizers = {name: _optimizer_state(name, rec, tensors, source) for name, rec in optimizers.items()}
    return ev, run


def _check_progress(progress: TrainState, source: str) -> None:
    """Refuse counters that are not non-negative numbers (games, positions and steps whole)."""
    for name, value in asdict(progress).items():
        whole = name != "seconds"
        kinds = (int,) if whole else (int, float)
        if isinstance(value, bool) or not isinstance(value, kinds) or not value >= 0:
            raise InvalidWeights(f"{source}: run record is damaged (state.{name} = {value!r})")


def _checked_rng(state: Any, source: str) -> dict[str, Any] | None:
    """The saved dice stream's bit-generator state, once numpy accepts it; None if none was saved."""
    if state is None:
        return None
    try:
        np.random.default_rng().bit_generator.state = state
    except (TypeError, ValueError, KeyError) as exc:
        raise InvalidWeights(f"{source}: the saved dice stream is damaged ({exc!r})") from None
    return dict(state)


def _checked_tally(tally: Any, source: str) -> dict[str, Any] | None:
    """The saved cube counters, once they read back as a :class:`CubeTally`; None if none were saved."""
    if tally is None:
        return None
    try:
        CubeTally.from_json(tally)
    except (TypeError, ValueError) as exc:
        raise InvalidWeights(f"{source}: the saved cube counters are damaged ({exc})") from None
    return dict(tally)


def promote(run_file: Path, target: Path) -> Evaluator:
    """Write the nets of ``run_file`` to ``target`` atomically, without the run's resumable state.

    The run record keeps its settings and counters (provenance), not its optimiser, RNG or
    in-flight games, so the result is a plain weights file. Returns the promoted evaluator.
    """
    ev, _ = load_checkpoint(run_file)
    record = {k: v for k, v in ev.header.get("run", {}).items() if k not in ("rng", "optimizers")}
    ev.save(target, record)
    return ev
