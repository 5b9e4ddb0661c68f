"""Statistics over mirrored pairs: the mean of A's per-pair results, its standard error and 95% interval."""

from __future__ import annotations

import math

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
