"""Worker process pools for blocks of games (spawned, sharing the cores, one BLAS thread each) and Ray connections."""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from multiprocessing.pool import Pool
from typing import Any

from engine.errors import InvalidSpec


def worker_threads(workers: int) -> dict[str, str]:
    """Environment sizing one worker's thread pools: its share of the cores for numba, one BLAS thread.

    numba runs the encoding and the nets' layers; OpenBLAS's spinning threads would only steal
    cycles from numba's, so each worker multiplies on one thread.
    """
    share = max(1, (os.cpu_count() or 1) // max(1, workers))
    return {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": str(share)}


#: The thread pools of a Ray task (one task per CPU).
RAY_TASK_THREADS = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}


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
    """A pool of ``workers`` spawned processes sharing the cores (see ``worker_threads``).

    Spawn, not fork: numba's and OpenBLAS's thread pools do not survive a fork safely. Both read
    their thread counts when a worker imports them, and workers inherit the environment they
    start with, so it is set while the pool starts. Workers ignore SIGINT from their first
    instruction (they start with it ignored): Ctrl-C reaches the whole process group, and only
    the parent answers it, by leaving this block, which terminates the pool.
    """
    pool: Pool | None = None
    try:
        with scoped_environment(**worker_threads(workers)):
            with _interrupts_held():
                pool = mp.get_context("spawn").Pool(workers, _start_worker, (initializer, initargs))
            # a Ctrl-C held while the pool started is raised here, and the pool is terminated below
            with pool:
                yield pool
    finally:
        if pool is not None:
            pool.terminate()


def _start_worker(initializer: Callable[..., Any] | None, initargs: tuple[Any, ...]) -> None:
    """A worker's start: SIGINT ignored (the parent handles Ctrl-C), then the pool's own initializer."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # held by the parent while it spawned us
    if initializer is not None:
        initializer(*initargs)


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """SIGINT ignored and blocked while the block runs (main thread only).

    Processes spawned in the block start with it ignored (and blocked, until :func:`_start_worker`).
    A Ctrl-C that arrives meanwhile is not lost: a blocked signal stays pending even while ignored,
    and reaches this process's own handler once the handler and the mask are restored.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """Refuse a ``HOST:PORT`` Ray address nothing answers on (Ray itself would retry for minutes)."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise InvalidSpec(f"--ray {address!r} is not auto, local or HOST:PORT")
    try:
        with socket.create_connection((host.removeprefix("ray://") or "127.0.0.1", int(port)), timeout=timeout):
            pass
    except OSError as exc:
        raise InvalidSpec(f"--ray {address!r}: cannot reach a Ray cluster there ({exc.strerror or exc})") from None


def connect_ray(address: str) -> Any:
    """The ``ray`` module, connected to ``address`` (``local`` starts Ray on this machine); raises InvalidSpec.

    Ray is an optional extra, imported only here when a command asks for it.
    """
    try:
        import ray
    except ImportError:
        raise InvalidSpec("--ray needs Ray: pip install 'ray>=2.9'") from None
    if address not in ("auto", "local"):
        check_reachable(address)
    try:
        # Ray runs a task per CPU: each on one thread of numba and BLAS (numba's parallel kernels, sized to
        # every core in every task, made a cube-error shard 17 times slower on 2 cores).
        ray.init(
            address=None if address == "local" else address,
            ignore_reinit_error=True,
            log_to_driver=False,
            runtime_env={"env_vars": RAY_TASK_THREADS},
        )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise InvalidSpec(f"--ray {address!r}: cannot reach a Ray cluster ({exc})") from None
    return ray
