"""The service load test's own machinery, briefly: a real server on 127.0.0.1, a few clients for a second.

The full run (64 clients, 30 s a run, three runs) is ``python -m benchmarks.service_load --out
results/service``; here the same client code runs against an in-process uvicorn server, batched and
unbatched, from one client process and from two, and its report must count what the server counted.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

uvicorn = pytest.importorskip("uvicorn", reason="the serve extra (uvicorn) is not installed")

from benchmarks.service_load import (  # noqa: E402
    MIX,
    free_port,
    get_json,
    health_by_pid,
    main,
    markdown,
    requests_for,
    run_load,
    sample_positions,
)
from nets.evaluator import load_evaluator  # noqa: E402
from service.api import create_app  # noqa: E402


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, int]]:
    """A batched and an unbatched server on free ports, each in a thread."""
    evaluator = load_evaluator()
    running, ports = [], {}
    for label, batching in (("batched", True), ("unbatched", False)):
        port = free_port()
        app = create_app(evaluator, batching=batching)
        config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error")
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        running.append((server, thread))
        ports[label] = port
    deadline = time.time() + 30
    for port in ports.values():
        while not _up(port):
            assert time.time() < deadline, "the test server did not start"
            time.sleep(0.1)
    yield ports
    for server, thread in running:
        server.should_exit = True
        thread.join(timeout=10)


def _up(port: int) -> bool:
    try:
        return get_json("127.0.0.1", port, "/health", timeout=1)["status"] == "ok"
    except OSError:
        return False


def test_the_request_mix_follows_its_weights() -> None:
    work = requests_for(sample_positions(50, 1), 4000, 1)
    counts = {path: sum(1 for p, _ in work if p == path) for path, _ in MIX}
    for path, weight in MIX:
        # a multinomial share of 4,000 draws has an SE of at most sqrt(0.25 / 4000) = 0.0079: 0.03 is 3.8 SEs
        assert abs(counts[path] / len(work) - weight / 100) < 0.03
    assert all((body is None) == (path == "/health") for path, body in work)


@pytest.mark.slow
def test_a_short_load_counts_what_the_server_counted(servers: dict[str, int]) -> None:
    work = requests_for(sample_positions(40, 2), 500, 2)
    runs = {}
    for label, port in servers.items():
        result = run_load("127.0.0.1", port, label, clients=4, seconds=1.0, work=work)
        r = result.to_json()
        assert r["requests"] > 0 and r["server_errors"] == 0 and set(r["statuses"]) == {"200"}
        assert r["latency_ms"]["p50"] <= r["latency_ms"]["p99"] <= r["latency_ms"]["max"]
        served = result.server_counted("requests")
        assert r["workers"] == r["workers_counted"] == 1 and r["client_processes"] == 1
        assert r["client_cpu_seconds"] > 0 and r["client_cpu_ms_per_request"] > 0
        assert r["net_boards"] > 0 and served > 0 and r["net_calls"] <= served
        runs[label] = r
    # unbatched: one net call per request that needs the net (all but /health); batched: fewer
    for label in runs:
        r = runs[label]
        needing = r["requests"] - r["by_path"].get("/health", 0)
        assert (r["net_calls"] == needing) if label == "unbatched" else (r["net_calls"] < needing)
    report = {
        "date": "today",
        "machine": "test",
        "mix": dict(MIX),
        "workers": 1,
        "client_processes": 1,
        "runs": {"batched": runs["batched"], "unbatched": runs["unbatched"]},
        "batched_over_one_at_a_time_rps": 1.0,
        "batched_over_unbatched_same_clients_rps": 1.0,
        "load_average_at_start": [0.0],
    }
    table = markdown(report)
    assert table.count("\n| ") == 3 and "batched" in table and "--workers 1 --client-processes 1" in table


@pytest.mark.slow
def test_clients_split_over_processes_add_up(servers: dict[str, int]) -> None:
    """Two client processes (3 and 2 of 5 clients): their merged counts are what the server served."""
    work = requests_for(sample_positions(40, 3), 500, 3)
    result = run_load("127.0.0.1", servers["batched"], "split", clients=5, seconds=1.0, work=work, client_processes=2)
    r = result.to_json()
    assert r["client_processes"] == 2 and r["requests"] > 0 and r["server_errors"] == 0
    assert r["seconds"] >= 1.0  # from the first client's start to the last one's end
    assert sum(r["by_path"].values()) == r["requests"] == len(result.counts.latencies)
    # every request but /health is counted by the server (its own /health snapshots are not clients')
    needing = r["requests"] - r["by_path"].get("/health", 0)
    served = result.server_counted("requests")
    assert served > 0 and served <= r["requests"] and r["net_calls"] <= needing
    assert r["client_cpu_seconds"] > 0


def test_health_is_asked_until_every_process_answered(servers: dict[str, int]) -> None:
    """One server process: one answer, keyed by its pid; asking for two gives up after its bounded tries."""
    one = health_by_pid("127.0.0.1", servers["batched"], 1)
    (pid,) = one
    assert one[pid]["pid"] == pid and one[pid]["status"] == "ok"
    assert len(health_by_pid("127.0.0.1", servers["batched"], 2, tries_per_worker=2)) == 1


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["--workers", "0"], "--workers"),
        (["--client-processes", "0"], "--client-processes"),
        (["--clients", "2", "--client-processes", "3"], "--client-processes"),
        (["--workers", "x"], "--workers"),
    ],
)
def test_bad_options_are_refused_with_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], needle: str) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == "" and needle in captured.err.splitlines()[-1]
