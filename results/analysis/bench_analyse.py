"""Time analyse_file on FILE at PLIES (shipped net, Kazaross-XG2): wall and CPU seconds, a digest of the report.

Usage: ``.venv/bin/python results/analysis/bench_analyse.py FILE PLIES [OUT.json [WORKERS]]``; prints
one JSON line. With ``PYTHONPATH=DIR`` (DIR holding an older ``analysis/``), that version is timed;
OUT (``-`` for none) keeps the report (less its ``seconds``) for a field-by-field comparison of two
versions. With WORKERS (``analyse --workers``), the CPU seconds include the worker processes' and the
line gives the load average (1, 5, 15 minutes) at the start.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from analysis.analyse import analyse_file
from analysis.report import to_json
from cube.met import met_by_name
from nets import load_evaluator


def _without_seconds(value: Any) -> Any:
    """The report with its timing left out and floats to 9 decimals."""
    if isinstance(value, dict):
        return {k: _without_seconds(v) for k, v in value.items() if k != "seconds"}
    if isinstance(value, list):
        return [_without_seconds(v) for v in value]
    return round(value, 9) if isinstance(value, float) else value


def main() -> None:
    """Analyse once and print the file, depth, wall, user and sys seconds and the report's digest."""
    path, plies = Path(sys.argv[1]), int(sys.argv[2])
    workers = int(sys.argv[4]) if len(sys.argv) > 4 else None
    ev = load_evaluator(None)
    met = met_by_name("Kazaross-XG2")
    load = os.getloadavg()
    w0, c0 = time.perf_counter(), os.times()
    if workers is None:
        result = analyse_file(path, ev, plies, met, "shipped", progress=False)
    else:
        result = analyse_file(path, ev, plies, met, "shipped", progress=False, workers=workers)
    w1, c1 = time.perf_counter(), os.times()
    text = json.dumps(_without_seconds(to_json(result)), sort_keys=True)
    if len(sys.argv) > 3 and sys.argv[3] != "-":
        Path(sys.argv[3]).write_text(text)
    user, system = c1.user - c0.user, c1.system - c0.system
    line: dict[str, object] = {"file": str(path), "plies": plies}
    if workers is not None:  # the workers have ended (the pool is closed): their time is the children's
        user += c1.children_user - c0.children_user
        system += c1.children_system - c0.children_system
        line |= {"workers": workers, "loadavg": [round(x, 2) for x in load]}
    line |= {"wall": round(w1 - w0, 2), "user": round(user, 2), "sys": round(system, 2)}
    line |= {"digest": hashlib.sha256(text.encode()).hexdigest()[:16]}
    print(json.dumps(line))


if __name__ == "__main__":
    main()
