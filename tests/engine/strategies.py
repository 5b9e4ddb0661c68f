"""Hypothesis strategies for random legal boards (side on roll's view)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st


@st.composite
def boards(draw: st.DrawFn, max_checkers: int = 15, min_checkers: int = 1) -> np.ndarray:
    """A random legal 26-slot board: each side ``min_checkers`` to ``max_checkers`` checkers, no shared points.

    With ``min_checkers`` 1 (the default) the game is still on; 0 lets either side be borne off.
    """
    b = np.zeros(26, np.int8)
    n_own = draw(st.integers(min_checkers, max_checkers))
    n_opp = draw(st.integers(max(min_checkers, 0 if n_own else 1), max_checkers))
    home_bias = draw(st.booleans())
    own_slots = st.integers(1, 6) if home_bias else st.integers(1, 25)
    for _ in range(n_own):
        b[draw(own_slots)] += 1
    free = [i for i in range(0, 25) if b[i] == 0]
    opp_home = [i for i in free if i >= 19 or i == 0]
    pool = opp_home if home_bias and opp_home else free
    for _ in range(n_opp):
        b[draw(st.sampled_from(pool))] -= 1
    if b[25] > 0 and b[0] < 0 and (b[19:25] <= -2).all() and (b[1:7] >= 2).all():
        b[1] += b[25]  # neither side could ever move: no game is in such a position (Position refuses it)
        b[25] = 0
    return b


dice = st.tuples(st.integers(1, 6), st.integers(1, 6))
