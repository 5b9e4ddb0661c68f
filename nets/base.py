"""The evaluator interface everything that scores positions accepts: one batched call."""

from __future__ import annotations

from typing import Protocol

import numpy as np


class BoardEvaluator(Protocol):
    """Scores positions: (n, 5) cubeless probabilities for each int8 (n, 26) board's side on roll, before it rolls."""

    def evaluate_boards(self, boards: np.ndarray) -> np.ndarray: ...
