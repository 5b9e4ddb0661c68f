"""Statistics: means of independent trials (mirrored pairs, rollout trials) with standard errors."""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
from scipy.stats import t as student_t

Z95 = 1.959963984540054


#: Below this many pairs the 95% interval uses Student's t (n - 1 degrees of freedom) instead of the normal 1.96.
FEW_PAIRS = 30


def pair_statistics(pair_points: np.ndarray) -> tuple[float, float | None, tuple[float, float] | None]:
    """(mean, standard error, 95% interval) from A's mean result per pair; no SE or interval for one pair.

    The pairs are independent draws, so the SE is their sample standard deviation over sqrt(pairs),
    and the interval is mean +- 1.96 SE (normal approximation, good for the hundreds of pairs a
    tournament plays), or +- Student's t quantile SE under :data:`FEW_PAIRS` pairs, where the SE is itself
    uncertain (10 pairs: +- 2.26 SE).
    """
    mean = float(pair_points.mean())
    if len(pair_points) < 2:
        return mean, None, None
    se = float(pair_points.std(ddof=1) / math.sqrt(len(pair_points)))
    z = Z95 if len(pair_points) >= FEW_PAIRS else float(student_t.ppf(0.975, len(pair_points) - 1))
    return mean, se, (mean - z * se, mean + z * se)


def wilson_interval(share: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval (95% by default) for a share in [0, 1] averaged over ``n`` independent draws.

    A draw bounded in [0, 1] with mean p has a variance of at most p(1 - p), so the interval holds
    for a mean of such draws too (mirrored match pairs scoring 0, 1/2 or 1), conservatively; unlike
    the normal interval it never shrinks to a point when every draw came out the same.
    """
    if n < 1:
        raise ValueError(f"draws {n}: give at least 1")
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


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


@dataclass(frozen=True)
class Equivalence:
    """Two one-sided tests (TOST) that a difference lies inside ``(-margin, +margin)``, normal approximation.

    ``p`` is the larger of the two one-sided p-values; the difference is shown equivalent to zero
    at level ``alpha`` when ``p < alpha``, that is when the ``1 - 2 alpha`` interval ``ci`` lies
    inside the margin.
    """

    value: float
    se: float
    margin: float
    alpha: float
    p: float
    ci: tuple[float, float]

    @property
    def equivalent(self) -> bool:
        """True when both one-sided tests reject a difference of at least ``margin``."""
        return self.p < self.alpha

    def to_json(self) -> dict[str, object]:
        """The test's inputs, its p-value, the ``1 - 2 alpha`` interval and the verdict."""
        return {
            "value": self.value,
            "se": self.se,
            "margin": self.margin,
            "alpha": self.alpha,
            "p": self.p,
            f"ci{round(100 * (1 - 2 * self.alpha))}": list(self.ci),
            "equivalent": self.equivalent,
        }


def equivalence_test(value: float, se: float, margin: float, alpha: float = 0.05) -> Equivalence:
    """TOST of ``value`` (SE ``se``) against ``+-margin``; raises ValueError for a non-positive SE or margin."""
    if not (se > 0 and math.isfinite(se)):
        raise ValueError(f"equivalence test: standard error {se!r} is not a positive number")
    if not (margin > 0 and math.isfinite(margin)):
        raise ValueError(f"equivalence test: margin {margin!r} is not a positive number")
    if not 0 < alpha < 0.5:
        raise ValueError(f"equivalence test: alpha {alpha!r} is not in (0, 0.5)")
    normal = NormalDist()
    p_below = normal.cdf(-(value + margin) / se)  # H0: the difference is -margin or below
    p_above = normal.cdf(-(margin - value) / se)  # H0: the difference is +margin or above
    z = normal.inv_cdf(1 - alpha)
    return Equivalence(value, se, margin, alpha, max(p_below, p_above), (value - z * se, value + z * se))
