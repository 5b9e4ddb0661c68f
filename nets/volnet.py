"""A learned local jump volatility (experiment 5): small nets standing in for the 441-roll lookahead.

The jump-model paper suggests learning a position's local jump volatility as a function of the
position. The target is exactly what ``jump-local`` takes from the lookahead: sigma_J, the
standard deviation of the side on roll's cubeless win chance over the 441 pairs of rolls
(:mod:`nets.volatility`), in probability units. One MLP per phase (``contact``, and ``race``
for every non-contact position; a finished game has volatility 0) reads the position's
encoding (:mod:`nets.encoding`) followed by its five 0-ply probabilities, which the caller has
anyway, and gives softplus of its one output, so the volatility is never negative.

Files use the weights format (:mod:`nets.weights`) with a header of their own kind
(:data:`VOLNET_KIND`), so neither loader accepts the other's files. Inference is numpy and the
compiled layer kernel of :mod:`nets.mlp` (no torch); the torch twin for training is
:mod:`training.volnet`, which names its tensors alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engine.batch import phases
from engine.errors import InvalidWeights
from engine.position import GamePhase, PhaseName
from nets.encoding import N_INPUTS, encode
from nets.evaluator import ENCODING, MAX_ABS_WEIGHT, PHASE_NETS
from nets.mlp import OUTPUTS, check_hidden, forward_layers, frozen_layers, layer_shapes
from nets.weights import decode_weights, encode_weights, write_atomic
from weights import VOLATILITY_WEIGHTS

VOLNET_KIND = "local-volatility"
VOLNET_TARGET = "sigma_J: SD of the side on roll's 0-ply P(win) over the 441 roll pairs"
N_VOLNET_INPUTS = N_INPUTS + len(OUTPUTS)  # the encoding, then the five 0-ply probabilities
# The shipped volatility net (a package file, so a wheel carries it): the one experiment 5 trained.
DEFAULT_VOLNET = VOLATILITY_WEIGHTS


@dataclass(frozen=True)
class VolNetConfig:
    """Architecture of one phase's volatility net: inputs, hidden layer widths (one output)."""

    n_inputs: int = N_VOLNET_INPUTS
    hidden: tuple[int, ...] = (64,)

    def __post_init__(self) -> None:
        check_hidden(self.hidden)

    def tensor_shapes(self) -> dict[str, tuple[int, ...]]:
        """Name and shape of every tensor, in layer order (torch's names)."""
        return layer_shapes([self.n_inputs, *self.hidden, 1])

    def to_json(self) -> dict[str, Any]:
        """JSON-ready description."""
        return {"n_inputs": self.n_inputs, "hidden": list(self.hidden)}

    @classmethod
    def from_json(cls, data: object) -> VolNetConfig:
        """Inverse of :meth:`to_json`; raises ValueError on a malformed description."""
        if not isinstance(data, dict) or set(data) != {"n_inputs", "hidden"}:
            raise ValueError(f"architecture {data!r} is not {{'n_inputs': N, 'hidden': [...]}}")
        n_inputs, hidden = data["n_inputs"], data["hidden"]
        if n_inputs != N_VOLNET_INPUTS or not isinstance(hidden, list):
            raise ValueError(f"architecture {data!r}: expected {N_VOLNET_INPUTS} inputs and a list of widths")
        return cls(n_inputs, tuple(hidden))


def volnet_inputs(boards: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """Float32 (n, N_VOLNET_INPUTS): each board's encoding (side on roll) and its five 0-ply probabilities."""
    x = np.empty((len(boards), N_VOLNET_INPUTS), np.float32)
    x[:, :N_INPUTS] = encode(boards)
    x[:, N_INPUTS:] = probabilities
    return x


def softplus(z: np.ndarray) -> np.ndarray:
    """log(1 + e^z) in float64, without overflow."""
    return np.logaddexp(0.0, np.asarray(z, np.float64))


def phase_routes(boards: np.ndarray) -> dict[str, np.ndarray]:
    """Boolean masks of the boards each phase net judges: contact, and race for every other unfinished one."""
    ph = phases(boards)
    return {
        PhaseName.CONTACT: ph == GamePhase.CONTACT,
        PhaseName.RACE: (ph != GamePhase.CONTACT) & (ph != GamePhase.OVER),
    }


class VolatilityNet:
    """The learned local volatility, one frozen net per phase; ``volatility`` answers for many boards at once."""

    def __init__(
        self, configs: dict[str, VolNetConfig], tensors: dict[str, dict[str, np.ndarray]], run: dict[str, Any]
    ) -> None:
        """Raises ValueError unless both phases have exactly the float32 tensors their architecture describes."""
        if set(configs) != set(PHASE_NETS) or set(tensors) != set(PHASE_NETS):
            raise ValueError(f"a volatility net needs exactly the phases {list(PHASE_NETS)}")
        self.configs = dict(configs)
        self.run = dict(run)
        self._layers = {name: frozen_layers(tensors[name], configs[name].tensor_shapes()) for name in PHASE_NETS}

    def phase_volatility(self, x: np.ndarray, phase: str) -> np.ndarray:
        """Float64 (n,) volatility from one phase net for float32 (n, N_VOLNET_INPUTS) inputs, whatever the phase."""
        if len(x) == 0:
            return np.zeros(0)
        return softplus(forward_layers(x, self._layers[phase])[:, 0])

    def volatility(self, boards: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
        """Float64 (n,) local volatility (>= 0) of int8 (n, 26) boards for their side on roll.

        ``probabilities`` are the boards' (n, 5) 0-ply probabilities from the evaluator the net was
        trained with; finished games get 0.
        """
        boards = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 26)
        probabilities = np.asarray(probabilities, np.float64).reshape(len(boards), len(OUTPUTS))
        out = np.zeros(len(boards))
        for phase, mask in phase_routes(boards).items():
            if mask.any():
                out[mask] = self.phase_volatility(volnet_inputs(boards[mask], probabilities[mask]), phase)
        return out

    def tensors(self) -> dict[str, np.ndarray]:
        """Float32 weights by ``PHASE.body.K.weight`` / ``.bias`` name, as a file stores them."""
        out = {}
        for phase, layers in self._layers.items():
            for k, layer in enumerate(layers):
                out[f"{phase}.body.{2 * k}.weight"] = layer.weight
                out[f"{phase}.body.{2 * k}.bias"] = layer.bias
        return out

    def to_bytes(self) -> bytes:
        """The nets in the weights format, with their architectures, target and run record."""
        header = {
            "kind": VOLNET_KIND,
            "target": VOLNET_TARGET,
            "encoding": ENCODING,
            "n_inputs": N_VOLNET_INPUTS,
            "nets": {name: c.to_json() for name, c in self.configs.items()},
            "run": self.run,
        }
        return encode_weights(header, self.tensors())

    def save(self, path: str | Path) -> None:
        """Write the nets atomically to ``path``."""
        write_atomic(path, self.to_bytes())


def volatility_net_from_bytes(data: bytes, source: str = "<bytes>") -> VolatilityNet:
    """The volatility net a weights file holds; raises InvalidWeights naming ``source``."""
    header, tensors = decode_weights(data, source)
    if header.get("kind") != VOLNET_KIND:
        raise InvalidWeights(f"{source}: a weights file of kind {header.get('kind')!r}, not {VOLNET_KIND!r}")
    if header.get("encoding") != ENCODING or header.get("n_inputs") != N_VOLNET_INPUTS:
        raise InvalidWeights(
            f"{source}: encoding {header.get('encoding')!r} with {header.get('n_inputs')!r} inputs; "
            f"this code uses {ENCODING!r} with {N_VOLNET_INPUTS}"
        )
    described, run = header.get("nets"), header.get("run", {})
    if not isinstance(described, dict) or set(described) != set(PHASE_NETS) or not isinstance(run, dict):
        raise InvalidWeights(f"{source}: expected nets {list(PHASE_NETS)} and a run record object")
    configs: dict[str, VolNetConfig] = {}
    per_phase: dict[str, dict[str, np.ndarray]] = {}
    for name, description in described.items():
        try:
            configs[name] = VolNetConfig.from_json(description)
        except ValueError as exc:
            raise InvalidWeights(f"{source}: net {name!r}: {exc}") from None
        per_phase[name] = {}
        for key, shape in configs[name].tensor_shapes().items():
            found = tensors.pop(f"{name}.{key}", None)
            if found is None or found.shape != shape or found.dtype != np.float32:
                got = None if found is None else (found.shape, str(found.dtype))
                raise InvalidWeights(f"{source}: tensor {name}.{key} should be float32 {shape}, found {got}")
            if found.size and float(np.abs(found).max()) > MAX_ABS_WEIGHT:
                raise InvalidWeights(f"{source}: tensor {name}.{key} holds values above {MAX_ABS_WEIGHT:g}")
            per_phase[name][key] = found
    if tensors:
        raise InvalidWeights(f"{source}: tensors {sorted(tensors)[:3]!r} belong to no net")
    return VolatilityNet(configs, per_phase, run)


def load_volatility_net(path: str | Path | None = None) -> VolatilityNet:
    """Load a volatility net file (default :data:`DEFAULT_VOLNET`); raises InvalidWeights naming it."""
    file = Path(path) if path is not None else DEFAULT_VOLNET
    if not file.is_file():
        raise InvalidWeights(f"volatility net {str(file)!r} does not exist (`jumpgammon experiment volnet` trains one)")
    return volatility_net_from_bytes(file.read_bytes(), str(file))
