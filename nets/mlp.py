"""Phase-net architecture and torch-free inference: a frozen MLP giving five consistent probabilities.

Evaluation runs on :class:`FrozenNet` (float32 weights, a compiled layer kernel), so commands that
only evaluate never load torch; training uses the torch twin in :mod:`nets.model`. Both satisfy
:class:`OutcomeNet` and name their tensors alike (``body.0.weight``, ``body.0.bias``, ...), so
weights files are the same whichever wrote them.

The layers are numba loops rather than BLAS matrix products: they skip the inputs that are zero
(about 84% of the encoded units, and the units a ReLU cut), which makes them about twice as fast
as OpenBLAS here, and they run on numba's threads like the encoding, so no second thread pool
spins against it for the two cores. A narrow layer (the five outputs) is a dot product per output
instead, over contiguous weights, which is four times as fast as skipping zeros for it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import NamedTuple, Protocol

import numpy as np
from numba import njit, prange

from cube.gamestate import flip_outcomes, outcome_equity

# The evaluator's names for the two outcome operations, which live in cube.gamestate (unchecked
# variants: the inputs here are the nets' own outputs).
flip_probabilities = flip_outcomes
cubeless_equity = outcome_equity

OUTPUTS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
MAX_LAYERS = 4  # hidden layers a net may have
MAX_WIDTH = 2048  # units in one hidden layer


@dataclass(frozen=True)
class NetConfig:
    """Architecture of one phase net: inputs, hidden layer widths."""

    n_inputs: int
    hidden: tuple[int, ...] = (128, 64)

    def to_json(self) -> dict[str, object]:
        """JSON-ready description."""
        d = asdict(self)
        d["hidden"] = list(self.hidden)
        return d

    def __post_init__(self) -> None:
        check_hidden(self.hidden)

    @classmethod
    def from_json(cls, data: object) -> NetConfig:
        """Inverse of :meth:`to_json`; raises ValueError on a malformed or oversized description."""
        if not isinstance(data, dict) or set(data) != {"n_inputs", "hidden"}:
            raise ValueError(f"architecture {data!r} is not {{'n_inputs': N, 'hidden': [...]}}")
        n_inputs, hidden = data["n_inputs"], data["hidden"]
        if not _is_int(n_inputs) or not isinstance(hidden, list) or not all(_is_int(h) for h in hidden):
            raise ValueError(f"architecture {data!r} must give integer sizes")
        return cls(n_inputs=n_inputs, hidden=tuple(hidden))

    def tensor_shapes(self) -> dict[str, tuple[int, ...]]:
        """Name and shape of every tensor of a net with this architecture, in layer order."""
        return layer_shapes([self.n_inputs, *self.hidden, len(OUTPUTS)])


def layer_shapes(widths: list[int]) -> dict[str, tuple[int, ...]]:
    """Name and shape of every tensor of an MLP with these layer widths (inputs first), torch's names."""
    shapes: dict[str, tuple[int, ...]] = {}
    for layer, (w_in, w_out) in enumerate(zip(widths, widths[1:], strict=False)):
        shapes[f"body.{2 * layer}.weight"] = (w_out, w_in)
        shapes[f"body.{2 * layer}.bias"] = (w_out,)
    return shapes


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_hidden(hidden: tuple[int, ...]) -> tuple[int, ...]:
    """Return ``hidden`` if it is 1 to MAX_LAYERS widths of 1 to MAX_WIDTH; raises ValueError naming it."""
    if not 1 <= len(hidden) <= MAX_LAYERS or not all(_is_int(h) and 1 <= h <= MAX_WIDTH for h in hidden):
        raise ValueError(f"hidden layers {list(hidden)!r}: give 1 to {MAX_LAYERS} widths of 1 to {MAX_WIDTH}")
    return hidden


class OutcomeNet(Protocol):
    """A phase net as the evaluator uses it, numpy or torch alike."""

    @property
    def config(self) -> NetConfig: ...

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """Float64 (n, 5) probabilities for the side on roll of float32 (n, n_inputs) encoded positions."""
        ...

    def tensors(self) -> dict[str, np.ndarray]:
        """Float32 weights and biases by name (:meth:`NetConfig.tensor_shapes`), as a weights file stores them."""
        ...


def _sigmoid(x: np.ndarray) -> np.ndarray:
    """Logistic function without overflow for logits of any size."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def consistent_probabilities(logits: np.ndarray) -> np.ndarray:
    """Map (n, 5) logits to float64 (n, 5) probabilities with gammon <= win and backgammon <= gammon.

    Chained sigmoids: win, then the gammon share of wins, then the backgammon share of gammons,
    and the same for losses, so the orderings hold by construction.
    """
    s = _sigmoid(np.asarray(logits, np.float64))
    out = np.empty_like(s)
    out[:, 0] = s[:, 0]
    out[:, 1] = out[:, 0] * s[:, 1]
    out[:, 2] = out[:, 1] * s[:, 2]
    out[:, 3] = (1.0 - out[:, 0]) * s[:, 3]
    out[:, 4] = out[:, 3] * s[:, 4]
    return out


NARROW = 8  # layers with at most this many outputs use the dot-product kernel


class DenseLayer(NamedTuple):
    """One frozen layer: float32 read-only weights as (out, in) and transposed (in, out), and the bias."""

    weight: np.ndarray
    weight_t: np.ndarray
    bias: np.ndarray


ROW_BLOCK = 64  # rows per parallel task: scratch buffers are allocated once per block, not per row
UNROLL = 4  # non-zero inputs folded into each pass over a weight row's outputs


@njit(cache=True, inline="always", fastmath=True)
def _sparse_affine(
    x_row: np.ndarray, weight_t: np.ndarray, bias: np.ndarray, acc: np.ndarray, idx: np.ndarray, val: np.ndarray
) -> None:
    """Write ``x_row @ weight_t + bias`` into ``acc``, walking only the non-zero inputs.

    The non-zeros are first gathered into ``idx``/``val`` without branches (the sign pattern of a
    hidden layer is unpredictable), then applied ``UNROLL`` at a time so each pass over ``acc``
    does several multiply-adds per load and store. ``idx``/``val`` need ``len(x_row) + UNROLL`` slots.
    """
    m = 0
    for k in range(x_row.shape[0]):
        v = x_row[k]
        idx[m] = k
        val[m] = v
        m += v != 0.0
    for q in range(m, m + UNROLL):  # pad with zero weights so the unrolled loop needs no tail
        idx[q] = 0
        val[q] = 0.0
    for j in range(acc.shape[0]):
        acc[j] = bias[j]
    for q in range(0, m, UNROLL):
        k0, k1, k2, k3 = idx[q], idx[q + 1], idx[q + 2], idx[q + 3]
        v0, v1, v2, v3 = val[q], val[q + 1], val[q + 2], val[q + 3]
        for j in range(acc.shape[0]):
            acc[j] += v0 * weight_t[k0, j] + v1 * weight_t[k1, j] + v2 * weight_t[k2, j] + v3 * weight_t[k3, j]


@njit(cache=True, parallel=True, fastmath=True)
def _dense(x: np.ndarray, weight_t: np.ndarray, bias: np.ndarray, relu: bool) -> np.ndarray:
    """``x @ weight_t + bias`` (float32, ReLU applied if ``relu``), zero inputs skipped."""
    n, n_in = x.shape
    n_out = weight_t.shape[1]
    out = np.empty((n, n_out), np.float32)
    for block in prange((n + ROW_BLOCK - 1) // ROW_BLOCK):
        acc = np.empty(n_out, np.float32)
        idx = np.empty(n_in + UNROLL, np.int64)
        val = np.empty(n_in + UNROLL, np.float32)
        for r in range(block * ROW_BLOCK, min(n, (block + 1) * ROW_BLOCK)):
            _sparse_affine(x[r], weight_t, bias, acc, idx, val)
            for j in range(n_out):
                out[r, j] = max(acc[j], np.float32(0.0)) if relu else acc[j]
    return out


@njit(cache=True, parallel=True, fastmath=True)
def _two_hidden(
    x: np.ndarray, w0_t: np.ndarray, b0: np.ndarray, w1_t: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray
) -> np.ndarray:
    """Outputs (float32, no activation) of an input -> ReLU -> ReLU -> linear MLP, one fused pass per row.

    Fusing keeps both hidden layers in per-thread scratch instead of writing them out as
    (n, width) arrays, and skips the zeros of each layer's input.
    """
    n, n_in = x.shape
    h0, h1, n_out = w0_t.shape[1], w1_t.shape[1], w2.shape[0]
    out = np.empty((n, n_out), np.float32)
    for block in prange((n + ROW_BLOCK - 1) // ROW_BLOCK):
        a0 = np.empty(h0, np.float32)
        a1 = np.empty(h1, np.float32)
        idx = np.empty(max(n_in, h0) + UNROLL, np.int64)
        val = np.empty(max(n_in, h0) + UNROLL, np.float32)
        for r in range(block * ROW_BLOCK, min(n, (block + 1) * ROW_BLOCK)):
            _sparse_affine(x[r], w0_t, b0, a0, idx, val)
            for j in range(h0):
                a0[j] = max(a0[j], np.float32(0.0))
            _sparse_affine(a0, w1_t, b1, a1, idx, val)
            for j in range(h1):
                a1[j] = max(a1[j], np.float32(0.0))
            for o in range(n_out):
                total = b2[o]
                for j in range(h1):
                    total += a1[j] * w2[o, j]
                out[r, o] = total
    return out


@njit(cache=True, parallel=True, fastmath=True)
def _dense_narrow(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, relu: bool) -> np.ndarray:
    """``x @ weight.T + bias`` (float32, ReLU applied if ``relu``) as one dot product per row and output."""
    n, n_in = x.shape
    n_out = weight.shape[0]
    out = np.empty((n, n_out), np.float32)
    for r in prange(n):
        for j in range(n_out):
            total = np.float32(0.0)
            for k in range(n_in):
                total += x[r, k] * weight[j, k]
            total += bias[j]
            out[r, j] = total if (total > 0.0 or not relu) else np.float32(0.0)
    return out


def frozen_layers(tensors: dict[str, np.ndarray], shapes: dict[str, tuple[int, ...]]) -> list[DenseLayer]:
    """Read-only float32 layers from ``tensors`` named as ``shapes`` lists them (weight, bias, weight, ...).

    Raises ValueError unless ``tensors`` holds exactly those float32 tensors with those shapes.
    """
    if set(tensors) != set(shapes):
        raise ValueError(f"tensors {sorted(tensors)} do not match the architecture's {sorted(shapes)}")
    for name, shape in shapes.items():
        found = tensors[name]
        if found.shape != shape or found.dtype != np.float32:
            raise ValueError(f"tensor {name} should be float32 {shape}, found {found.dtype} {found.shape}")
    names = list(shapes)
    # Row k of w.T holds input k's weights, which is what the zero-skipping kernel walks.
    return [
        DenseLayer(
            _read_only(np.array(tensors[w], order="C", copy=True)),
            _read_only(np.ascontiguousarray(tensors[w].T)),
            _read_only(tensors[b].copy()),
        )
        for w, b in zip(names[::2], names[1::2], strict=True)
    ]


def forward_layers(x: np.ndarray, layers: list[DenseLayer]) -> np.ndarray:
    """Float32 outputs of an MLP (ReLU between layers, none after the last) for float32 (n, n_inputs) inputs."""
    h = np.ascontiguousarray(x, np.float32)
    if len(layers) == 3 and layers[2].weight.shape[0] <= NARROW:
        first, second, third = layers
        return _two_hidden(h, first.weight_t, first.bias, second.weight_t, second.bias, third.weight, third.bias)
    last = len(layers) - 1
    for index, layer in enumerate(layers):
        if layer.weight.shape[0] <= NARROW:
            h = _dense_narrow(h, layer.weight, layer.bias, index < last)
        else:
            h = _dense(h, layer.weight_t, layer.bias, index < last)
    return h


class FrozenNet:
    """An MLP (ReLU hidden layers) for inference without torch; weights are float32 and never change."""

    def __init__(self, config: NetConfig, tensors: dict[str, np.ndarray]) -> None:
        """Raises ValueError unless ``tensors`` holds exactly the float32 tensors ``config`` describes."""
        self._config = config
        self._layers = frozen_layers(tensors, config.tensor_shapes())

    @property
    def config(self) -> NetConfig:
        """The architecture."""
        return self._config

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """Float64 (n, 5) probabilities for the side on roll of float32 (n, n_inputs) encoded positions."""
        return consistent_probabilities(forward_layers(x, self._layers))

    def tensors(self) -> dict[str, np.ndarray]:
        """Float32 weights and biases by name (:meth:`NetConfig.tensor_shapes`), as read-only views."""
        out = {}
        for index, layer in enumerate(self._layers):
            out[f"body.{2 * index}.weight"] = layer.weight
            out[f"body.{2 * index}.bias"] = layer.bias
        return out


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array
