"""Torch nets giving five consistent outcome probabilities for the side on roll."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import torch
from torch import nn

OUTPUTS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")


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

    @classmethod
    def from_json(cls, data: dict[str, object]) -> NetConfig:
        """Inverse of :meth:`to_json`; raises ValueError on a malformed description."""
        try:
            hidden = tuple(int(h) for h in data["hidden"])  # type: ignore[attr-defined]
            return cls(n_inputs=int(data["n_inputs"]), hidden=hidden)  # type: ignore[call-overload]
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"bad net architecture description {data!r}: {exc}") from None


def consistent_probabilities(logits: torch.Tensor) -> torch.Tensor:
    """Map (n, 5) logits to (n, 5) probabilities with gammon <= win and backgammon <= gammon.

    Chained sigmoids: win, then the gammon share of wins, then the backgammon share of gammons,
    and the same for losses, so the orderings hold by construction.
    """
    s = torch.sigmoid(logits)
    win = s[:, 0]
    wg = win * s[:, 1]
    wbg = wg * s[:, 2]
    lg = (1.0 - win) * s[:, 3]
    lbg = lg * s[:, 4]
    return torch.stack([win, wg, wbg, lg, lbg], dim=1)


class PhaseNet(nn.Module):
    """An MLP from encoded positions to the five probabilities (side on roll, before rolling)."""

    def __init__(self, config: NetConfig) -> None:
        super().__init__()
        self.config = config
        layers: list[nn.Module] = []
        width = config.n_inputs
        for h in config.hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        layers.append(nn.Linear(width, 5))
        self.body = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Probabilities (n, 5) for the side on roll."""
        return consistent_probabilities(self.body(x))


def flip_probabilities(p: np.ndarray) -> np.ndarray:
    """The same outcome probabilities seen by the other side (win <-> lose)."""
    out = np.empty_like(p)
    out[..., 0] = 1.0 - p[..., 0]
    out[..., 1] = p[..., 3]
    out[..., 2] = p[..., 4]
    out[..., 3] = p[..., 1]
    out[..., 4] = p[..., 2]
    return out


def cubeless_equity(p: np.ndarray) -> np.ndarray:
    """Cubeless money equity per unit stake from five probabilities (same side's view)."""
    return 2.0 * p[..., 0] - 1.0 + p[..., 1] - p[..., 3] + p[..., 2] - p[..., 4]
