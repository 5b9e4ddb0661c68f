"""Time analyse_file on FILE at PLIES (shipped net, Kazaross-XG2): wall and CPU seconds, a digest of the report.

Usage: ``.venv/bin/python results/analysis/bench_analyse.py FILE PLIES [OUT.json]``; prints one JSON
line. With ``PYTHONPATH=DIR`` (DIR holding an older ``analysis/``), that version is timed; OUT
keeps the report (less its ``seconds``) for a field-by-field comparison of two versions.
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
    ev = load_evaluator(None)
    met = met_by_name("Kazaross-XG2")
    w0, c0 = time.perf_counter(), os.times()
    result = analyse_file(path, ev, plies, met, "shipped", progress=False)
    w1, c1 = time.perf_counter(), os.times()
    text = json.dumps(_without_seconds(to_json(result)), sort_keys=True)
    if len(sys.argv) > 3:
        Path(sys.argv[3]).write_text(text)
    line = {"file": str(path), "plies": plies, "wall": round(w1 - w0, 2), "user": round(c1.user - c0.user, 2)}
    line |= {"sys": round(c1.system - c0.system, 2), "digest": hashlib.sha256(text.encode()).hexdigest()[:16]}
    print(json.dumps(line))


if __name__ == "__main__":
    main()
