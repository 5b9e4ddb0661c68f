"""The volatility net (experiment 5): never negative or NaN, finished games 0, files round-trip, torch twin agrees."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from engine.errors import InvalidWeights
from engine.position import Position
from nets.evaluator import PHASE_NETS, load_evaluator, nets_from_bytes
from nets.lookahead import best_children
from nets.volnet import (
    N_VOLNET_INPUTS,
    VolatilityNet,
    VolNetConfig,
    load_volatility_net,
    volatility_net_from_bytes,
    volnet_inputs,
)
from training.volnet import TorchVolNet
from weights import DEFAULT_WEIGHTS


def random_volnet(seed: int, hidden: tuple[int, ...], scale: float, output_bias: float) -> VolatilityNet:
    """Both phase nets with normal(0, scale) weights and the given output bias."""
    rng = np.random.default_rng(seed)
    configs, tensors = {}, {}
    for phase in PHASE_NETS:
        configs[phase] = VolNetConfig(N_VOLNET_INPUTS, hidden)
        shapes = configs[phase].tensor_shapes()
        tensors[phase] = {k: rng.normal(0, scale, shape).astype(np.float32) for k, shape in shapes.items()}
        tensors[phase][list(shapes)[-1]][:] = output_bias
    return VolatilityNet(configs, tensors, {"note": "random"})


def game_boards(n_games: int = 3, plies: int = 50) -> np.ndarray:
    """Boards from greedy 0-ply self-play (contact, races, bear-offs, finished games) and the opening position."""
    ev = load_evaluator()
    rng = np.random.default_rng(4)
    boards = np.repeat(Position.initial().array[None], n_games, axis=0)
    seen = [boards.copy()]
    for _ in range(plies):
        boards = best_children(ev, boards, rng.integers(1, 7, size=(n_games, 2)))
        seen.append(boards.copy())
    return np.concatenate(seen)


FINISHED = np.array([0] + [0] * 24 + [0], np.int8)
FINISHED[1:7] = -2  # the opponent has 12 checkers home and the side on roll none: it has won
FINISHED[6] = -5

NET_CASES = [
    # (hidden, weight scale, output bias): ordinary, strongly negative output, very large output
    ((8,), 0.1, 0.0),
    ((32, 16), 1.0, -60.0),
    ((4,), 3.0, 80.0),
    ((16, 8, 4), 0.5, -2.0),
]


@pytest.mark.parametrize(("hidden", "scale", "bias"), NET_CASES)
def test_volatility_is_finite_and_never_negative(hidden: tuple[int, ...], scale: float, bias: float) -> None:
    boards = game_boards()
    probs = load_evaluator().evaluate_boards(boards)
    vol = random_volnet(1, hidden, scale, bias).volatility(boards, probs)
    assert vol.shape == (len(boards),) and vol.dtype == np.float64
    assert np.isfinite(vol).all() and (vol >= 0).all()


def test_a_finished_game_has_no_volatility() -> None:
    net = random_volnet(2, (8,), 1.0, 5.0)  # softplus(5) > 4 for every live position
    live = Position.initial().array
    vol = net.volatility(np.stack([FINISHED, live]), np.array([[1.0, 0, 0, 0, 0], [0.5, 0.1, 0, 0.1, 0]]))
    assert vol[0] == 0.0 and vol[1] > 0.0


def test_file_round_trip_keeps_outputs(tmp_path: Path) -> None:
    net = random_volnet(3, (16,), 0.3, -1.0)
    path = tmp_path / "v.jgw"
    net.save(path)
    back = load_volatility_net(path)
    boards = game_boards(2, 30)
    probs = load_evaluator().evaluate_boards(boards)
    assert back.run == {"note": "random"}
    assert np.array_equal(back.volatility(boards, probs), net.volatility(boards, probs))


def test_torch_twin_agrees_with_the_frozen_net() -> None:
    torch.manual_seed(0)
    twin = TorchVolNet(VolNetConfig(N_VOLNET_INPUTS, (24, 12)))
    frozen = VolatilityNet({p: twin.config for p in PHASE_NETS}, {p: twin.tensors() for p in PHASE_NETS}, {})
    boards = game_boards(2, 30)
    x = volnet_inputs(boards, load_evaluator().evaluate_boards(boards))
    with torch.inference_mode():
        expected = twin(torch.from_numpy(x)).double().numpy()
    assert np.allclose(frozen.phase_volatility(x, "contact"), expected, rtol=1e-5, atol=1e-6)


def _corrupt_kind(data: bytes) -> bytes:
    return data.replace(b'"kind": "local-volatility"', b'"kind": "local-volatilitx"')


@pytest.mark.parametrize(
    ("make", "needle"),
    [
        (lambda: DEFAULT_WEIGHTS.read_bytes(), "kind None"),  # the outcome evaluator's file
        (lambda: _corrupt_kind(random_volnet(0, (4,), 1.0, 0.0).to_bytes()), "local-volatilitx"),
        (lambda: random_volnet(0, (4,), 1.0, 0.0).to_bytes()[:-8], "out of range"),
        (lambda: random_volnet(0, (4,), 1e5, 0.0).to_bytes(), "above"),
    ],
)
def test_bad_volatility_files_are_refused(make: object, needle: str) -> None:
    assert callable(make)
    with pytest.raises(InvalidWeights, match=needle):
        volatility_net_from_bytes(make(), "bad.jgw")


def test_the_evaluator_refuses_a_volatility_file() -> None:
    with pytest.raises(InvalidWeights, match="encoding"):
        nets_from_bytes(random_volnet(0, (4,), 1.0, 0.0).to_bytes(), "v.jgw")


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(InvalidWeights, match="nope.jgw"):
        load_volatility_net(tmp_path / "nope.jgw")
