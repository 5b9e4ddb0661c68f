"""The optimum of a sweep: a generalised least-squares polynomial fit of ppg against the swept
parameter, its degree chosen by one rule for every curve (set on 2026-11-26, after the first fits
had been seen), with confidence intervals for the arg-max from a bootstrap over game pairs.

All points of a sweep play the same dice (pair ``k`` of every point is rolled from the same
seed), so the errors of their mean ppg are correlated (0.6 to 0.9 between neighbours). The fit is
therefore a generalised least-squares (GLS) fit: it minimises chi2 = r^T C^-1 r over the played
points' residuals r, with C the covariance of the points' means estimated from the pairs
(:func:`point_covariance`); the reference point (A and B the same strategy) is exactly 0 with no
variance, so it is a constraint the curve passes through, not a weighted point. With a diagonal C
(:attr:`Covariance.INDEPENDENT`) this is the weighted least-squares fit with each point weighted by
its standard error.

The rule (:data:`RULE`): fit degrees 2, 3 and 4 and start from the quadratic; step up one degree
while the step lowers the GLS chi2 by more than a chi2 on one degree of freedom would at p < 0.05,
and stop at the first step that does not, or at degree 4. The covariance is estimated from
thousands of pairs or more, so the residual scale is taken as known and the likelihood-ratio test
of the nested fits is this chi2 difference (an F-test would estimate that scale again); the points
are heavy-tailed, so the p-values are approximate (docs/experiments.md). A degree needs at least one degree of
freedom left, so a sweep of n points tries degrees up to n - 2.

The bootstrap keeps the shared dice as well: each replicate draws one Poisson(1) weight per pair
index and applies it to pair ``k`` of every point that played it, refits every degree (with the
covariance estimated once, from all the pairs), and records where each fitted curve peaks inside
the swept range. An interval is the replicates' 2.5% and 97.5% quantiles: one for each degree, and
one that applies the rule again in every replicate, so that it includes the choice of the degree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np
from scipy import linalg, stats

REPLICATES = 2000
GRID = 2001  # points at which a fitted curve is searched for its maximum
CHUNK = 50  # bootstrap replicates drawn at once (a chunk's weights: CHUNK x pairs)
MIN_EIGENVALUE = 1e-6  # the smallest eigenvalue the points' correlation matrix may have (else a ridge lifts it)


class Covariance(Enum):
    """The covariance of the points' means that the fit uses: estimated from the shared pairs, or diagonal."""

    ESTIMATED = "estimated from the shared pairs"  # the GLS fit, the rule's
    INDEPENDENT = "diagonal (the points' SEs, as if independent)"  # the weighted least-squares fit


@dataclass(frozen=True)
class PointCovariance:
    """What a fit took for the covariance of the played points' means: its kind, correlations and any ridge.

    ``correlation`` is over the played points in sweep order (rounded to 4 decimals);
    ``smallest_eigenvalue`` is the correlation matrix's before any ridge, and ``ridge`` what was
    added to its diagonal to bring that eigenvalue up to :data:`MIN_EIGENVALUE` (0.0 when none was).
    """

    kind: Covariance
    correlation: tuple[tuple[float, ...], ...]
    smallest_eigenvalue: float
    ridge: float

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (with the ridge's rule in words)."""
        return {
            "kind": self.kind.value,
            "correlation": [list(row) for row in self.correlation],
            "smallest_eigenvalue": self.smallest_eigenvalue,
            "ridge": self.ridge,
            "ridge_rule": f"added to the correlation matrix's diagonal where its smallest eigenvalue is below "
            f"{MIN_EIGENVALUE:g}, to lift it there",
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> PointCovariance:
        """The covariance as :meth:`to_json` wrote it."""
        return cls(
            kind=Covariance(d["kind"]),
            correlation=tuple(tuple(row) for row in d["correlation"]),
            smallest_eigenvalue=d["smallest_eigenvalue"],
            ridge=d["ridge"],
        )


@dataclass(frozen=True)
class DegreeRule:
    """A fit's degree by steps up from ``first`` to at most ``last`` while a step's chi2 drop has p < ``alpha``."""

    first: int = 2
    last: int = 4
    alpha: float = 0.05

    @property
    def name(self) -> str:
        """The rule in words, as result.json records it."""
        return (
            f"degree {self.first}, one degree more while the chi2 difference (1 dof) has p < {self.alpha:g}, "
            f"at most {self.last}"
        )

    def candidates(self, points: int) -> tuple[int, ...]:
        """The degrees fitted to ``points`` points: ``first`` to ``last``, one degree of freedom kept where possible."""
        return tuple(range(self.first, max(self.first, min(self.last, points - 2)) + 1))

    def choose(self, chi2: np.ndarray) -> np.ndarray:
        """The chosen degree for each row of ``chi2`` (rows: replicates; columns: the candidates from ``first``)."""
        chosen = np.full(chi2.shape[0], self.first)
        going = np.ones(chi2.shape[0], dtype=bool)
        for k in range(1, chi2.shape[1]):
            going &= step_p(chi2[:, k - 1] - chi2[:, k]) < self.alpha
            chosen[going] = self.first + k
        return chosen

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (with the rule in words)."""
        return {"name": self.name, "first": self.first, "last": self.last, "alpha": self.alpha}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> DegreeRule:
        """The rule as :meth:`to_json` wrote it."""
        return cls(first=d["first"], last=d["last"], alpha=d["alpha"])


RULE = DegreeRule()


def step_p(drop: np.ndarray) -> np.ndarray:
    """p-value of a chi2 drop of one degree more (a chi2 on 1 degree of freedom), elementwise."""
    return np.asarray(stats.chi2.sf(np.maximum(drop, 0.0), 1), dtype=float)


@dataclass(frozen=True)
class DegreeFit:
    """One degree's fit: coefficients, peak and ppg there, goodness of fit, a 95% bootstrap interval for the peak."""

    degree: int
    coefficients: tuple[float, ...]  # highest power first (numpy.polyval order)
    best: float
    best_ppg: float
    chi2: float  # r^T C^-1 r over the played points (their means' covariance C), with ``dof`` degrees of freedom
    dof: int
    p_fit: float  # chance of a chi2 at least this large on ``dof`` degrees of freedom
    p_step: float | None  # p of the chi2 drop from the degree below (None for the rule's first degree)
    aic: float  # chi2 + 2 x the number of coefficients
    ci95: tuple[float, float]
    bootstrap_se: float
    at_edge: float  # share of replicates whose maximum lay on the edge of the swept range

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "degree": self.degree,
            "coefficients": list(self.coefficients),
            "best": self.best,
            "best_ppg": self.best_ppg,
            "chi2": self.chi2,
            "dof": self.dof,
            "p_fit": self.p_fit,
            "p_step": self.p_step,
            "aic": self.aic,
            "ci95": list(self.ci95),
            "bootstrap_se": self.bootstrap_se,
            "at_edge": self.at_edge,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> DegreeFit:
        """The fit as :meth:`to_json` wrote it; p_fit and aic recomputed where an older result.json lacks them."""
        low, high = d["ci95"]
        return cls(
            degree=d["degree"],
            coefficients=tuple(d["coefficients"]),
            best=d["best"],
            best_ppg=d["best_ppg"],
            chi2=d["chi2"],
            dof=d["dof"],
            p_fit=d["p_fit"] if "p_fit" in d else float(stats.chi2.sf(d["chi2"], d["dof"])),
            p_step=d.get("p_step"),
            aic=d["aic"] if "aic" in d else d["chi2"] + 2 * (d["degree"] + 1),
            ci95=(low, high),
            bootstrap_se=d["bootstrap_se"],
            at_edge=d["at_edge"],
        )


@dataclass(frozen=True)
class Optimum:
    """A sweep's optimum: every candidate degree's fit, the headline degree, and the intervals with model choice.

    ``degree`` is the rule's choice, or the caller's when ``forced``. ``selected_ci95`` applies the
    rule again in every replicate; ``aic_best`` and ``aic_se`` average the degrees' optima with
    Akaike weights (the SE adds each degree's bootstrap variance and the spread between degrees).
    ``rule`` is None, and the model-choice fields too, for a result.json written before the rule;
    ``covariance`` is None for one written before the GLS fit (its fit took the points as independent).
    """

    degree: int
    forced: bool
    rule: DegreeRule | None
    fits: tuple[DegreeFit, ...]
    replicates: int
    selected_ci95: tuple[float, float] | None = None
    selected_se: float | None = None
    selected_shares: tuple[float, ...] | None = None  # share of replicates choosing each of ``fits``' degrees
    aic_best: float | None = None
    aic_se: float | None = None
    covariance: PointCovariance | None = None

    @property
    def chosen(self) -> DegreeFit:
        """The fit at the headline degree."""
        return next(f for f in self.fits if f.degree == self.degree)

    @property
    def best(self) -> float:
        """The headline fit's peak."""
        return self.chosen.best

    @property
    def ci95(self) -> tuple[float, float]:
        """The headline fit's 95% bootstrap interval (its degree fixed)."""
        return self.chosen.ci95

    @property
    def coefficients(self) -> tuple[float, ...]:
        """The headline fit's coefficients, highest power first."""
        return self.chosen.coefficients

    @property
    def edge_warning(self) -> str | None:
        """A line saying the swept range cuts the headline fit's 95% interval (over 2.5% of its replicates peak on
        the range's edge; all of them when the curve only rises or only falls), else None."""
        share = self.chosen.at_edge
        if share <= 0.025:
            return None
        return (
            f"{share:.0%} of the replicates peak on the edge of the swept range: the optimum may lie outside it and "
            "the 95% interval is cut there (sweep further)"
        )

    def fitted_as(self, degree: int | None) -> bool:
        """Whether this optimum is what :func:`fit_optimum` gives at ``degree`` (None: by :data:`RULE`)."""
        if self.rule != RULE or self.covariance is None or self.covariance.kind is not Covariance.ESTIMATED:
            return False
        if degree is None:
            return not self.forced
        return self.forced and self.degree == degree

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Optimum:
        """The optimum as :meth:`to_json` wrote it, or an older result.json's single fit (no rule, forced degree)."""
        if "fits" not in d:
            return cls(
                degree=d["degree"], forced=True, rule=None, fits=(DegreeFit.from_json(d),), replicates=d["replicates"]
            )
        selection = d["with_selection"]
        average = d["aic_average"]
        low, high = selection["ci95"]
        return cls(
            degree=d["degree"],
            forced=d["forced"],
            rule=DegreeRule.from_json(d["rule"]),
            fits=tuple(DegreeFit.from_json(f) for f in d["fits"]),
            replicates=d["replicates"],
            selected_ci95=(low, high),
            selected_se=selection["bootstrap_se"],
            selected_shares=tuple(selection["degree_shares"]),
            aic_best=average["best"],
            aic_se=average["se"],
            covariance=PointCovariance.from_json(d["covariance"]) if "covariance" in d else None,
        )

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict: the headline fit's figures on top (as before the rule), then every fit and the rule's."""
        out: dict[str, Any] = {**self.chosen.to_json(), "replicates": self.replicates, "forced": self.forced}
        if self.rule is not None:
            out["rule"] = self.rule.to_json()
        out["fits"] = [f.to_json() for f in self.fits]
        if self.selected_ci95 is not None:
            out["with_selection"] = {
                "ci95": list(self.selected_ci95),
                "bootstrap_se": self.selected_se,
                "degree_shares": list(self.selected_shares or ()),
            }
            out["aic_average"] = {"best": self.aic_best, "se": self.aic_se}
        if self.covariance is not None:
            out["covariance"] = self.covariance.to_json()
        return out


def point_covariance(
    pair_points: Sequence[np.ndarray], exact: np.ndarray, kind: Covariance = Covariance.ESTIMATED
) -> tuple[np.ndarray, PointCovariance]:
    """The covariance matrix of the played points' mean ppg (A's), in sweep order, and what it is in words.

    Pairs are independent of one another, and pair k of every point is played on the same dice, so
    with point i's mean over its n_i pairs, Cov(mean_i, mean_j) = m c_ij / (n_i n_j), where m =
    min(n_i, n_j) counts the pairs both points played (pairs 0 to m - 1: a point that stopped
    earlier played a prefix of the other's pairs) and c_ij is the covariance of one pair's points,
    estimated from those m shared pairs (ddof 1). The diagonal is each point's SE squared, from all
    its pairs. Estimated pair by pair, the matrix need not be positive definite: where its
    correlation matrix's smallest eigenvalue is below :data:`MIN_EIGENVALUE`, a ridge is added to
    that diagonal to lift it to :data:`MIN_EIGENVALUE` (every variance grows by that fraction), and
    the ridge is recorded. ``kind`` INDEPENDENT keeps the diagonal only. Exact points are left out;
    a played point whose pairs all scored alike (SE 0) gets a tenth of the smallest SE measured.
    """
    played = [np.asarray(p, dtype=float) for p, e in zip(pair_points, exact, strict=True) if not e]
    n = np.array([len(p) for p in played], dtype=float)
    measured = np.array([p.std(ddof=1) / np.sqrt(len(p)) for p in played])
    floor = max(float(measured[measured > 0].min()) if (measured > 0).any() else 1.0, 1e-9) / 10
    se = np.maximum(measured, floor)  # a point whose pairs all scored alike counts as 10 times the best measured
    correlation = np.eye(len(played))
    if kind is Covariance.ESTIMATED:
        for i in range(len(played)):
            for j in range(i):
                m = int(min(n[i], n[j]))
                c = float(np.cov(played[i][:m], played[j][:m], ddof=1)[0, 1])
                correlation[i, j] = correlation[j, i] = m * c / (n[i] * n[j]) / (se[i] * se[j])
    smallest = float(np.linalg.eigvalsh(correlation)[0]) if len(played) else 1.0
    ridge = max(0.0, MIN_EIGENVALUE - smallest)
    lifted = correlation + ridge * np.eye(len(played))
    info = PointCovariance(
        kind=kind,
        correlation=tuple(tuple(round(float(v), 4) for v in row) for row in correlation),
        smallest_eigenvalue=smallest,
        ridge=ridge,
    )
    return lifted * np.outer(se, se), info


def _gls_operator(x: np.ndarray, played: np.ndarray, whitener: np.ndarray, degree: int) -> np.ndarray:
    """The GLS map from all the points' ppg to the coefficients (highest power first), exact points as constraints.

    ``whitener`` is L^-1 for the played points' covariance C = L L^T, so the fit minimises
    |L^-1 (y - V b)|^2 over the played points subject to V b = y at the exact ones (b = b0 + N g,
    with b0 meeting the constraints and N spanning their null space).
    """
    vander = np.vander(x, degree + 1)
    design, constraints = vander[played], vander[~played]
    if len(constraints):
        _, s, vt = np.linalg.svd(constraints)
        rank = int((s > s[0] * 1e-12).sum())
        null = vt[rank:].T
        particular = np.linalg.pinv(constraints)
    else:
        null = np.eye(degree + 1)
        particular = np.zeros((degree + 1, 0))
    solve = null @ np.linalg.pinv(whitener @ design @ null) @ whitener
    operator = np.zeros((degree + 1, len(x)))
    operator[:, played] = solve
    operator[:, ~played] = particular - solve @ design @ particular
    return operator


def _peaks(coefficients: np.ndarray, low: float, high: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x, value, on_edge) of each row's polynomial maximum over [low, high]."""
    grid = np.linspace(low, high, GRID)
    values = coefficients @ np.vander(grid, coefficients.shape[1]).T
    k = values.argmax(axis=1)
    return grid[k], values[np.arange(len(k)), k], (k == 0) | (k == GRID - 1)


def _weighted_ppg(
    weights: np.ndarray, pair_points: Sequence[np.ndarray], ys: np.ndarray, exact: np.ndarray
) -> np.ndarray:
    """The points' ppg (columns) in each replicate (rows) whose weight of pair k is ``weights[:, k]`` at every point."""
    out = np.tile(ys, (len(weights), 1))
    for i, p in enumerate(pair_points):
        if exact[i]:
            continue
        w = weights[:, : len(p)]
        total = w.sum(axis=1)
        fine = total > 0
        out[fine, i] = (w[fine] @ p) / total[fine]
    return out


def _replicate_ppg(
    rng: np.random.Generator, pair_points: Sequence[np.ndarray], ys: np.ndarray, exact: np.ndarray, count: int
) -> np.ndarray:
    """``count`` bootstrap replicates of the points' ppg (rows), pair k weighted alike at every point."""
    n_max = max(len(p) for p in pair_points)
    return _weighted_ppg(rng.poisson(1.0, (count, n_max)).astype(float), pair_points, ys, exact)


def _gls_inputs(
    xs: Sequence[float], pair_points: Sequence[np.ndarray], exact: Sequence[bool] | None, covariance: Covariance
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, PointCovariance]:
    """(x, exact mask, the points' mean ppg, the whitener L^-1 of their covariance, what that covariance is)."""
    x = np.asarray(xs, dtype=float)
    exact_mask = np.asarray(exact if exact is not None else [len(p) == 0 for p in pair_points], dtype=bool)
    ys = np.array([0.0 if e else float(p.mean()) for p, e in zip(pair_points, exact_mask, strict=True)])
    matrix, info = point_covariance(pair_points, exact_mask, covariance)
    whitener = linalg.solve_triangular(np.linalg.cholesky(matrix), np.eye(len(matrix)), lower=True)
    return x, exact_mask, ys, whitener, info


def bootstrap_peaks(
    xs: Sequence[float],
    pair_points: Sequence[np.ndarray],
    degree: int,
    weights: np.ndarray,
    exact: Sequence[bool] | None = None,
) -> np.ndarray:
    """Where the GLS fit of ``degree`` peaks in each replicate whose pair k weighs ``weights[r, k]``, one per row.

    ``pair_points`` and ``exact`` as :func:`fit_optimum` takes them; ``weights`` needs a column for
    every pair any point played. Two sweeps played on the same dice (the same seed) and given the
    same ``weights`` are bootstrapped together, so a difference of their optima keeps the dice they share.
    """
    if weights.ndim != 2 or weights.shape[1] < max(len(p) for p in pair_points):
        raise ValueError(f"weights of shape {weights.shape}: need a column for each of the points' pairs")
    x, exact_mask, ys, whitener, _ = _gls_inputs(xs, pair_points, exact, Covariance.ESTIMATED)
    operator = _gls_operator(x, ~exact_mask, whitener, degree)
    peaks, _, _ = _peaks(
        _weighted_ppg(weights, pair_points, ys, exact_mask) @ operator.T, float(x.min()), float(x.max())
    )
    return peaks


def fit_optimum(
    xs: Sequence[float],
    pair_points: Sequence[np.ndarray],
    degree: int | None = None,
    exact: Sequence[bool] | None = None,
    seed: int = 0,
    replicates: int = REPLICATES,
    covariance: Covariance = Covariance.ESTIMATED,
    rule: DegreeRule = RULE,
) -> Optimum:
    """Fit ppg(x) at every candidate degree by GLS, choose one by ``rule`` (or take ``degree``), locate the maxima.

    ``pair_points[i]`` are A's mean points per pair at ``xs[i]`` (pair k is the same dice at every
    point), so the ppg is A's; ``exact`` marks points known without games (both players the same
    strategy: 0 ppg, no pairs), which the curve passes through. ``covariance`` INDEPENDENT fits as
    if the points were independent (the weighted least-squares fit; never the rule's headline).
    Raises ValueError for a ``degree`` the rule does not fit to these points.
    """
    degrees = rule.candidates(len(xs))
    if degree is not None and degree not in degrees:
        raise ValueError(f"degree {degree}: {len(xs)} points are fitted at degrees {degrees[0]} to {degrees[-1]}")
    x, exact_mask, ys, whitener, info = _gls_inputs(xs, pair_points, exact, covariance)
    played = ~exact_mask
    operators = [_gls_operator(x, played, whitener, d) for d in degrees]
    low_x, high_x = float(x.min()), float(x.max())

    def chi2_of(y: np.ndarray, coefficients: np.ndarray) -> np.ndarray:
        fitted = coefficients @ np.vander(x, coefficients.shape[1]).T
        whitened = (y - fitted)[:, played] @ whitener.T
        return (whitened**2).sum(axis=1)

    rng = np.random.default_rng(seed)
    peaks = np.empty((replicates, len(degrees)))
    edges = np.zeros((replicates, len(degrees)), dtype=bool)
    chi2s = np.empty((replicates, len(degrees)))
    for start in range(0, replicates, CHUNK):
        y_r = _replicate_ppg(rng, pair_points, ys, exact_mask, min(CHUNK, replicates - start))
        rows = slice(start, start + len(y_r))
        for k, op in enumerate(operators):
            coefficients = y_r @ op.T
            peaks[rows, k], _, edges[rows, k] = _peaks(coefficients, low_x, high_x)
            chi2s[rows, k] = chi2_of(y_r, coefficients)

    fits: list[DegreeFit] = []
    for k, (d, op) in enumerate(zip(degrees, operators, strict=True)):
        coefficients = op @ ys
        best, best_ppg, _ = _peaks(coefficients[None, :], low_x, high_x)
        chi2 = float(chi2_of(ys[None, :], coefficients[None, :])[0])
        dof = int(len(x) - d - 1)
        low, high = np.quantile(peaks[:, k], [0.025, 0.975])
        fits.append(
            DegreeFit(
                degree=d,
                coefficients=tuple(float(c) for c in coefficients),
                best=float(best[0]),
                best_ppg=float(best_ppg[0]),
                chi2=chi2,
                dof=dof,
                p_fit=float(stats.chi2.sf(chi2, dof)) if dof > 0 else 1.0,
                p_step=float(step_p(np.array(fits[-1].chi2 - chi2))) if fits else None,
                aic=chi2 + 2 * (d + 1),
                ci95=(float(low), float(high)),
                bootstrap_se=float(peaks[:, k].std(ddof=1)),
                at_edge=float(edges[:, k].mean()),
            )
        )
    by_rule = int(rule.choose(np.array([[f.chi2 for f in fits]]))[0])
    chosen = rule.choose(chi2s)
    selected = peaks[np.arange(replicates), chosen - degrees[0]]
    low, high = np.quantile(selected, [0.025, 0.975])
    aic = np.array([f.aic for f in fits])
    akaike = np.exp(-(aic - aic.min()) / 2)
    akaike /= akaike.sum()
    bests = np.array([f.best for f in fits])
    average = float(akaike @ bests)
    spread = akaike @ (np.array([f.bootstrap_se for f in fits]) ** 2 + (bests - average) ** 2)
    return Optimum(
        degree=degree if degree is not None else by_rule,
        forced=degree is not None,
        rule=rule,
        fits=tuple(fits),
        replicates=replicates,
        selected_ci95=(float(low), float(high)),
        selected_se=float(selected.std(ddof=1)),
        selected_shares=tuple(float((chosen == d).mean()) for d in degrees),
        aic_best=average,
        aic_se=float(np.sqrt(spread)),
        covariance=info,
    )
