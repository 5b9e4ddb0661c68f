"""Two one-sided tests (TOST) of equivalence within a margin: known normal-theory values as a data table."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arena.stats import equivalence_test

# value, se, margin -> p (the larger one-sided p), equivalent at alpha 0.05
CASES = [
    (0.0, 0.001, 0.003, 0.0013499, True),  # 3 SE inside each side
    (0.0, 0.002, 0.003, 0.0668072, False),  # 1.5 SE: Phi(-1.5)
    (0.001, 0.001, 0.003, 0.0227501, True),  # 2 SE from the upper bound
    (-0.0025, 0.001, 0.003, 0.3085375, False),  # 0.5 SE from the lower bound
    (0.004, 0.001, 0.003, 0.8413447, False),  # outside the margin
]


@pytest.mark.parametrize(("value", "se", "margin", "p", "equivalent"), CASES)
def test_tost_p_values(value: float, se: float, margin: float, p: float, equivalent: bool) -> None:
    e = equivalence_test(value, se, margin)
    assert e.p == pytest.approx(p, abs=1e-6)
    assert e.equivalent is equivalent
    # equivalent exactly when the 90% interval lies inside the margin
    assert e.equivalent is (-margin < e.ci[0] and e.ci[1] < margin)
    assert e.ci[1] - e.ci[0] == pytest.approx(2 * 1.6448536 * se)


def test_tost_rejects_at_its_level_under_the_null() -> None:
    """At a true difference on the margin, TOST declares equivalence at most alpha of the time."""
    rng = np.random.default_rng(3)
    se, margin = 1.0, 2.0
    hits = sum(equivalence_test(float(v), se, margin).equivalent for v in rng.normal(margin, se, 20000))
    rate, rate_se = hits / 20000, math.sqrt(0.05 * 0.95 / 20000)
    assert rate < 0.05 + 4 * rate_se


@pytest.mark.parametrize(("se", "margin"), [(0.0, 0.003), (-1.0, 0.003), (float("nan"), 0.003), (0.001, 0.0)])
def test_bad_inputs_are_value_errors(se: float, margin: float) -> None:
    with pytest.raises(ValueError, match="equivalence test"):
        equivalence_test(0.0, se, margin)
