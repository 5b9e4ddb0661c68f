"""engine.batch.distinct_rows: the hash table that dedups boards, against numpy's sort-based unique."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.batch import distinct_rows


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rows=st.integers(0, 400), spread=st.integers(0, 15))
def test_distinct_rows_rebuild_the_rows_from_first_occurrences(seed: int, rows: int, spread: int) -> None:
    boards = np.random.default_rng(seed).integers(-spread, spread + 1, (rows, 26)).astype(np.int8)
    first, inverse = distinct_rows(boards)
    assert np.array_equal(boards[first][inverse], boards)
    assert len(first) == len(np.unique(boards, axis=0))  # each distinct row once
    assert np.all(np.diff(first) > 0)  # in order of appearance
    assert all(not (boards[:i] == boards[i]).all(axis=1).any() for i in first)  # each the row's first occurrence


def test_boards_differing_in_one_point_only_are_told_apart() -> None:
    base = np.zeros(26, np.int8)
    boards = np.repeat(base[None], 52, axis=0)
    for point in range(26):  # each point once raised and once lowered: 52 distinct boards and the base
        boards[2 * point, point], boards[2 * point + 1, point] = 1, -1
    boards = np.concatenate([boards, base[None], boards])
    first, inverse = distinct_rows(boards)
    assert len(first) == 53 and np.array_equal(inverse[53:], inverse[:52])


@pytest.mark.parametrize("shape", [(0, 26), (1, 26)])
def test_distinct_rows_of_edge_shapes(shape: tuple[int, int]) -> None:
    boards = np.zeros(shape, np.int8)
    first, inverse = distinct_rows(boards)
    assert np.array_equal(boards[first][inverse], boards) and len(first) == shape[0]


@pytest.mark.parametrize("shape", [(26,), (3, 25)])
def test_distinct_rows_refuses_what_is_no_board_array(shape: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="shape"):
        distinct_rows(np.zeros(shape, np.int8))
