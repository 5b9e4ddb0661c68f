"""The supervised fit's losses: per-position losses of the five outputs and the ranking losses of decision groups.

Positions' targets are five probabilities for their side on roll; a decision group's rows are the
resulting positions of one roll's close plays (opponent on roll), so the mover prefers the lowest
equity among them.
"""

from __future__ import annotations

import enum

import numpy as np
import torch
from torch import nn

from nets.model import PhaseNet


class Loss(enum.Enum):
    """How a net's five outputs are compared with their targets."""

    MSE = "mse"  # squared error of the probabilities (what TD training minimises)
    CROSS_ENTROPY = "xent"  # binary cross-entropy of each probability against its target

    def __call__(self, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        """Per-row loss (n,) summed over the five outputs."""
        if self is Loss.MSE:
            return ((pred - target) ** 2).sum(dim=1)
        # torch's own cross-entropy: its log is bounded at -100 and its gradient's denominator at 1e-12, so an
        # output at exactly 0 or 1 (the rules' bounds give them) is still pushed toward its target; clamping the
        # output to [1e-6, 1 - 1e-6] instead left such entries with no gradient at all
        return nn.functional.binary_cross_entropy(pred.clamp(0.0, 1.0), target, reduction="none").sum(dim=1)


def equity_of(probabilities: torch.Tensor) -> torch.Tensor:
    """Cubeless equity (n,) of (n, 5) probabilities, for their side on roll (torch, differentiable)."""
    p = probabilities
    return 2 * p[:, 0] - 1 + p[:, 1] - p[:, 3] + p[:, 2] - p[:, 4]


def ranking_loss(
    net: PhaseNet, x: torch.Tensor, y: torch.Tensor, groups: torch.Tensor, temperature: float | None = None
) -> torch.Tensor:
    """Per-group (n_groups,) loss of the plays' equities against their targets', blind to the group's level.

    Squared (``temperature`` None): each play's error is its predicted equity minus its target's,
    with the group's mean error taken out, so only the differences between the plays of one
    decision count: what move choice uses. Listwise (a temperature, in equity): ``temperature``
    times the KL divergence of the net's choice distribution from the targets', each a softmax of
    the mover's equities (minus the resulting positions') over ``temperature``, so the plays near
    the top weigh most and the plays nobody would choose hardly at all.
    """
    valid = groups >= 0
    rows = groups.clamp(min=0)
    flat = rows.reshape(-1)
    predicted = equity_of(net(x[flat])).reshape(groups.shape)
    labelled = equity_of(y[flat]).reshape(groups.shape)
    if temperature is not None:
        # group rows are the opponent's positions: the mover prefers low equity
        mask = torch.where(valid, 0.0, -torch.inf)
        target = torch.softmax(-labelled / temperature + mask, dim=1)
        log_choice = torch.log_softmax(-predicted / temperature + mask, dim=1)
        log_target = torch.log(target.clamp(min=1e-12))
        return temperature * torch.where(valid, target * (log_target - log_choice), 0.0).sum(dim=1)
    error = predicted - labelled
    weight = valid.to(error.dtype)
    mean = (error * weight).sum(dim=1, keepdim=True) / weight.sum(dim=1, keepdim=True)
    return (((error - mean) ** 2) * weight).sum(dim=1)


def choice_regrets(net: PhaseNet, x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Milli-equity (n_groups,) the mover loses in each group by playing the net's choice, not the labels' best.

    Group rows are the plays' resulting positions (opponent on roll), so the mover picks the lowest
    equity; the loss is measured by the labels, as ``bench moves`` measures it by gnubg's 2-ply.
    """
    if len(groups) == 0:
        return np.zeros(0)
    valid = groups >= 0
    rows = np.where(valid, groups, 0).reshape(-1)
    device = net.device
    with torch.inference_mode():
        predicted = np.concatenate(
            [
                equity_of(net(torch.from_numpy(x[rows[lo : lo + 8192]]).to(device))).cpu().numpy()
                for lo in range(0, len(rows), 8192)
            ]
        )
    labelled = equity_of(torch.from_numpy(y[rows])).numpy()
    predicted = np.where(valid, predicted.reshape(groups.shape), np.inf)
    labelled = np.where(valid, labelled.reshape(groups.shape), np.inf)
    chosen = labelled[np.arange(len(groups)), predicted.argmin(axis=1)]
    return 1000.0 * (chosen - labelled.min(axis=1)).astype(np.float64)


def choice_regret(net: PhaseNet, x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> float:
    """Mean of :func:`choice_regrets` over the groups (0 for none): the mover's milli-equity lost per decision."""
    regrets = choice_regrets(net, x, y, groups)
    return float(regrets.mean()) if len(regrets) else 0.0
