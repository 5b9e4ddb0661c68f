"""Statistics: means of independent trials (mirrored pairs, rollout trials) with standard errors."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054


def pair_statistics(pair_points: np.ndarray) -> tuple[float, float | None, tuple[float, float] | None]:
    """(mean, standard error, 95% interval) from A's mean result per pair; no SE or interval for one pair.

    The pairs are independent draws, so the SE is their sample standard deviation over sqrt(pairs),
    and the interval is mean +- 1.96 SE (normal approximation, good for the hundreds of pairs a
    tournament plays).
    """
    mean = float(pair_points.mean())
    if len(pair_points) < 2:
        return mean, None, None
    se = float(pair_points.std(ddof=1) / math.sqrt(len(pair_points)))
    return mean, se, (mean - Z95 * se, mean + Z95 * se)


@dataclass(frozen=True)
class Figure:
    """A mean over trials and its standard error (None with a single trial)."""

    value: float
    se: float | None

    def to_json(self) -> dict[str, float | None]:
        """``{"equity": ..., "se": ...}``, rounded to 6 places."""
        return {"equity": round(self.value, 6), "se": None if self.se is None else round(self.se, 6)}


def paired_figure(values: np.ndarray) -> Figure:
    """The mean of per-trial ``values`` (k,) and its standard error (of a paired difference when they are one)."""
    n = len(values)
    se = float(values.std(ddof=1) / math.sqrt(n)) if n > 1 else None
    return Figure(float(values.mean()), se)
