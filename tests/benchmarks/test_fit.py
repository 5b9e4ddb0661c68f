"""The sweeps' GLS fit: the covariance of the points' means from shared pairs, and the fit it weighs."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.experiments.fit import MIN_EIGENVALUE, Covariance, fit_optimum, point_covariance

ALPHAS = [0.04, 0.06, 0.08, 0.10, 0.12, 0.14, 0.16, 0.18, 0.20]


def _weighted_fit(x: np.ndarray, y: np.ndarray, se: np.ndarray, degree: int) -> tuple[np.ndarray, float]:
    """The weighted least-squares polynomial (highest power first) and its chi2, by numpy's own polyfit."""
    coefficients = np.polyfit(x, y, degree, w=1 / se)
    return coefficients, float((((y - np.polyval(coefficients, x)) / se) ** 2).sum())


def _correlated(peak: float, pairs: list[int], seed: int, noise: float = 0.15) -> list[np.ndarray]:
    """Pair points around a lopsided cubic peaking at ``peak`` (A's ppg), their noise shared with their neighbours.

    Pair k's noise at point i is the mean of three independent draws, i's and its two neighbours'
    (as neighbouring strategies decide alike on the same dice): one pair's points correlate 2/3
    between neighbours, 1/3 two apart, 0 further; point i plays the first ``pairs[i]`` pairs.
    """
    rng = np.random.default_rng(seed)
    draws = rng.normal(0, noise, (len(ALPHAS) + 2, max(pairs)))
    out = []
    for i, (a, count) in enumerate(zip(ALPHAS, pairs, strict=True)):
        truth = -8 * (a - peak) ** 2 - 40 * (a - peak) ** 3
        out.append((truth + draws[i : i + 3].sum(axis=0) / np.sqrt(3))[:count])
    return out


def test_with_a_diagonal_covariance_the_gls_fit_is_the_weighted_fit() -> None:
    """Every degree's coefficients and chi2 as a weighted least-squares fit with 1/SE weights gives them."""
    pairs = _correlated(0.09, [20000] * 9, seed=1)
    found = fit_optimum(ALPHAS, pairs, replicates=20, covariance=Covariance.INDEPENDENT)
    x = np.array(ALPHAS)
    y = np.array([p.mean() for p in pairs])
    se = np.array([p.std(ddof=1) / np.sqrt(len(p)) for p in pairs])
    assert found.covariance is not None and found.covariance.kind is Covariance.INDEPENDENT
    for f in found.fits:
        coefficients, chi2 = _weighted_fit(x, y, se, f.degree)
        np.testing.assert_allclose(f.coefficients, coefficients, rtol=1e-7, atol=1e-9)
        assert f.chi2 == pytest.approx(chi2, rel=1e-7)
    assert not found.fitted_as(None)  # the independent fit is never the rule's headline


def test_with_a_diagonal_covariance_an_exact_point_is_the_limit_of_a_heavy_weight() -> None:
    """The reference point is a constraint: the weighted fit tends to it as the point's weight grows."""
    pairs = _correlated(0.09, [20000] * 9, seed=2)
    pairs[3] = np.zeros(0)  # alpha 10%: exactly 0, no games
    found = fit_optimum(ALPHAS, pairs, replicates=20, covariance=Covariance.INDEPENDENT)
    x = np.array(ALPHAS)
    y = np.array([0.0 if len(p) == 0 else p.mean() for p in pairs])
    se = np.array([1e-9 if len(p) == 0 else p.std(ddof=1) / np.sqrt(len(p)) for p in pairs])
    for f in found.fits:
        coefficients, _ = _weighted_fit(x, y, se, f.degree)
        np.testing.assert_allclose(f.coefficients, coefficients, rtol=1e-4, atol=1e-6)
        assert abs(np.polyval(f.coefficients, 0.10)) < 1e-12  # through the exact point, not near it


def test_the_covariance_of_points_with_different_pairs_uses_the_pairs_they_share() -> None:
    """A point that played the first m of another's n pairs: Cov(means) = m c / (n m), c from the m shared pairs."""
    rng = np.random.default_rng(3)
    long = rng.normal(0, 1, 4000)
    other = long[:1000] + rng.normal(0, 1, 1000)
    matrix, info = point_covariance([long, other, np.zeros(0)], np.array([False, False, True]))
    shared = float(np.cov(long[:1000], other, ddof=1)[0, 1])
    assert matrix.shape == (2, 2)  # the exact point is left out
    assert matrix[0, 1] == pytest.approx(1000 * shared / (4000 * 1000), rel=1e-12)
    assert matrix[0, 0] == pytest.approx(long.var(ddof=1) / 4000, rel=1e-12)
    assert info.correlation[0][1] == pytest.approx(matrix[0, 1] / np.sqrt(matrix[0, 0] * matrix[1, 1]), abs=1e-4)
    assert info.ridge == 0.0 and info.smallest_eigenvalue > MIN_EIGENVALUE


def test_a_singular_covariance_gets_a_recorded_ridge_and_still_fits() -> None:
    """Two points that scored alike on every pair correlate 1: a ridge lifts the smallest eigenvalue, recorded."""
    pairs = _correlated(0.09, [5000] * 9, seed=4)
    pairs[5] = pairs[4].copy()
    matrix, info = point_covariance(pairs, np.zeros(9, dtype=bool))
    assert info.smallest_eigenvalue < 1e-12 and info.ridge == pytest.approx(MIN_EIGENVALUE - info.smallest_eigenvalue)
    np.linalg.cholesky(matrix)  # positive definite now
    found = fit_optimum(ALPHAS, pairs, replicates=20)
    assert found.covariance is not None and found.covariance.ridge == info.ridge
    assert np.isfinite([f.chi2 for f in found.fits]).all()


def test_gls_recovers_a_known_optimum_from_correlated_points() -> None:
    """Unequal pair counts, neighbours correlated 2/3: the cubic's GLS peak lies near the truth, inside its interval."""
    counts = [20000, 16000, 8000, 4000, 6000, 16000, 20000, 20000, 20000]
    errors, covered = [], 0
    for seed in range(8):
        found = fit_optimum(ALPHAS, _correlated(0.09, counts, seed=10 + seed), degree=3, replicates=100, seed=seed)
        errors.append(found.best - 0.09)
        covered += found.ci95[0] <= 0.09 <= found.ci95[1]
        assert found.covariance is not None and found.covariance.correlation[6][7] == pytest.approx(2 / 3, abs=0.03)
    assert np.sqrt(np.mean(np.square(errors))) < 0.003  # alpha's grid step is 0.02
    assert abs(np.mean(errors)) < 0.002
    assert covered >= 6  # Binomial(8, 0.95): 5 or fewer with probability 0.006


def test_an_optimum_beyond_the_swept_range_is_flagged_and_one_inside_is_not() -> None:
    """A curve whose peak lies outside the range peaks on its edge in every replicate: the interval is not one."""
    counts = [4000] * len(ALPHAS)
    beyond = fit_optimum(ALPHAS, _correlated(0.30, counts, seed=3), degree=2, replicates=100)
    assert beyond.best in (ALPHAS[0], ALPHAS[-1]) and beyond.edge_warning is not None
    assert "edge of the swept range" in beyond.edge_warning
    inside = fit_optimum(ALPHAS, _correlated(0.09, counts, seed=3), degree=3, replicates=100)
    assert inside.edge_warning is None
