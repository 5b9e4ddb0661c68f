"""The composite evaluator: routes each position by game phase to a net or an exact value."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import numpy as np

from engine.batch import phases
from engine.errors import InvalidWeights
from engine.position import GamePhase, Position
from nets.encoding import N_INPUTS, encode
from nets.mlp import FrozenNet, NetConfig, OutcomeNet, cubeless_equity
from nets.weights import decode_weights, encode_weights, write_atomic
from weights import DEFAULT_WEIGHTS

ENCODING = "jumpgammon-v1"
PHASE_NETS = ("contact", "race")
TRAINING_PREFIX = "train."  # tensors of a training run's state, beside the nets in a checkpoint
# Trained weights stay within a few tens. Below this bound every activation of the largest net allowed
# (4 hidden layers of 2048) stays finite in float32 for encoded inputs (all below 10), so no output is NaN.
MAX_ABS_WEIGHT = 1e4


class Probabilities(NamedTuple):
    """Outcome probabilities for the side on roll, before it rolls (gammons include backgammons)."""

    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float

    @property
    def equity(self) -> float:
        """Cubeless money equity for the side on roll."""
        return float(cubeless_equity(np.asarray(self)))


class BearoffLookup(Protocol):
    """Exact probabilities for the positions a database covers (side on roll's view)."""

    def probabilities(self, boards: np.ndarray) -> np.ndarray: ...


def game_over_probabilities(boards: np.ndarray) -> np.ndarray:
    """Exact (n, 5) probabilities of finished games, for the side on roll of each board.

    A side with no checkers left has won; the loser is gammoned with none borne off and
    backgammoned if it also has a checker on the bar or in the winner's home board.
    """
    b = boards.astype(np.int64)
    own = np.clip(b, 0, None)
    opp = np.clip(-b, 0, None)
    own_left, opp_left = own.sum(axis=1), opp.sum(axis=1)
    won = own_left == 0
    lost = (opp_left == 0) & ~won
    opp_back = (opp[:, 0] > 0) | (opp[:, 1:7] > 0).any(axis=1)
    own_back = (own[:, 25] > 0) | (own[:, 19:25] > 0).any(axis=1)
    out = np.zeros((len(b), 5))
    out[:, 0] = won
    out[:, 1] = won & (opp_left == 15)
    out[:, 2] = won & (opp_left == 15) & opp_back
    out[:, 3] = lost & (own_left == 15)
    out[:, 4] = lost & (own_left == 15) & own_back
    return out


class Evaluator:
    """Composite evaluator: bearoff databases where they apply, else the contact or race net.

    Every probability is for the side on roll of the board given, before it rolls. The nets are
    numpy nets when loaded from a file, torch nets while training (:mod:`nets.model`).
    """

    def __init__(
        self,
        nets: Mapping[str, OutcomeNet],
        header: dict[str, Any] | None = None,
        one_sided: BearoffLookup | None = None,
        two_sided: BearoffLookup | None = None,
    ) -> None:
        missing = [n for n in PHASE_NETS if n not in nets]
        if missing:
            raise ValueError(f"evaluator needs nets for phases {missing}")
        self.nets: dict[str, OutcomeNet] = dict(nets)
        self.header = header or {}
        self.one_sided = one_sided
        self.two_sided = two_sided

    # --- static (0-ply) evaluation ------------------------------------------------------
    def net_probabilities(self, boards: np.ndarray, phase: str) -> np.ndarray:
        """Probabilities (n, 5) from one phase net, whatever the boards' true phase."""
        if len(boards) == 0:
            return np.zeros((0, 5))
        return self.nets[phase].probabilities(encode(boards))

    def evaluate_boards(self, boards: np.ndarray) -> np.ndarray:
        """0-ply probabilities (n, 5) of int8 (n, 26) boards, routed by phase."""
        boards = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 26)
        out = np.empty((len(boards), 5))
        ph = phases(boards)
        routes: list[tuple[np.ndarray, Any]] = [
            (ph == GamePhase.CONTACT, lambda b: self.net_probabilities(b, "contact")),
            (ph == GamePhase.OVER, game_over_probabilities),
        ]
        two, one = self.two_sided, self.one_sided
        race_mask = ph == GamePhase.RACE
        if two is not None:
            routes.append((ph == GamePhase.BEAROFF_TWO_SIDED, two.probabilities))
        else:
            race_mask |= ph == GamePhase.BEAROFF_TWO_SIDED
        if one is not None:
            routes.append((ph == GamePhase.BEAROFF_ONE_SIDED, one.probabilities))
        else:
            race_mask |= ph == GamePhase.BEAROFF_ONE_SIDED
        routes.append((race_mask, lambda b: self.net_probabilities(b, "race")))
        for mask, fn in routes:
            if mask.any():
                out[mask] = fn(boards[mask])
        return out

    def evaluate(self, position: Position) -> Probabilities:
        """0-ply probabilities of one position for its side on roll."""
        return Probabilities(*(float(v) for v in self.evaluate_boards(position.array[None])[0]))

    def evaluate_batch(self, positions: Sequence[Position] | np.ndarray) -> np.ndarray:
        """0-ply probabilities (n, 5) of many positions (or an int8 (n, 26) board array)."""
        if isinstance(positions, np.ndarray):
            return self.evaluate_boards(positions)
        return self.evaluate_boards(
            np.stack([p.array for p in positions]) if len(positions) else np.zeros((0, 26), np.int8)
        )

    # --- weights ---------------------------------------------------------------------------
    def to_bytes(self, run: dict[str, Any] | None = None, extra: dict[str, np.ndarray] | None = None) -> bytes:
        """The nets in the weights format with their architectures and ``run`` info.

        ``extra`` tensors (names starting with ``train.``: a run's optimiser and game state)
        travel in the same file so that a checkpoint is written in one atomic step.
        """
        tensors = {}
        nets_info = {}
        for name, net in self.nets.items():
            nets_info[name] = net.config.to_json()
            for k, v in net.tensors().items():
                tensors[f"{name}.{k}"] = v
        for key, value in (extra or {}).items():
            if not key.startswith(TRAINING_PREFIX):
                raise ValueError(f"extra tensor {key!r} must be named {TRAINING_PREFIX}...")
            tensors[key] = value
        header = {
            "encoding": ENCODING,
            "n_inputs": N_INPUTS,
            "nets": nets_info,
            "run": run or self.header.get("run", {}),
        }
        return encode_weights(header, tensors)

    def save(self, path: str | Path, run: dict[str, Any] | None = None) -> None:
        """Write the weights atomically to ``path``."""
        write_atomic(path, self.to_bytes(run))


def nets_from_bytes(data: bytes, source: str = "<bytes>") -> tuple[dict[str, OutcomeNet], dict[str, Any]]:
    """The phase nets a weights file describes and its header; raises InvalidWeights naming ``source``."""
    header, tensors = decode_weights(data, source)
    return nets_from_weights(header, tensors, source), header


def nets_from_weights(header: dict[str, Any], tensors: dict[str, np.ndarray], source: str) -> dict[str, OutcomeNet]:
    """The phase nets of a decoded weights file; raises InvalidWeights naming ``source``.

    The architecture is checked against the tensors in the file before any net is built, so
    the memory a net takes is bounded by the file's own size. Tensors other than the nets'
    must be a training run's state (``train.*``).
    """
    if header.get("encoding") != ENCODING or header.get("n_inputs") != N_INPUTS:
        raise InvalidWeights(
            f"{source}: encoding {header.get('encoding')!r} with {header.get('n_inputs')!r} inputs; "
            f"this code uses {ENCODING!r} with {N_INPUTS}"
        )
    described = header.get("nets")
    if not isinstance(described, dict) or set(described) != set(PHASE_NETS):
        names = sorted(described) if isinstance(described, dict) else described
        raise InvalidWeights(f"{source}: nets {names!r}, expected exactly {list(PHASE_NETS)}")
    if not isinstance(header.get("run", {}), dict):
        raise InvalidWeights(f"{source}: the run record is not a JSON object")
    nets: dict[str, OutcomeNet] = {}
    for name, description in described.items():
        try:
            config = NetConfig.from_json(description)
        except ValueError as exc:
            raise InvalidWeights(f"{source}: net {name!r}: {exc}") from None
        if config.n_inputs != N_INPUTS:
            raise InvalidWeights(f"{source}: net {name!r} has {config.n_inputs} inputs, this code uses {N_INPUTS}")
        expected = config.tensor_shapes()
        for key, shape in expected.items():
            found = tensors.get(f"{name}.{key}")
            if found is None or found.shape != shape or found.dtype != np.float32:
                got = None if found is None else (found.shape, str(found.dtype))
                raise InvalidWeights(f"{source}: tensor {name}.{key} should be float32 {shape}, found {got}")
            if found.size and float(np.abs(found).max()) > MAX_ABS_WEIGHT:
                raise InvalidWeights(
                    f"{source}: tensor {name}.{key} holds values of magnitude above {MAX_ABS_WEIGHT:g}, "
                    "far beyond a trained net's (its outputs could be NaN)"
                )
        nets[name] = FrozenNet(config, {key: tensors[f"{name}.{key}"] for key in expected})
    known = {f"{name}.{key}" for name, net in nets.items() for key in net.config.tensor_shapes()}
    stray = [k for k in tensors if k not in known and not k.startswith(TRAINING_PREFIX)]
    if stray:
        raise InvalidWeights(f"{source}: tensors {stray[:3]!r} belong to no net")
    return nets


def load_evaluator(path: str | Path | None = None, bearoff: bool = True) -> Evaluator:
    """Load the shipped default weights (or ``path``) as numpy nets; with ``bearoff`` use the exact databases.

    For torch nets on a device (a GPU), pass the result to :func:`nets.model.torch_evaluator`.
    """
    file = Path(path) if path is not None else DEFAULT_WEIGHTS
    if not file.is_file():
        raise InvalidWeights(f"weights file {str(file)!r} does not exist")
    nets, header = nets_from_bytes(file.read_bytes(), str(file))
    one = two = None
    if bearoff:
        from nets.databases import load_databases

        one, two = load_databases()
    return Evaluator(nets, header, one_sided=one, two_sided=two)
