"""The optimum of a sweep: a weighted polynomial fit of ppg against the swept parameter, with a
confidence interval for the arg-max from a bootstrap over game pairs.

All points of a sweep play the same dice (pair ``k`` of every point is rolled from the same
seed), so their errors are correlated. The bootstrap keeps that: each replicate draws one
Poisson(1) weight per pair index and applies it to pair ``k`` of every point that played it,
refits, and records where the fitted curve peaks inside the swept range. The interval is the
replicates' 2.5% and 97.5% quantiles.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

REPLICATES = 2000
GRID = 2001  # points at which a fitted curve is searched for its maximum


@dataclass(frozen=True)
class Optimum:
    """Where a fitted ppg curve peaks, the fitted ppg there, and a 95% bootstrap interval for the place."""

    degree: int
    coefficients: tuple[float, ...]  # highest power first (numpy.polyval order)
    best: float
    best_ppg: float
    ci95: tuple[float, float]
    bootstrap_se: float
    replicates: int
    at_edge: float  # share of replicates whose maximum lay on the edge of the swept range
    chi2: float  # goodness of fit over the played points (their SEs), with ``dof`` degrees of freedom
    dof: int

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Optimum:
        """The optimum as :meth:`to_json` wrote it (a finished sweep's result.json)."""
        low, high = d["ci95"]
        return cls(
            degree=d["degree"],
            coefficients=tuple(d["coefficients"]),
            best=d["best"],
            best_ppg=d["best_ppg"],
            ci95=(low, high),
            bootstrap_se=d["bootstrap_se"],
            replicates=d["replicates"],
            at_edge=d["at_edge"],
            chi2=d["chi2"],
            dof=d["dof"],
        )

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "degree": self.degree,
            "coefficients": list(self.coefficients),
            "best": self.best,
            "best_ppg": self.best_ppg,
            "ci95": list(self.ci95),
            "bootstrap_se": self.bootstrap_se,
            "replicates": self.replicates,
            "at_edge": self.at_edge,
            "chi2": self.chi2,
            "dof": self.dof,
        }


def _fit(xs: np.ndarray, ys: np.ndarray, ses: np.ndarray, degree: int) -> np.ndarray:
    """Weighted least-squares polynomial coefficients (highest power first); an exact point (SE 0) weighs most."""
    floor = max(float(ses[ses > 0].min()) if (ses > 0).any() else 1.0, 1e-9) / 10
    return np.polyfit(xs, ys, degree, w=1.0 / np.maximum(ses, floor))


def _peak(coefficients: np.ndarray, low: float, high: float) -> tuple[float, float, bool]:
    """(x, value, on_edge) of the polynomial's maximum over [low, high]."""
    grid = np.linspace(low, high, GRID)
    values = np.polyval(coefficients, grid)
    k = int(values.argmax())
    return float(grid[k]), float(values[k]), k in (0, GRID - 1)


def fit_optimum(
    xs: Sequence[float],
    pair_points: Sequence[np.ndarray],
    degree: int = 2,
    exact: Sequence[bool] | None = None,
    seed: int = 0,
    replicates: int = REPLICATES,
) -> Optimum:
    """Fit ppg(x) through the sweep's points and locate its maximum; ``exact`` marks points known without games.

    ``pair_points[i]`` are A's mean points per pair at ``xs[i]`` (pair k is the same dice at every
    point); an exact point (both players the same strategy) is 0 ppg with no pairs.
    """
    x = np.asarray(xs, dtype=float)
    exact_mask = np.asarray(exact if exact is not None else [len(p) == 0 for p in pair_points], dtype=bool)
    lengths = [len(p) for p in pair_points]
    ys = np.array([0.0 if e else float(p.mean()) for p, e in zip(pair_points, exact_mask, strict=True)])
    ses = np.array(
        [0.0 if e else float(p.std(ddof=1) / np.sqrt(len(p))) for p, e in zip(pair_points, exact_mask, strict=True)]
    )
    coefficients = _fit(x, ys, ses, degree)
    best, best_ppg, _ = _peak(coefficients, float(x.min()), float(x.max()))
    rng = np.random.default_rng(seed)
    n_max = max(lengths)
    peaks = np.empty(replicates)
    edges = 0
    for r in range(replicates):
        weights = rng.poisson(1.0, n_max).astype(float)
        y_r = ys.copy()
        for i, p in enumerate(pair_points):
            if exact_mask[i]:
                continue
            w = weights[: len(p)]
            y_r[i] = float(w @ p / w.sum()) if w.sum() > 0 else ys[i]
        peaks[r], _, on_edge = _peak(_fit(x, y_r, ses, degree), float(x.min()), float(x.max()))
        edges += on_edge
    low, high = np.quantile(peaks, [0.025, 0.975])
    played = ~exact_mask
    residuals = (ys[played] - np.polyval(coefficients, x[played])) / ses[played]
    return Optimum(
        degree=degree,
        coefficients=tuple(float(c) for c in coefficients),
        best=best,
        best_ppg=best_ppg,
        ci95=(float(low), float(high)),
        bootstrap_se=float(peaks.std(ddof=1)),
        replicates=replicates,
        at_edge=edges / replicates,
        chi2=float((residuals**2).sum()),
        dof=int(len(x) - degree - 1),
    )
