"""Net outputs are consistent by construction; the numpy and torch nets agree; flipping and equity behave."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from benchmarks.positions import random_game_positions
from engine.batch import phases
from engine.position import GamePhase
from nets import load_evaluator, mlp
from nets.encoding import encode
from nets.mlp import MAX_LAYERS, FrozenNet, NetConfig, cubeless_equity, flip_probabilities
from nets.model import PhaseNet, consistent_probabilities, torch_evaluator, torch_net, torch_nets

logits = arrays(np.float32, (7, 5), elements=st.floats(-30, 30, width=32))
# Any float32 a net could output, including the extremes where a naive sigmoid overflows.
wide_logits = arrays(np.float32, (7, 5), elements=st.floats(allow_nan=False, allow_infinity=False, width=32))


@settings(max_examples=200)
@given(logits)
def test_gammons_never_exceed_wins(x: np.ndarray) -> None:
    for p in (consistent_probabilities(torch.from_numpy(x)).double().numpy(), mlp.consistent_probabilities(x)):
        win, wg, wbg, lg, lbg = p.T
        assert ((p >= 0) & (p <= 1)).all()
        assert (wg <= win + 1e-7).all() and (wbg <= wg + 1e-7).all()
        assert (lg <= 1 - win + 1e-6).all() and (lbg <= lg + 1e-7).all()


@settings(max_examples=200)
@given(wide_logits)
def test_numpy_and_torch_chained_sigmoids_agree(x: np.ndarray) -> None:
    with np.errstate(over="raise", invalid="raise", divide="raise"):  # no overflow warnings either
        mine = mlp.consistent_probabilities(x)
    theirs = consistent_probabilities(torch.from_numpy(x)).double().numpy()
    assert mine.dtype == np.float64
    np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-6)


architectures = st.builds(
    NetConfig,
    n_inputs=st.integers(1, 240),
    hidden=st.lists(st.integers(1, 96), min_size=1, max_size=MAX_LAYERS).map(tuple),
)


@settings(max_examples=60, deadline=None)
@given(architectures, st.integers(0, 2**31 - 1), st.integers(1, 200), st.sampled_from([0.0, 0.5, 0.85, 1.0]))
def test_numpy_net_agrees_with_the_torch_net(config: NetConfig, seed: int, rows: int, sparsity: float) -> None:
    """A numpy net built from a torch net's tensors gives its probabilities to 1e-6, and converts back exactly.

    Up to 200 rows crosses the numpy kernels' 64-row blocks; ``sparsity`` zeroes that share of the
    inputs, since the kernels skip zeros (encoded positions are about 83% zeros).
    """
    torch.manual_seed(seed)
    twin = PhaseNet(config).eval()
    frozen = FrozenNet(config, twin.tensors())
    rng = np.random.default_rng(seed)
    # Inputs in the range nets.encoding writes (-2.34 to 5.5 over positions from games): mostly units in [0, 1).
    scale = rng.choice([1.0, 1.0, 1.0, -2.5, 5.5], size=config.n_inputs)
    x = (rng.random((rows, config.n_inputs)) * scale).astype(np.float32)
    x[rng.random(x.shape) < sparsity] = 0.0
    mine, theirs = frozen.probabilities(x), twin.probabilities(x)
    assert mine.shape == theirs.shape == (rows, 5) and mine.dtype == theirs.dtype == np.float64
    np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-6)
    back = torch_net(frozen).tensors()
    assert list(back) == list(config.tensor_shapes())
    for name, tensor in frozen.tensors().items():
        assert back[name].dtype == np.float32 and np.array_equal(back[name], tensor), name


def test_shipped_nets_agree_with_their_torch_twins_on_positions_from_games() -> None:
    """Each shipped phase net, numpy and torch, on the positions of its phase met in seeded games: within 1e-6."""
    ev = load_evaluator(bearoff=False)
    boards, _ = random_game_positions(40)
    contact = phases(boards) == GamePhase.CONTACT
    for name, mask in (("contact", contact), ("race", ~contact)):
        assert mask.sum() > 100
        x = encode(boards[mask])
        mine, theirs = ev.nets[name].probabilities(x), torch_net(ev.nets[name]).probabilities(x)
        np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-6, err_msg=name)


def test_torch_evaluator_keeps_header_databases_and_values() -> None:
    """The torch route (``--device``) evaluates as the numpy nets do, with the same header and databases."""
    ev = load_evaluator()
    on_torch = torch_evaluator(ev, "cpu")
    assert on_torch.header is ev.header
    assert on_torch.one_sided is ev.one_sided is not None and on_torch.two_sided is ev.two_sided is not None
    assert set(torch_nets(on_torch)) == {"contact", "race"}
    with pytest.raises(TypeError, match="FrozenNet"):
        torch_nets(ev)
    boards, _ = random_game_positions(20)
    np.testing.assert_allclose(on_torch.evaluate_boards(boards), ev.evaluate_boards(boards), rtol=0, atol=1e-6)
    assert on_torch.to_bytes() == ev.to_bytes()  # byte for byte the same weights file


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t.pop("body.2.bias"), "do not match"),
        (lambda t: t.update({"body.4.weight": np.zeros((5, 3), np.float32)}), "do not match"),
        (lambda t: t.update({"body.0.weight": np.zeros((3, 4), np.float32)}), "should be float32 \\(3, 6\\)"),
        (lambda t: t.update({"body.2.bias": np.zeros(5, np.float64)}), "should be float32"),
    ],
)
def test_numpy_net_refuses_tensors_of_another_architecture(change: object, message: str) -> None:
    config = NetConfig(6, (3,))
    tensors = {name: np.zeros(shape, np.float32) for name, shape in config.tensor_shapes().items()}
    assert callable(change)
    change(tensors)
    with pytest.raises(ValueError, match=message):
        FrozenNet(config, tensors)


def test_numpy_net_weights_cannot_be_changed() -> None:
    config = NetConfig(4, (2,))
    tensors = {name: np.ones(shape, np.float32) for name, shape in config.tensor_shapes().items()}
    net = FrozenNet(config, tensors)
    x = np.ones((3, 4), np.float32)
    before = net.probabilities(x)
    with pytest.raises(ValueError, match="read-only"):
        net.tensors()["body.0.weight"][0, 0] = 5.0
    tensors["body.0.weight"][0, 0] = 5.0  # the caller's array is not the net's
    assert net.tensors()["body.0.weight"][0, 0] == 1.0
    assert np.array_equal(net.probabilities(x), before)


@given(logits)
def test_flip_is_an_involution_and_negates_equity(x: np.ndarray) -> None:
    p = mlp.consistent_probabilities(x)
    assert np.allclose(flip_probabilities(flip_probabilities(p)), p)
    assert np.allclose(cubeless_equity(flip_probabilities(p)), -cubeless_equity(p))


def test_equity_of_certain_outcomes() -> None:
    assert cubeless_equity(np.array([1.0, 0, 0, 0, 0])) == 1.0
    assert cubeless_equity(np.array([1.0, 1, 1, 0, 0])) == 3.0
    assert cubeless_equity(np.array([0.0, 0, 0, 1, 0])) == -2.0
