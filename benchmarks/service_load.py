"""A bounded load test of ``jumpgammon serve``: many concurrent clients, mixed endpoints, batched against unbatched.

``python -m benchmarks.service_load --out results/service`` starts the server on 127.0.0.1 and
runs client threads against it for ``--seconds``, each sending requests back to back on its own
keep-alive connection, three times: the batched server (``jumpgammon serve``) with ``--clients``
clients; the unbatched server (``jumpgammon serve --no-batching``: every request its own net
call) with as many; and the unbatched server with one client, the same requests sent one at a
time. The headline ratio is the first run's requests per second over the third's; the first over
the second is reported beside it. The mix: 45% ``/api/evaluate``, 35%
``/api/hint``, 15% ``/api/cube``, 5% ``/health``, at 0 ply, over positions of random games in money
play and at match scores, as gnubg IDs and as XGIDs, the same sequence in both runs.

Reported per run: requests and their status codes (5xx counted apart), requests per second,
latency p50/p90/p99 and the largest, net evaluations (boards) per second and boards per net call
(from ``/health``); then the ratios. The
client threads share a machine with the server, as they would on one box.
"""

from __future__ import annotations

import argparse
import http.client
import json
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
class LoadResult:
    """One run: what was sent, what came back, how fast."""

    label: str
    clients: int
    seconds: float
    statuses: Counter[int] = field(default_factory=Counter)
    by_path: Counter[str] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    health_before: dict[str, Any] = field(default_factory=dict)
    health_after: dict[str, Any] = field(default_factory=dict)

    @property
    def requests(self) -> int:
        """Requests answered."""
        return sum(self.statuses.values())

    @property
    def server_errors(self) -> int:
        """Answers with a 5xx status, plus requests that got no answer at all."""
        return sum(n for s, n in self.statuses.items() if s >= 500) + len(self.errors)

    def to_json(self) -> dict[str, Any]:
        """The figures of the run (latencies in milliseconds)."""
        lat = np.array(self.latencies) * 1000 if self.latencies else np.zeros(1)
        boards = self.health_after.get("boards", 0) - self.health_before.get("boards", 0)
        calls = self.health_after.get("net_calls", 0) - self.health_before.get("net_calls", 0)
        net_seconds = self.health_after.get("net_seconds", 0.0) - self.health_before.get("net_seconds", 0.0)
        return {
            "label": self.label,
            "clients": self.clients,
            "seconds": round(self.seconds, 3),
            "requests": self.requests,
            "requests_per_second": round(self.requests / self.seconds, 1),
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "server_errors": self.server_errors,
            "connection_errors": len(self.errors),
            "by_path": dict(self.by_path),
            "latency_ms": {
                "p50": round(float(np.percentile(lat, 50)), 2),
                "p90": round(float(np.percentile(lat, 90)), 2),
                "p99": round(float(np.percentile(lat, 99)), 2),
                "max": round(float(lat.max()), 2),
            },
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


def run_load(
    host: str, port: int, label: str, clients: int, seconds: float, work: Sequence[tuple[str, bytes | None]]
) -> LoadResult:
    """``clients`` threads sending requests from ``work`` (each its own slice, cycled) for ``seconds``."""
    result = LoadResult(label, clients, seconds)
    result.health_before = get_json(host, port, "/health")
    lock = threading.Lock()
    stop_at = time.perf_counter() + seconds

    def client(k: int) -> None:
        conn = http.client.HTTPConnection(host, port, timeout=60)
        i = k
        statuses: Counter[int] = Counter()
        paths: Counter[str] = Counter()
        latencies: list[float] = []
        errors: list[str] = []
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
                errors.append(f"{path}: {type(exc).__name__}: {exc}")
                conn.close()
                conn = http.client.HTTPConnection(host, port, timeout=60)
                continue
            latencies.append(time.perf_counter() - started)
            statuses[response.status] += 1
            paths[path] += 1
        conn.close()
        with lock:
            result.statuses.update(statuses)
            result.by_path.update(paths)
            result.latencies.extend(latencies)
            result.errors.extend(errors)

    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(k,), daemon=True) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    result.seconds = time.perf_counter() - started
    result.health_after = get_json(host, port, "/health")
    return result


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(batching: bool, port: int, startup_timeout: float = 180.0) -> subprocess.Popen[bytes]:
    """``jumpgammon serve`` on 127.0.0.1:``port`` (this interpreter's ``cli.main``), once it answers /health."""
    argv = [sys.executable, "-m", "cli.main", "serve", "--host", "127.0.0.1", "--port", str(port)]
    proc = subprocess.Popen(argv + ([] if batching else ["--no-batching"]), stdout=subprocess.DEVNULL)
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


def compare(clients: int, seconds: float, warmup: float, seed: int) -> dict[str, Any]:
    """The three runs on fresh servers with the same request sequence; their figures and the ratios."""
    work = requests_for(sample_positions(400, seed), 20_000, seed)
    plan = (("batched", True, clients), ("unbatched", False, clients), ("unbatched, one at a time", False, 1))
    runs: dict[str, dict[str, Any]] = {}
    for label, batching, n in plan:
        port = free_port()
        proc = start_server(batching, port)
        try:
            run_load("127.0.0.1", port, "warm-up", n, warmup, work)  # numba caches, bearoff databases
            runs[label] = run_load("127.0.0.1", port, label, n, seconds, work).to_json()
        finally:
            stop_server(proc)
    rps = {label: max(r["requests_per_second"], 1e-9) for label, r in runs.items()}
    return {
        "benchmark": "benchmarks/service_load.py",
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{os.cpu_count()} CPU cores (shared with the clients)",
        "load_average_at_start": [round(v, 2) for v in os.getloadavg()],
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
        f"`python -m benchmarks.service_load` on {report['machine']}; mix {report['mix']} (percent).",
        "",
        "| run | clients | s | requests | req/s | 5xx | p50 ms | p99 ms | evals/s | boards/net call | net s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["runs"].values():
        lines.append(
            f"| {r['label']} | {r['clients']} | {r['seconds']} | {r['requests']} | {r['requests_per_second']} | "
            f"{r['server_errors']} | {r['latency_ms']['p50']} | {r['latency_ms']['p99']} | "
            f"{r['evaluations_per_second']} | {r['boards_per_net_call']} | {r['net_seconds']} |"
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
    p.add_argument("--out", type=Path, default=None, help="folder for load_test.json and load_test.md")
    args = p.parse_args(argv)
    report = compare(args.clients, args.seconds, args.warmup, args.seed)
    print(json.dumps(report, indent=2))
    if args.out is not None:
        write_atomic(args.out / "load_test.json", (json.dumps(report, indent=2) + "\n").encode("utf-8"))
        write_atomic(args.out / "load_test.md", markdown(report).encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
