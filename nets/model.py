"""Torch phase nets for training, and the conversions between them and the numpy nets evaluation uses."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from nets.encoding import Encoding
from nets.evaluator import PHASE_NETS, Evaluator
from nets.mlp import NetConfig, OutcomeNet


def consistent_probabilities(logits: torch.Tensor) -> torch.Tensor:
    """Map (n, 5) logits to (n, 5) probabilities with gammon <= win and backgammon <= gammon.

    The torch form of :func:`nets.mlp.consistent_probabilities` (chained sigmoids), differentiable
    for training.
    """
    s = torch.sigmoid(logits)
    win = s[:, 0]
    wg = win * s[:, 1]
    wbg = wg * s[:, 2]
    lg = (1.0 - win) * s[:, 3]
    lbg = lg * s[:, 4]
    return torch.stack([win, wg, wbg, lg, lbg], dim=1)


def relu_mlp(n_inputs: int, hidden: Sequence[int], n_outputs: int) -> nn.Sequential:
    """Linear layers of widths ``hidden`` with a ReLU after each, then a linear layer to ``n_outputs`` raw outputs."""
    layers: list[nn.Module] = []
    width = n_inputs
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    layers.append(nn.Linear(width, n_outputs))
    return nn.Sequential(*layers)


def float32_tensors(module: nn.Module) -> dict[str, np.ndarray]:
    """Float32 numpy copies of ``module``'s parameters and buffers, by their state-dict names."""
    return {k: v.detach().cpu().numpy().astype(np.float32) for k, v in module.state_dict().items()}


class PhaseNet(nn.Module):
    """An MLP from encoded positions to the five probabilities (side on roll, before rolling)."""

    def __init__(self, config: NetConfig) -> None:
        super().__init__()
        self.config = config
        self.body = relu_mlp(config.n_inputs, config.hidden, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Probabilities (n, 5) for the side on roll."""
        return consistent_probabilities(self.body(x))

    @property
    def device(self) -> torch.device:
        """The device holding the net's parameters."""
        return next(self.parameters()).device

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """Float64 (n, 5) probabilities for the side on roll of float32 (n, n_inputs) encoded positions."""
        with torch.inference_mode():
            return self(torch.from_numpy(x).to(self.device)).double().cpu().numpy()

    def tensors(self) -> dict[str, np.ndarray]:
        """Float32 copies of the weights and biases by name (:meth:`NetConfig.tensor_shapes`)."""
        return float32_tensors(self)


def torch_net(net: OutcomeNet, device: str = "cpu") -> PhaseNet:
    """A torch net on ``device`` with ``net``'s architecture and weights, in eval mode."""
    out = PhaseNet(net.config)
    out.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in net.tensors().items()})
    return out.to(device).eval()


def torch_evaluator(ev: Evaluator, device: str = "cpu") -> Evaluator:
    """``ev`` with its phase nets as torch nets on ``device`` (same header and databases)."""
    nets = {name: torch_net(net, device) for name, net in ev.nets.items()}
    return Evaluator(nets, ev.header, one_sided=ev.one_sided, two_sided=ev.two_sided, encoding=ev.encoding)


def torch_nets(ev: Evaluator) -> dict[str, PhaseNet]:
    """The evaluator's phase nets, which must be torch nets (a training run's); raises TypeError otherwise."""
    nets = {}
    for name, net in ev.nets.items():
        if not isinstance(net, PhaseNet):
            raise TypeError(f"net {name!r} is a {type(net).__name__}, not a torch PhaseNet")
        nets[name] = net
    return nets


def new_evaluator(
    hidden: tuple[int, ...] = (128, 64),
    seed: int = 0,
    device: str = "cpu",
    encoding: Encoding = Encoding.V1,
    names: Sequence[str] = PHASE_NETS,
) -> Evaluator:
    """An evaluator with freshly initialised torch nets ``names`` reading ``encoding``, on ``device`` (for training)."""
    torch.manual_seed(seed)
    nets = {name: PhaseNet(NetConfig(encoding.n_inputs, hidden)).to(device).eval() for name in names}
    return Evaluator(nets, encoding=encoding)


def recoded_tensors(tensors: dict[str, np.ndarray], config: NetConfig, encoding: Encoding) -> dict[str, np.ndarray]:
    """The tensors of the same net reading ``encoding`` instead of v1, computing exactly the same function.

    v2 keeps v1's inputs first and in place, so the inputs it adds get zero weights (the gradient
    grows them). Raises ValueError for any other change of encoding.
    """
    if config.n_inputs == encoding.n_inputs:
        return {k: v.copy() for k, v in tensors.items()}
    if config.n_inputs != Encoding.V1.n_inputs or encoding is not Encoding.V2:
        raise ValueError(f"a net of {config.n_inputs} inputs cannot be re-encoded to {encoding.value!r}")
    out = {k: v.copy() for k, v in tensors.items()}
    first = tensors["body.0.weight"]
    grown = np.zeros((first.shape[0], encoding.n_inputs), np.float32)
    grown[:, : first.shape[1]] = first
    out["body.0.weight"] = grown
    return out


def recoded_evaluator(ev: Evaluator, encoding: Encoding, device: str = "cpu") -> Evaluator:
    """``ev``'s nets as torch nets on ``device`` reading ``encoding`` (:func:`recoded_tensors`), same values."""
    nets = {}
    for name, net in ev.nets.items():
        twin = PhaseNet(NetConfig(encoding.n_inputs, net.config.hidden))
        tensors = recoded_tensors(net.tensors(), net.config, encoding)
        twin.load_state_dict({k: torch.from_numpy(v) for k, v in tensors.items()})
        nets[name] = twin.to(device).eval()
    return Evaluator(nets, ev.header, one_sided=ev.one_sided, two_sided=ev.two_sided, encoding=encoding)


def with_net(ev: Evaluator, name: str, source: str, device: str = "cpu") -> Evaluator:
    """``ev`` with net ``name`` added as a torch copy (on ``device``) of its net ``source``, unless it has one."""
    if name in ev.nets:
        return ev
    nets = {**ev.nets, name: torch_net(ev.nets[source], device)}
    return Evaluator(nets, ev.header, one_sided=ev.one_sided, two_sided=ev.two_sided, encoding=ev.encoding)
