"""Training the volatility nets of :mod:`nets.volnet` with torch (CPU), and freezing them for play.

Each phase net is fitted separately by Adam on the mean squared error of the volatility, with a
validation split (by game, drawn from the seed) that picks the epoch kept. Everything is
seeded, and torch runs on the threads it is given, so a run is repeatable on one machine.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from nets.model import float32_tensors, relu_mlp
from nets.volnet import VolatilityNet, VolNetConfig


class TorchVolNet(nn.Module):
    """The torch twin of one phase net of :class:`nets.volnet.VolatilityNet`: softplus of one output."""

    def __init__(self, config: VolNetConfig) -> None:
        super().__init__()
        self.config = config
        self.body = relu_mlp(config.n_inputs, config.hidden, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Volatility (n,) for (n, n_inputs) inputs."""
        return nn.functional.softplus(self.body(x)[:, 0])

    def tensors(self) -> dict[str, np.ndarray]:
        """Float32 copies of the weights by name (:meth:`VolNetConfig.tensor_shapes`)."""
        return float32_tensors(self)


@dataclass(frozen=True)
class VolTrainSettings:
    """Training settings shared by both phase nets."""

    hidden: tuple[int, ...] = (64,)
    epochs: int = 100
    batch_size: int = 256
    learning_rate: float = 3e-3
    weight_decay: float = 1e-5
    validation_share: float = 0.1
    seed: int = 0

    def to_json(self) -> dict[str, Any]:
        """JSON-ready settings."""
        d = asdict(self)
        d["hidden"] = list(self.hidden)
        return d


def fit_phase(
    x: np.ndarray, y: np.ndarray, groups: np.ndarray, settings: VolTrainSettings
) -> tuple[TorchVolNet, dict[str, Any]]:
    """One phase net fitted to float32 inputs ``x`` (n, N_VOLNET_INPUTS) and targets ``y`` (n,).

    ``groups`` (game numbers) keep a game's positions on one side of the validation split.
    Returns the net at its best validation epoch and the training record (losses per epoch).
    """
    torch.manual_seed(settings.seed)
    rng = np.random.default_rng(settings.seed)
    games = np.unique(groups)
    held = rng.choice(games, size=max(1, int(round(settings.validation_share * len(games)))), replace=False)
    val = np.isin(groups, held)
    xt, yt = torch.from_numpy(x[~val]), torch.from_numpy(y[~val].astype(np.float32))
    xv, yv = torch.from_numpy(x[val]), torch.from_numpy(y[val].astype(np.float32))
    net = TorchVolNet(VolNetConfig(x.shape[1], settings.hidden))
    with torch.no_grad():  # start at the mean target (softplus of the last bias), not at softplus(0) = 0.69
        mean = max(float(y[~val].mean()) if (~val).any() else 0.05, 1e-4)
        last = net.body[-1]
        assert isinstance(last, nn.Linear)
        last.bias.fill_(float(np.log(np.expm1(mean))))
    opt = torch.optim.Adam(net.parameters(), lr=settings.learning_rate, weight_decay=settings.weight_decay)
    best: tuple[float, int, dict[str, torch.Tensor]] | None = None
    history = []
    for epoch in range(settings.epochs):
        net.train()
        order = torch.from_numpy(rng.permutation(len(yt)))
        for start in range(0, len(order), settings.batch_size):
            idx = order[start : start + settings.batch_size]
            loss = nn.functional.mse_loss(net(xt[idx]), yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        net.eval()
        with torch.inference_mode():
            train_rmse = float(nn.functional.mse_loss(net(xt), yt).sqrt())
            val_rmse = float(nn.functional.mse_loss(net(xv), yv).sqrt()) if len(yv) else train_rmse
        history.append({"epoch": epoch + 1, "train_rmse": train_rmse, "validation_rmse": val_rmse})
        if best is None or val_rmse < best[0]:
            best = (val_rmse, epoch + 1, {k: v.clone() for k, v in net.state_dict().items()})
    assert best is not None
    net.load_state_dict(best[2])
    net.eval()
    record = {"rows": int(len(y)), "validation_rows": int(val.sum()), "best_epoch": best[1], "history": history}
    return net, record


def train_volatility_net(
    inputs: dict[str, np.ndarray],
    targets: dict[str, np.ndarray],
    groups: dict[str, np.ndarray],
    settings: VolTrainSettings,
    run: dict[str, Any] | None = None,
) -> tuple[VolatilityNet, dict[str, Any]]:
    """Both phase nets fitted (inputs, targets, game groups by phase name) and frozen for play; with their records."""
    configs, tensors, records = {}, {}, {}
    for phase in inputs:
        net, records[phase] = fit_phase(inputs[phase], targets[phase], groups[phase], settings)
        configs[phase] = net.config
        tensors[phase] = net.tensors()
    info = {"settings": settings.to_json(), **(run or {})}
    return VolatilityNet(configs, tensors, info), records
