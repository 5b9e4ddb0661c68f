"""The cube specs the experiments compare, side by side on synthetic positions: where each opens its windows."""

from __future__ import annotations

import numpy as np
import pytest

from cube.states import CubeAction, CubeState
from players.cube import parse_cube_spec


def _redouble_point(spec: str, w: float, l: float) -> float:
    """The lowest P(win) (a grid of 0.0001) at which ``spec`` redoubles its own cube, a win worth ``w`` and a loss
    ``l`` (gammons, no backgammons), the side on roll's view."""
    p = np.linspace(0.5, 0.99, 4901)
    probs = np.stack([p, p * (w - 1), 0 * p, (1 - p) * (l - 1), 0 * p], axis=1)
    strategy = parse_cube_spec(spec).strategy
    assert strategy is not None
    decided = strategy.decide(probs, CubeState.OWNED)
    doubles = np.asarray(decided.action, dtype=str) == str(CubeAction.DOUBLE)
    assert doubles.any() and not doubles.all()
    return float(p[np.argmax(doubles)])


@pytest.mark.parametrize(("w", "l"), [(1.0, 1.0), (1.5, 1.2), (2.0, 1.5)])
def test_at_their_optima_the_constant_jump_model_redoubles_where_janowski_does(w: float, l: float) -> None:
    """The sweeps' optima (docs/experiments.md) open the same redoubling window within 0.01 of P(win)."""
    jump, janowski = _redouble_point("jump:0.079:numerical", w, l), _redouble_point("janowski:0.730", w, l)
    assert abs(jump - janowski) < 0.01


def test_a_deader_remote_alpha_redoubles_earlier() -> None:
    """jump-local's remote alpha, 0.10, as a constant: a deader cube than the optimum's, so an earlier redouble."""
    for w, l in [(1.25, 1.25), (1.5, 1.2)]:
        assert _redouble_point("jump:0.10:numerical", w, l) < _redouble_point("jump:0.079:numerical", w, l)
