"""Torch nets giving five consistent outcome probabilities for the side on roll."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import nn

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
        """Name and shape of every tensor of a :class:`PhaseNet` with this architecture."""
        shapes: dict[str, tuple[int, ...]] = {}
        widths = [self.n_inputs, *self.hidden, len(OUTPUTS)]
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
