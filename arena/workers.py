"""Worker process pools for blocks of games: spawned, one BLAS thread each."""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
from collections.abc import Callable, Iterator
from multiprocessing.pool import Pool
from typing import Any

# Variables that size a worker's thread pools; the workers already share the cores among themselves.
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}


@contextlib.contextmanager
def scoped_environment(**values: str) -> Iterator[None]:
    """Set environment variables for the duration of the block, restoring the previous values afterwards."""
    previous = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in previous.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@contextlib.contextmanager
def worker_pool(
    workers: int, initializer: Callable[..., Any] | None = None, initargs: tuple[Any, ...] = ()
) -> Iterator[Pool]:
    """A pool of ``workers`` spawned processes, each multiplying matrices on one thread.

    Spawn, not fork: numba's and OpenBLAS's thread pools do not survive a fork safely. OpenBLAS
    reads its thread count when a worker imports numpy, and workers inherit the environment they
    start with, so it is set while the pool starts.
    """
    with scoped_environment(**ONE_THREAD), mp.get_context("spawn").Pool(workers, initializer, initargs) as pool:
        yield pool
