"""The composite evaluator: routes each position by game phase to a net or an exact value."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import numpy as np
from numba import njit

from engine.batch import crashed, phases
from engine.errors import InvalidWeights
from engine.position import GamePhase, PhaseName, Position
from nets.bearoff import load_databases
from nets.encoding import Encoding
from nets.mlp import FrozenNet, NetConfig, OutcomeNet, cubeless_equity
from nets.weights import decode_weights, encode_weights, write_atomic
from weights import DEFAULT_WEIGHTS

# v1: the encoding of every net written before v2, and of the volatility net
ENCODING = Encoding.V1
# Net names are PhaseName's values, as plain strings: the keys of Evaluator.nets and of the weights files.
PHASE_NETS: tuple[str, ...] = (PhaseName.CONTACT.value, PhaseName.RACE.value)  # the nets every evaluator holds
ALL_NETS: tuple[str, ...] = tuple(p.value for p in PhaseName)  # the nets it may hold: a crashed net is optional
# A phase whose net an evaluator lacks is judged by this one instead (nets from before crashed nets).
FALLBACK_NET: dict[str, str] = {PhaseName.CRASHED.value: PhaseName.CONTACT.value}
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


def possible_results(boards: np.ndarray, race: np.ndarray) -> np.ndarray:
    """Bool (n, 4): whether the side on roll can still win a gammon, win a backgammon, lose a gammon, lose a
    backgammon, by the rules alone.

    A side that has borne off a checker can no longer be gammoned (nor backgammoned). In a race
    (``race``: no contact, so no checker is ever hit again) a side with no checker on the bar or in
    the other side's home board can no longer get one there, so it cannot be backgammoned.
    """
    return _possible_results(np.ascontiguousarray(boards, dtype=np.int8), np.ascontiguousarray(race, dtype=np.bool_))


@njit(cache=True)
def _possible_results(boards: np.ndarray, race: np.ndarray) -> np.ndarray:
    # one pass a board (every evaluation calls this): the checkers each side has left, and whether it
    # has one back, on the bar or in the other side's home board (points 19 to 25 for the side on roll)
    out = np.empty((boards.shape[0], 4), np.bool_)
    for r in range(boards.shape[0]):
        own = opp = 0
        own_back = opp_back = False
        for point in range(26):
            v = boards[r, point]
            if v > 0:
                own += v
                own_back |= point >= 19
            elif v < 0:
                opp -= v
                opp_back |= point <= 6
        out[r, 0] = opp == 15
        out[r, 1] = opp == 15 and (opp_back or not race[r])
        out[r, 2] = own == 15
        out[r, 3] = own == 15 and (own_back or not race[r])
    return out


def within_rules(probs: np.ndarray, possible: np.ndarray) -> np.ndarray:
    """``probs`` (n, 5) with the gammon and backgammon chances the rules exclude (:func:`possible_results`) set to 0."""
    out = np.array(probs, dtype=np.float64, copy=True)
    out[:, 1:] *= possible
    return out


def net_routes(boards: np.ndarray, net_names: Sequence[str], bearoff: tuple[bool, bool]) -> dict[str, np.ndarray]:
    """Bool masks (n,) of the int8 (n, 26) boards each net of ``net_names`` judges (missing nets' go to their fallback).

    Contact positions go to the crashed net when either side is crashed (gnubg's class) and a crashed
    net is among ``net_names``, else to the contact net; races to the race net, and so do the bearoff
    positions whose database is missing (``bearoff``: one-sided, two-sided loaded). Finished games
    and database positions are in no mask.
    """
    ph = phases(boards)
    contact = ph == GamePhase.CONTACT
    race = ph == GamePhase.RACE
    if not bearoff[0]:
        race |= ph == GamePhase.BEAROFF_ONE_SIDED
    if not bearoff[1]:
        race |= ph == GamePhase.BEAROFF_TWO_SIDED
    routes: dict[str, np.ndarray] = {PhaseName.CONTACT: contact, PhaseName.RACE: race}
    if PhaseName.CRASHED in net_names and contact.any():
        smashed = contact & crashed(boards)
        routes[PhaseName.CRASHED] = smashed
        routes[PhaseName.CONTACT] = contact & ~smashed
    return routes


def encoding_of(header: dict[str, Any], source: str) -> Encoding:
    """The encoding a weights header names, checked against its input count; raises InvalidWeights naming ``source``."""
    name = header.get("encoding")
    known = {e.value: e for e in Encoding}
    if not isinstance(name, str) or name not in known or header.get("n_inputs") != known[name].n_inputs:
        raise InvalidWeights(
            f"{source}: encoding {name!r} with {header.get('n_inputs')!r} inputs; this code reads "
            + ", ".join(f"{e.value!r} with {e.n_inputs}" for e in Encoding)
        )
    return known[name]


class Evaluator:
    """Composite evaluator: bearoff databases where they apply, else the contact, crashed or race net.

    Every probability is for the side on roll of the board given, before it rolls. The nets are
    numpy nets when loaded from a file, torch nets while training (:mod:`nets.model`); all of them
    read positions in ``encoding``. Without a crashed net the contact net judges crashed positions.
    """

    def __init__(
        self,
        nets: Mapping[str, OutcomeNet],
        header: dict[str, Any] | None = None,
        one_sided: BearoffLookup | None = None,
        two_sided: BearoffLookup | None = None,
        encoding: Encoding = Encoding.V1,
    ) -> None:
        missing = [n for n in PHASE_NETS if n not in nets]
        unknown = [n for n in nets if n not in ALL_NETS]
        if missing or unknown:
            raise ValueError(f"evaluator needs nets {list(PHASE_NETS)} (crashed optional), got {sorted(nets)}")
        wrong = {n: net.config.n_inputs for n, net in nets.items() if net.config.n_inputs != encoding.n_inputs}
        if wrong:
            raise ValueError(f"nets {wrong} (inputs) do not read {encoding.value!r} ({encoding.n_inputs} inputs)")
        self.nets: dict[str, OutcomeNet] = {name: nets[name] for name in ALL_NETS if name in nets}
        self.header = header or {}
        self.one_sided = one_sided
        self.two_sided = two_sided
        self.encoding = encoding

    # --- static (0-ply) evaluation ------------------------------------------------------
    def net_probabilities(self, boards: np.ndarray, phase: str) -> np.ndarray:
        """Probabilities (n, 5) from one phase net (or its fallback when missing), whatever the boards' true phase."""
        if len(boards) == 0:
            return np.zeros((0, 5))
        name = phase if phase in self.nets else FALLBACK_NET[phase]
        return self.nets[name].probabilities(self.encoding.inputs(boards))

    def routes(self, boards: np.ndarray) -> dict[str, np.ndarray]:
        """Bool masks (n,) of the int8 (n, 26) boards each of this evaluator's nets judges (:func:`net_routes`)."""
        return net_routes(boards, tuple(self.nets), (self.one_sided is not None, self.two_sided is not None))

    def evaluate_boards(self, boards: np.ndarray) -> np.ndarray:
        """0-ply probabilities (n, 5) of int8 (n, 26) boards, routed by phase."""
        boards = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 26)
        out = np.empty((len(boards), 5))
        ph = phases(boards)
        net_masks = self.routes(boards)
        routes: list[tuple[np.ndarray, Any]] = [
            (mask, lambda b, name=name: self.net_probabilities(b, name)) for name, mask in net_masks.items()
        ]
        routes.append((ph == GamePhase.OVER, game_over_probabilities))
        two, one = self.two_sided, self.one_sided
        if two is not None:
            routes.append((ph == GamePhase.BEAROFF_TWO_SIDED, two.probabilities))
        if one is not None:
            routes.append((ph == GamePhase.BEAROFF_ONE_SIDED, one.probabilities))
        for mask, fn in routes:
            if mask.any():
                out[mask] = fn(boards[mask])
        # The nets' positions (bear-offs too where their database is missing): a net may give weight to a result
        # the rules exclude.
        judged = np.logical_or.reduce([*net_masks.values(), np.zeros(len(boards), bool)])
        if judged.any():
            race = ph[judged] != GamePhase.CONTACT
            out[judged] = within_rules(out[judged], possible_results(boards[judged], race))
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
            "encoding": self.encoding.value,
            "n_inputs": self.encoding.n_inputs,
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


def evaluator_from_bytes(data: bytes, source: str = "<bytes>") -> Evaluator:
    """An evaluator (numpy nets, no databases) of a weights file's bytes; raises InvalidWeights naming ``source``."""
    nets, header = nets_from_bytes(data, source)
    return Evaluator(nets, header, encoding=encoding_of(header, source))


def nets_from_weights(header: dict[str, Any], tensors: dict[str, np.ndarray], source: str) -> dict[str, OutcomeNet]:
    """The phase nets of a decoded weights file; raises InvalidWeights naming ``source``.

    The architecture is checked against the tensors in the file before any net is built, so
    the memory a net takes is bounded by the file's own size. Tensors other than the nets'
    must be a training run's state (``train.*``).
    """
    encoding = encoding_of(header, source)
    described = header.get("nets")
    if not isinstance(described, dict) or not set(PHASE_NETS) <= set(described) or not set(described) <= set(ALL_NETS):
        names = sorted(described) if isinstance(described, dict) else described
        raise InvalidWeights(f"{source}: nets {names!r}, expected exactly {list(PHASE_NETS)} or {list(ALL_NETS)}")
    if not isinstance(header.get("run", {}), dict):
        raise InvalidWeights(f"{source}: the run record is not a JSON object")
    nets: dict[str, OutcomeNet] = {}
    for name, description in described.items():
        try:
            config = NetConfig.from_json(description)
        except ValueError as exc:
            raise InvalidWeights(f"{source}: net {name!r}: {exc}") from None
        if config.n_inputs != encoding.n_inputs:
            raise InvalidWeights(
                f"{source}: net {name!r} has {config.n_inputs} inputs, {encoding.value!r} has {encoding.n_inputs}"
            )
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
    ev = evaluator_from_bytes(file.read_bytes(), str(file))
    if bearoff:
        ev.one_sided, ev.two_sided = load_databases()
    return ev
