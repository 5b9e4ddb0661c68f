"""engine.batch.distinct_rows: the hash table that dedups boards, against numpy's sort-based unique."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.batch import distinct_rows


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rows=st.integers(0, 400), spread=st.integers(0, 15), width=st.integers(1, 26))
def test_distinct_rows_rebuild_the_rows_from_first_occurrences(seed: int, rows: int, spread: int, width: int) -> None:
    boards = np.random.default_rng(seed).integers(-spread, spread + 1, (rows, width)).astype(np.int8)
    first, inverse = distinct_rows(boards)
    assert np.array_equal(boards[first][inverse], boards)
    assert len(first) == len(np.unique(boards, axis=0))  # each distinct row once
    assert np.all(np.diff(first) > 0)  # in order of appearance
    assert all(not (boards[:i] == boards[i]).all(axis=1).any() for i in first)  # each the row's first occurrence


@pytest.mark.parametrize("shape", [(0, 26), (1, 26), (5, 0)])
def test_distinct_rows_of_edge_shapes(shape: tuple[int, int]) -> None:
    boards = np.zeros(shape, np.int8)
    first, inverse = distinct_rows(boards)
    assert np.array_equal(boards[first][inverse], boards)
    assert len(first) == min(1, shape[0])


def test_distinct_rows_refuses_a_flat_array() -> None:
    with pytest.raises(ValueError, match="shape"):
        distinct_rows(np.zeros(26, np.int8))
