"""``jumpgammon serve``: the HTTP API and the web board (needs the ``serve`` extra: FastAPI and uvicorn)."""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
from typing import Any

from cli.common import existing_file, float_range, int_range
from engine.errors import InvalidSpec
from nets.evaluator import load_evaluator

#: The import string of the app factory each process of ``--workers N`` builds its application with.
APP_FACTORY = "service.api:app_from_environment"

EPILOG = """\
endpoints (JSON in, JSON out; OpenAPI description at /openapi.json):
  GET  /               the web board: paste a gnubg ID or an XGID
  GET  /health         liveness and micro-batching counts
  POST /api/evaluate   {"position": ID, "plies": 0}: probabilities, cubeless and cubeful equity
  POST /api/hint       {"position": ID, "dice": [5, 2]}: every legal play, ranked
  POST /api/cube       {"position": ID}: the cube decision under each model
  POST /api/rollout    {"position": ID, "trials": 144}: a bounded rollout, one at a time

Errors are one-line JSON {"error": ..., "field": ...}: 400 a value the engine refuses, 422 a request
off the schema (unknown fields and mistyped values such as "plies": "1" are refused), 413 a body over
64 KiB, 503 (with Retry-After) while another rollout runs. A rollout stops early, answering what it
has with "stopped" saying why, after --max-rollout-seconds or when its client disconnects. On a
loopback --host (the default) requests must name a loopback host (localhost, 127.0.0.1, [::1]) or a
name --allow-host adds.

--workers N runs N server processes on the one port (uvicorn's workers), each with its own net and
batcher; /health names the process (pid) that answered it, and its counts are that process's.

example:
  pip install -e ".[serve]" && jumpgammon serve --port 8080
  curl -s localhost:8080/api/evaluate -H 'Content-Type: application/json' \\
       -d '{"position": "4HPwATDgc/ABMA:cAkZAAAAAAAA"}'
"""


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``serve`` subcommand."""
    p = sub.add_parser(
        "serve",
        help="HTTP API (evaluate, hint, cube, rollout) and a web board at /",
        description="Serve the engine over HTTP on a local address, with micro-batched net calls.",
        epilog=EPILOG,
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument(
        "--allow-host",
        type=host_header_name,
        action="append",
        default=[],
        metavar="NAME",
        help="on a loopback --host, also answer requests whose Host header is NAME (repeatable; e.g. a name "
        "that /etc/hosts maps to 127.0.0.1, or a reverse proxy's)",
    )
    p.add_argument("--port", type=int_range(1, 65535), default=8080, help="port (default 8080)")
    p.add_argument("--weights", type=existing_file, default=None, help="weights file (default: the shipped net)")
    p.add_argument(
        "--no-batching", action="store_true", help="evaluate each request alone (the unbatched path, for comparison)"
    )
    p.add_argument(
        "--max-rollout-trials", type=int_range(1, 100_000), default=1296, help="most trials one rollout request gets"
    )
    p.add_argument(
        "--max-rollout-seconds",
        type=float_range(0, 3600, low_open=True),
        default=60.0,
        help=(
            "time limit of one rollout request: it stops after the block of trials then running and answers "
            "what it has (default 60)"
        ),
    )
    p.add_argument(
        "--net-threads", type=int_range(1, 256), default=1, help="numba threads of the net calls (default 1)"
    )
    p.add_argument(
        "--workers",
        type=int_range(1, 256),
        default=1,
        help="server processes on the same port, each with its own net and batcher (default 1)",
    )
    p.add_argument("--json", action="store_true", help="print the address as one JSON line on stdout once serving")
    p.set_defaults(func=run)


def host_header_name(text: str) -> str:
    """An argparse type for a name a Host header may carry (letters, digits, '-', '.', or an IPv6 address in [])."""
    name = text.strip().lower()
    bare = name[1:-1] if name.startswith("[") and name.endswith("]") else name
    if not bare or not all(ch.isalnum() or ch in "-.:" for ch in bare) or (":" in bare and bare == name):
        raise argparse.ArgumentTypeError(f"{text!r} is not a host name (letters, digits, '-' and '.')")
    return name


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``:``port``; InvalidSpec naming the option when the name or the port will not do.

    Bound before the "serving" line is printed, so that a port in use or an unknown host is a one-line
    error (exit 2), not a success line followed by the server's own failure.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET  # as uvicorn binds: localhost is 127.0.0.1
    try:
        info = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError) as exc:
        raise InvalidSpec(f"--host {host!r}: cannot be resolved ({exc})") from None
    _, kind, proto, _, address = info
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise InvalidSpec(f"--port {port}: cannot listen on {host}:{port} ({exc.strerror or exc})") from None
    return sock


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; returns 0 (2 with a one-line error when the extra is missing)."""
    try:
        import uvicorn  # the optional extra: imported only by the command that needs it

        from service.api import ServeSettings, app_from_settings
    except ModuleNotFoundError as exc:
        raise OSError(
            f"the serve extra is not installed ({exc.name} missing): pip install 'fastapi>=0.110' 'uvicorn>=0.29'"
        ) from None

    settings = ServeSettings(
        weights=None if args.weights is None else str(args.weights),
        batching=not args.no_batching,
        max_rollout_trials=args.max_rollout_trials,
        net_threads=args.net_threads,
        max_rollout_seconds=args.max_rollout_seconds,
        host=args.host,
        allowed_hosts=tuple(args.allow_host),
    )
    options: dict[str, Any] = {"host": args.host, "port": args.port, "log_level": "warning", "access_log": False}
    app = app_from_settings(settings) if args.workers == 1 else None  # N processes: each builds its own
    if app is None:
        load_evaluator(settings.weights)  # a bad weights file is refused here, once, not in every process
        os.environ.update(settings.to_environ())  # the spawned processes inherit it; the factory reads it
    sock = listening_socket(args.host, args.port)
    if app is None:
        sock.close()  # uvicorn's worker processes bind the address themselves: checked free just now
    url = f"http://{args.host}:{args.port}/"
    if args.json:
        print(json.dumps({"url": url, "batching": settings.batching, "workers": args.workers}), flush=True)
    else:
        print(f"jumpgammon serve: {url}, {args.workers} process(es) (Ctrl-C stops)", file=sys.stderr, flush=True)
    if app is None:
        uvicorn.run(APP_FACTORY, factory=True, workers=args.workers, **options)
    else:
        uvicorn.Server(uvicorn.Config(app, **options)).run(sockets=[sock])
    return 0
