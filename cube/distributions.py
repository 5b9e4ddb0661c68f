"""Symmetric jump distributions of the jump model, parametrised by the jump volatility.

The jump volatility alpha is E|J|, not the standard deviation (Higgins 2012).  For each
distribution we need (Appendix 1, and the table of Appendix 2)::

    F(J) = integral_{-inf}^{J} f(x) dx         (cumulative distribution)
    G(J) = integral_{-inf}^{J} x f(x) dx       (first partial moment, G(+-inf) = 0)

Gaussian: sigma = alpha sqrt(pi/2), F = N(J/sigma), G = -sigma/sqrt(2 pi) exp(-J^2/(2 sigma^2)).
Double-exponential (Laplace): lambda = 1/alpha,
F = 1 - exp(-lambda J)/2 (J > 0), exp(lambda J)/2 (J <= 0);
G = -(1/lambda + |J|) exp(-lambda |J|)/2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import ndtr

from cube.errors import FloatArray, check_choice, check_volatility

__all__ = ["DISTRIBUTIONS", "JumpDistribution"]

DISTRIBUTIONS: tuple[str, ...] = ("gaussian", "double-exponential")


@dataclass(frozen=True)
class JumpDistribution:
    """A zero-mean symmetric jump distribution with jump volatility ``alpha`` = E|J|.

    ``alpha`` may be an array (one volatility per position); it broadcasts against J.
    """

    kind: str
    alpha: FloatArray | float

    def __post_init__(self) -> None:
        check_choice(self.kind, "distribution", DISTRIBUTIONS)
        check_volatility(self.alpha, "alpha")

    @property
    def std(self) -> FloatArray | float:
        """Standard deviation: alpha sqrt(pi/2) (Gaussian) or alpha sqrt(2) (double-exp.)."""
        factor = math.sqrt(math.pi / 2.0) if self.kind == "gaussian" else math.sqrt(2.0)
        return self.alpha * factor

    def cdf(self, J: ArrayLike) -> FloatArray:
        """Return F(J), the probability that a jump is <= J."""
        J_ = np.asarray(J, dtype=np.float64)
        a = np.asarray(self.alpha, dtype=np.float64)
        if self.kind == "gaussian":
            return np.asarray(ndtr(J_ / (a * math.sqrt(math.pi / 2.0))))
        e = 0.5 * np.exp(-np.abs(J_) / a)
        return np.where(J_ > 0.0, 1.0 - e, e)

    def partial_mean(self, J: ArrayLike) -> FloatArray:
        """Return G(J), the integral of x f(x) for x <= J (always <= 0)."""
        J_ = np.asarray(J, dtype=np.float64)
        a = np.asarray(self.alpha, dtype=np.float64)
        if self.kind == "gaussian":
            sigma = a * math.sqrt(math.pi / 2.0)
            return -(sigma / math.sqrt(2.0 * math.pi)) * np.exp(-0.5 * (J_ / sigma) ** 2)
        aJ = np.abs(J_)
        return -0.5 * (a + aJ) * np.exp(-aJ / a)

    def pdf(self, J: ArrayLike) -> FloatArray:
        """Return the density f(J)."""
        J_ = np.asarray(J, dtype=np.float64)
        a = np.asarray(self.alpha, dtype=np.float64)
        if self.kind == "gaussian":
            sigma = a * math.sqrt(math.pi / 2.0)
            return np.exp(-0.5 * (J_ / sigma) ** 2) / (sigma * math.sqrt(2.0 * math.pi))
        return 0.5 / a * np.exp(-np.abs(J_) / a)
