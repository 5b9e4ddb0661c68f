"""Net outputs are consistent by construction; flipping and equity behave."""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from nets.model import consistent_probabilities, cubeless_equity, flip_probabilities

logits = arrays(np.float32, (7, 5), elements=st.floats(-30, 30, width=32))


@settings(max_examples=200)
@given(logits)
def test_gammons_never_exceed_wins(x: np.ndarray) -> None:
    p = consistent_probabilities(torch.from_numpy(x)).numpy()
    win, wg, wbg, lg, lbg = p.T
    assert ((p >= 0) & (p <= 1)).all()
    assert (wg <= win + 1e-7).all() and (wbg <= wg + 1e-7).all()
    assert (lg <= 1 - win + 1e-6).all() and (lbg <= lg + 1e-7).all()


@given(logits)
def test_flip_is_an_involution_and_negates_equity(x: np.ndarray) -> None:
    p = consistent_probabilities(torch.from_numpy(x)).double().numpy()
    assert np.allclose(flip_probabilities(flip_probabilities(p)), p)
    assert np.allclose(cubeless_equity(flip_probabilities(p)), -cubeless_equity(p))


def test_equity_of_certain_outcomes() -> None:
    assert cubeless_equity(np.array([1.0, 0, 0, 0, 0])) == 1.0
    assert cubeless_equity(np.array([1.0, 1, 1, 0, 0])) == 3.0
    assert cubeless_equity(np.array([0.0, 0, 0, 1, 0])) == -2.0
