"""A bounded load test of ``jumpgammon serve``: many concurrent clients, mixed endpoints, batched against unbatched.

``python -m benchmarks.service_load --out results/service`` starts the server on 127.0.0.1 and
runs client threads against it for ``--seconds``, each sending requests back to back on its own
keep-alive connection, three times: the batched server (``jumpgammon serve``) with ``--clients``
clients; the unbatched server (``jumpgammon serve --no-batching``: every request its own net
call) with as many; and the unbatched server with one client, the same requests sent one at a
time. The headline ratio is the first run's requests per second over the third's; the first over
the second is reported beside it. ``--workers N`` runs the first two servers as N processes
(``jumpgammon serve --workers N``); the one-at-a-time baseline stays one process.
``--client-processes K`` splits the client threads over K processes: one process of Python threads
spends a fraction of a millisecond of CPU a request under one interpreter lock, which caps it at a
few thousand requests a second, less than a many-core server can answer (each run reports its
clients' CPU milliseconds a request). The mix: 45% ``/api/evaluate``, 35% ``/api/hint``, 15%
``/api/cube``, 5% ``/health``, at 0 ply, over positions of random games in money play and at match
scores, as gnubg IDs and as XGIDs, the same sequence in every run.

Reported per run: requests and their status codes (5xx counted apart), requests per second,
latency p50/p90/p99 and the largest, net evaluations (boards) per second and boards per net call
(from ``/health``, summed over the server's processes: a fresh connection lands on any of them, so
``/health`` is asked until each has answered, a bounded number of times; the processes counted are
reported); then the ratios. The client threads share a machine with the server, as they would on one box.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine.match import JACOBY_OFF_BIT, MatchState
from engine.position import Position
from nets.weights import write_atomic
from players.processes import stop_process

MIX = (("/api/evaluate", 45), ("/api/hint", 35), ("/api/cube", 15), ("/health", 5))


@dataclass
class ClientCounts:
    """What a group of client threads sent and got back, the CPU seconds of their process meanwhile, and when.

    ``started`` and ``ended`` are wall-clock times (``time.time``, one clock for every process of the machine):
    the first thread's start and the last one's end.
    """

    statuses: Counter[int] = field(default_factory=Counter)
    by_path: Counter[str] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    cpu_seconds: float = 0.0
    started: float = float("inf")
    ended: float = float("-inf")

    def add(self, other: ClientCounts) -> None:
        """Merge ``other``'s counts, latencies, errors and CPU seconds into these, and its span of time."""
        self.statuses.update(other.statuses)
        self.by_path.update(other.by_path)
        self.latencies.extend(other.latencies)
        self.errors.extend(other.errors)
        self.cpu_seconds += other.cpu_seconds
        self.started = min(self.started, other.started)
        self.ended = max(self.ended, other.ended)


@dataclass
class LoadResult:
    """One run: what was sent, what came back, how fast; ``health_*`` are the server processes' counts by pid."""

    label: str
    clients: int
    seconds: float
    workers: int = 1
    client_processes: int = 1
    counts: ClientCounts = field(default_factory=ClientCounts)
    health_before: dict[int, dict[str, Any]] = field(default_factory=dict)
    health_after: dict[int, dict[str, Any]] = field(default_factory=dict)

    @property
    def requests(self) -> int:
        """Requests answered."""
        return sum(self.counts.statuses.values())

    @property
    def server_errors(self) -> int:
        """Answers with a 5xx status, plus requests that got no answer at all."""
        return sum(n for s, n in self.counts.statuses.items() if s >= 500) + len(self.counts.errors)

    def server_counted(self, key: str) -> float:
        """The growth of ``/health``'s ``key`` during the run, summed over the processes counted before and after."""
        pids = self.health_before.keys() & self.health_after.keys()
        return sum(self.health_after[pid].get(key, 0) - self.health_before[pid].get(key, 0) for pid in pids)

    def to_json(self) -> dict[str, Any]:
        """The figures of the run (latencies in milliseconds)."""
        lat = np.array(self.counts.latencies) * 1000 if self.counts.latencies else np.zeros(1)
        boards = int(self.server_counted("boards"))
        calls = int(self.server_counted("net_calls"))
        net_seconds = self.server_counted("net_seconds")
        return {
            "label": self.label,
            "clients": self.clients,
            "workers": self.workers,
            "workers_counted": len(self.health_before.keys() & self.health_after.keys()),
            "client_processes": self.client_processes,
            "seconds": round(self.seconds, 3),
            "requests": self.requests,
            "requests_per_second": round(self.requests / self.seconds, 1),
            "statuses": {str(k): v for k, v in sorted(self.counts.statuses.items())},
            "server_errors": self.server_errors,
            "connection_errors": len(self.counts.errors),
            "by_path": dict(self.counts.by_path),
            "latency_ms": {
                "p50": round(float(np.percentile(lat, 50)), 2),
                "p90": round(float(np.percentile(lat, 90)), 2),
                "p99": round(float(np.percentile(lat, 99)), 2),
                "max": round(float(lat.max()), 2),
            },
            "client_cpu_seconds": round(self.counts.cpu_seconds, 3),
            "client_cpu_ms_per_request": round(1000 * self.counts.cpu_seconds / self.requests, 3)
            if self.requests
            else None,
            "net_boards": boards,
            "evaluations_per_second": round(boards / self.seconds, 1),
            "net_calls": calls,
            "boards_per_net_call": round(boards / calls, 2) if calls else None,
            "net_seconds": round(net_seconds, 3),
            "boards_per_net_second": round(boards / net_seconds, 1) if net_seconds else None,
        }


def sample_positions(n: int, seed: int) -> list[str]:
    """``n`` position texts of random games with dice rolled: gnubg ID pairs and XGIDs, money and match scores."""
    rng = random.Random(seed)
    out: list[str] = []
    position = Position.initial()
    while len(out) < n:
        d = (rng.randint(1, 6), rng.randint(1, 6))
        dice = (max(d), min(d))
        if rng.random() < 0.5:
            match = MatchState(on_roll=1, turn=1, dice=dice)
        else:
            length = rng.choice([3, 5, 7, 11])
            score = (rng.randint(0, length - 2), rng.randint(0, length - 2))
            match = MatchState(
                on_roll=1, turn=1, dice=dice, match_length=length, score=score, extra_bits=JACOBY_OFF_BIT
            )
        out.append(position.to_xgid(match) if rng.random() < 0.5 else f"{position.id}:{match.id}")
        children = position.children(dice)
        position = children[rng.randrange(len(children))]
        if position.is_over():
            position = Position.initial()
    return out


def requests_for(positions: Sequence[str], count: int, seed: int) -> list[tuple[str, bytes | None]]:
    """``count`` (path, JSON body) pairs drawn from the mix; GET requests have no body."""
    rng = random.Random(seed)
    paths = [p for p, _ in MIX]
    weights = [w for _, w in MIX]
    out: list[tuple[str, bytes | None]] = []
    for _ in range(count):
        path = rng.choices(paths, weights)[0]
        body = None if path == "/health" else json.dumps({"position": rng.choice(positions)}).encode()
        out.append((path, body))
    return out


def get_json(host: str, port: int, path: str, timeout: float = 30.0) -> dict[str, Any]:
    """GET ``path`` and decode its JSON."""
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        conn.request("GET", path)
        return dict(json.loads(conn.getresponse().read()))
    finally:
        conn.close()


def health_by_pid(host: str, port: int, workers: int, tries_per_worker: int = 25) -> dict[int, dict[str, Any]]:
    """``/health`` of each server process, by pid: asked on fresh connections until ``workers`` pids answered.

    Gives up after ``tries_per_worker * workers`` asks; the processes not reached are missing from the answer.
    """
    seen: dict[int, dict[str, Any]] = {}
    for _ in range(tries_per_worker * workers):
        health = get_json(host, port, "/health")
        seen[int(health.get("pid", 0))] = health
        if len(seen) >= workers:
            break
    return seen


def drive_clients(
    host: str, port: int, ks: Sequence[int], clients: int, seconds: float, work: Sequence[tuple[str, bytes | None]]
) -> ClientCounts:
    """Client threads ``ks`` of ``clients`` sending requests from ``work`` (client k: items k, k + clients, ...).

    Each sends back to back on its own keep-alive connection for ``seconds``; returns their counts and the
    CPU seconds this process spent meanwhile.
    """
    total = ClientCounts()
    lock = threading.Lock()
    stop_at = time.perf_counter() + seconds

    def client(k: int) -> None:
        conn = http.client.HTTPConnection(host, port, timeout=60)
        i = k
        mine = ClientCounts()
        while time.perf_counter() < stop_at:
            path, body = work[i % len(work)]
            i += clients
            started = time.perf_counter()
            try:
                if body is None:
                    conn.request("GET", path)
                else:
                    conn.request("POST", path, body, {"Content-Type": "application/json"})
                response = conn.getresponse()
                response.read()
            except (OSError, http.client.HTTPException) as exc:
                mine.errors.append(f"{path}: {type(exc).__name__}: {exc}")
                conn.close()
                conn = http.client.HTTPConnection(host, port, timeout=60)
                continue
            mine.latencies.append(time.perf_counter() - started)
            mine.statuses[response.status] += 1
            mine.by_path[path] += 1
        conn.close()
        with lock:
            total.add(mine)

    cpu, total.started = time.process_time(), time.time()
    threads = [threading.Thread(target=client, args=(k,), daemon=True) for k in ks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    total.cpu_seconds, total.ended = time.process_time() - cpu, time.time()
    return total


def _client_process(
    host: str,
    port: int,
    ks: Sequence[int],
    clients: int,
    seconds: float,
    work: Sequence[tuple[str, bytes | None]],
    start: Any,
    results: Any,
) -> None:
    """A client process of :func:`run_load`: waits at ``start`` (a barrier), then puts its counts on ``results``."""
    start.wait()
    results.put(drive_clients(host, port, ks, clients, seconds, work))


def run_load(
    host: str,
    port: int,
    label: str,
    clients: int,
    seconds: float,
    work: Sequence[tuple[str, bytes | None]],
    *,
    workers: int = 1,
    client_processes: int = 1,
) -> LoadResult:
    """``clients`` client threads, split over ``client_processes`` processes, against a server of ``workers`` processes.

    Returns the merged counts, the seconds from the first client's start to the last one's end, and
    ``/health`` of each server process reached before and after.
    """
    result = LoadResult(label, clients, seconds, workers=workers, client_processes=client_processes)
    result.health_before = health_by_pid(host, port, workers)
    if client_processes == 1:
        result.counts = drive_clients(host, port, range(clients), clients, seconds, work)
    else:
        context = multiprocessing.get_context("spawn")  # no fork of a process that holds threads
        start, results = context.Barrier(client_processes + 1), context.Queue()
        groups = [range(p, clients, client_processes) for p in range(client_processes)]
        procs = [
            context.Process(
                target=_client_process, args=(host, port, ks, clients, seconds, work, start, results), daemon=True
            )
            for ks in groups
        ]
        for proc in procs:
            proc.start()
        try:
            start.wait(timeout=120)  # the processes have imported this module and are ready
            for _ in procs:
                result.counts.add(results.get(timeout=seconds + 120))
        finally:
            for proc in procs:
                proc.join(timeout=10)
                if proc.is_alive():
                    proc.kill()
    result.seconds = result.counts.ended - result.counts.started
    result.health_after = health_by_pid(host, port, workers)
    return result


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(
    batching: bool, port: int, workers: int = 1, startup_timeout: float = 180.0
) -> subprocess.Popen[bytes]:
    """``jumpgammon serve --workers N`` on 127.0.0.1:``port`` (this interpreter's ``cli.main``), once it answers."""
    argv = [sys.executable, "-m", "cli.main", "serve", "--host", "127.0.0.1", "--port", str(port)]
    argv += ["--workers", str(workers)] + ([] if batching else ["--no-batching"])
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    deadline = time.time() + startup_timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"jumpgammon serve exited with status {proc.returncode}")
        try:
            get_json("127.0.0.1", port, "/health", timeout=2)
            return proc
        except OSError:
            time.sleep(0.3)
    proc.terminate()
    raise RuntimeError(f"jumpgammon serve did not answer on port {port} in {startup_timeout:g} s")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    """Stop a server this module started."""
    stop_process(proc, timeout=10)


def compare(
    clients: int, seconds: float, warmup: float, seed: int, workers: int = 1, client_processes: int = 1
) -> dict[str, Any]:
    """The three runs on fresh servers with the same request sequence; their figures and the ratios.

    The batched and unbatched servers with ``clients`` clients run ``workers`` processes, driven by
    ``client_processes`` client processes; the one-at-a-time baseline is one server process and one client.
    """
    work = requests_for(sample_positions(400, seed), 20_000, seed)
    plan = (
        ("batched", True, clients, workers, client_processes),
        ("unbatched", False, clients, workers, client_processes),
        ("unbatched, one at a time", False, 1, 1, 1),
    )
    load_average = [round(v, 2) for v in os.getloadavg()]
    runs: dict[str, dict[str, Any]] = {}
    for label, batching, n, w, k in plan:
        port = free_port()
        proc = start_server(batching, port, w)
        try:
            # numba caches, bearoff databases, every server process started
            run_load("127.0.0.1", port, "warm-up", n, warmup, work, workers=w, client_processes=k)
            runs[label] = run_load("127.0.0.1", port, label, n, seconds, work, workers=w, client_processes=k).to_json()
        finally:
            stop_server(proc)
    rps = {label: max(r["requests_per_second"], 1e-9) for label, r in runs.items()}
    return {
        "benchmark": "benchmarks/service_load.py",
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{os.cpu_count()} CPU cores (shared with the clients)",
        "load_average_at_start": load_average,
        "workers": workers,
        "client_processes": client_processes,
        "mix": {path: weight for path, weight in MIX},
        "seed": seed,
        "runs": runs,
        "batched_over_one_at_a_time_rps": round(rps["batched"] / rps["unbatched, one at a time"], 2),
        "batched_over_unbatched_same_clients_rps": round(rps["batched"] / rps["unbatched"], 2),
    }


def markdown(report: dict[str, Any]) -> str:
    """A short table of the two runs."""
    lines = [
        f"# Service load test ({report['date']})",
        "",
        f"`python -m benchmarks.service_load --workers {report.get('workers', 1)} --client-processes "
        f"{report.get('client_processes', 1)}` on {report['machine']}; mix {report['mix']} (percent).",
        "",
        "| run | server processes | client processes | clients | s | requests | req/s | 5xx | p50 ms | p99 ms "
        "| client CPU ms/request | evals/s | boards/net call | net s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["runs"].values():
        lines.append(
            f"| {r['label']} | {r.get('workers', 1)} ({r.get('workers_counted', 1)} counted) | "
            f"{r.get('client_processes', 1)} | {r['clients']} | {r['seconds']} | {r['requests']} | "
            f"{r['requests_per_second']} | {r['server_errors']} | "
            f"{r['latency_ms']['p50']} | {r['latency_ms']['p99']} | "
            f"{r.get('client_cpu_ms_per_request')} | {r['evaluations_per_second']} | {r['boards_per_net_call']} | "
            f"{r['net_seconds']} |"
        )
    lines += [
        "",
        f"Batched ({report['runs']['batched']['clients']} clients) over the same requests sent one at a time, "
        f"unbatched: **{report['batched_over_one_at_a_time_rps']}x** requests per second; over the unbatched "
        f"server with as many clients: {report['batched_over_unbatched_same_clients_rps']}x.",
        f"Load average of the machine when the test started: {report['load_average_at_start']}.",
        "",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the comparison, print the JSON report, and write it (with a Markdown table) under ``--out``."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--clients", type=int, default=64)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--warmup", type=float, default=5.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=1, help="processes of the batched and unbatched servers")
    p.add_argument("--client-processes", type=int, default=1, help="processes the client threads are split over")
    p.add_argument("--out", type=Path, default=None, help="folder for load_test.json and load_test.md")
    p.add_argument("--name", default="load_test", help="file name under --out, without .json/.md")
    args = p.parse_args(argv)
    for option, value in (("--clients", args.clients), ("--workers", args.workers)):
        if value < 1:
            p.error(f"{option} {value}: expected 1 or more")
    if not 1 <= args.client_processes <= args.clients:
        p.error(f"--client-processes {args.client_processes}: expected 1 to --clients ({args.clients})")
    report = compare(args.clients, args.seconds, args.warmup, args.seed, args.workers, args.client_processes)
    print(json.dumps(report, indent=2))
    if args.out is not None:
        write_atomic(args.out / f"{args.name}.json", (json.dumps(report, indent=2) + "\n").encode("utf-8"))
        write_atomic(args.out / f"{args.name}.md", markdown(report).encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
