"""Hand-made boards for tests."""

from __future__ import annotations

import numpy as np


def board_from_counts(own: dict[int, int], opponent: dict[int, int]) -> np.ndarray:
    """A board from the side on roll's counts by point (25: bar) and the opponent's by our point (0: its bar)."""
    b = np.zeros(26, np.int8)
    for p, n in own.items():
        b[p] = n
    for p, n in opponent.items():
        b[p] = -n
    return b
