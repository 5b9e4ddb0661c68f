"""Micro-batching: the boards of requests that arrive together are evaluated in one call of the net.

Requests put their boards on a queue and wait. One worker task takes *everything* queued, calls
the net once on all of it (in the single net thread, so the event loop keeps serving), and hands
each request its rows. While that call runs, new requests queue up and form the next batch: a
batch is as large as the load makes it, with no added wait when the server is idle.

Work that calls the net itself (ranking plays, deeper plies) runs in a pool of worker threads
with :class:`BatchedEvaluator`, an evaluator whose every call joins the queue: the project's own
functions (:mod:`nets.analysis`, :mod:`nets.lookahead`) run unchanged and are batched too.

With ``batching`` off every request calls the net alone, one at a time in the same net thread:
the unbatched path the load test compares against.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numba
import numpy as np

T = TypeVar("T")
#: The most boards one net call takes; a larger queue is split over several calls.
MAX_BATCH_BOARDS = 8192
#: Worker threads for work that calls the net through :class:`BatchedEvaluator`.
WORKERS = 32


@dataclass
class BatchStats:
    """Counts since the start: net calls, the requests and boards they served, and seconds spent in the net."""

    calls: int = 0
    requests: int = 0
    boards: int = 0
    net_seconds: float = 0.0
    started: float = field(default_factory=time.perf_counter)

    def to_json(self) -> dict[str, Any]:
        """The counts, with boards per call and per second of uptime."""
        up = time.perf_counter() - self.started
        return {
            "net_calls": self.calls,
            "requests": self.requests,
            "boards": self.boards,
            "boards_per_call": round(self.boards / self.calls, 2) if self.calls else None,
            "requests_per_call": round(self.requests / self.calls, 2) if self.calls else None,
            "net_seconds": round(self.net_seconds, 3),
            "uptime_seconds": round(up, 3),
        }


class NetBatcher:
    """Evaluates boards for concurrent requests, batched (or, with ``batching`` off, one request a call).

    ``evaluate(boards)`` maps int8 (n, 26) boards (side on roll's view) to their (n, 5) probabilities.
    Everything touching the net, batched or not, runs in one thread (:meth:`run`), so calls never overlap.
    ``net_threads`` is numba's thread count in it: 1 by default, since numba's pool, fast on an idle machine,
    made a call ten to a hundred times slower on a busy one (measured on the 2-core machine of the load test).
    """

    def __init__(
        self, evaluate: Callable[[np.ndarray], np.ndarray], *, batching: bool = True, net_threads: int = 1
    ) -> None:
        self.evaluate = evaluate
        self.batching = batching
        self.stats = BatchStats()
        self._executor = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="net", initializer=numba.set_num_threads, initargs=(net_threads,)
        )
        self._workers = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="work")
        self._pending: list[tuple[np.ndarray, asyncio.Future[np.ndarray]]] = []
        self._worker: asyncio.Task[None] | None = None
        self._lock = threading.Lock()

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` in the net thread (for work that calls the net itself: deeper plies, lookaheads)."""
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(evaluator, *args)`` in a worker thread, with an evaluator whose calls go through this batcher."""
        evaluator = BatchedEvaluator(self, asyncio.get_running_loop())
        return await asyncio.get_running_loop().run_in_executor(self._workers, fn, evaluator, *args)

    def _call(self, boards: np.ndarray, requests: int) -> np.ndarray:
        started = time.perf_counter()
        out = self.evaluate(boards)
        with self._lock:
            self.stats.calls += 1
            self.stats.requests += requests
            self.stats.boards += len(boards)
            self.stats.net_seconds += time.perf_counter() - started
        return out

    async def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """The net's (n, 5) probabilities of ``boards`` (side on roll's view), in the next batch."""
        boards = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 26)
        if not self.batching:
            return await self.run(self._call, boards, 1)
        future: asyncio.Future[np.ndarray] = asyncio.get_running_loop().create_future()
        self._pending.append((boards, future))
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        """Evaluate the queue batch by batch until it is empty."""
        await asyncio.sleep(0)  # let the requests of this loop turn join the first batch
        while self._pending:
            batch: list[tuple[np.ndarray, asyncio.Future[np.ndarray]]] = []
            size = 0
            while self._pending and (not batch or size + len(self._pending[0][0]) <= MAX_BATCH_BOARDS):
                item = self._pending.pop(0)
                batch.append(item)
                size += len(item[0])
            stacked = np.concatenate([b for b, _ in batch])
            try:
                probs = await self.run(self._call, stacked, len(batch))
            except Exception as exc:  # every waiting request gets the error, the worker goes on
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            start = 0
            for boards, future in batch:
                if not future.done():
                    future.set_result(probs[start : start + len(boards)])
                start += len(boards)

    def close(self) -> None:
        """Stop the worker and net threads (after the calls queued on them)."""
        self._workers.shutdown(wait=True)
        self._executor.shutdown(wait=True)


class BatchedEvaluator:
    """A board evaluator (:class:`nets.base.BoardEvaluator`) for worker threads: each call waits for its batch."""

    def __init__(self, batcher: NetBatcher, loop: asyncio.AbstractEventLoop) -> None:
        self.batcher = batcher
        self.loop = loop

    def evaluate_boards(self, boards: np.ndarray) -> np.ndarray:
        """The net's (n, 5) probabilities of ``boards`` (side on roll's view), from the batcher."""
        if len(boards) == 0:
            return np.zeros((0, 5))
        return asyncio.run_coroutine_threadsafe(self.batcher.probabilities(boards), self.loop).result()
