"""Generate tests/fixtures/gnubg_sgf/: .mat fixtures imported by GNU Backgammon 1.07 and saved as its .sgf files.

Run from the repository root with the project's Python (a few seconds):

    .venv/bin/python tools/gnubg_fixtures/gen_sgf.py

For each source in SOURCES, gnubg (``/usr/games/gnubg -t -q``, commands on its standard input)
is told the session's rules (``set jacoby on|off``, ``set beavers on|off``: gnubg reads no rules
from a .mat file), then ``import mat SOURCE`` and ``save match OUT.sgf``. Sources are .mat files
of tests/fixtures/gnubg_analysis (gnubg's own matches, with resignations, drops and Crawford
games; arena money sessions) and, for beavers and the Jacoby rule, sessions of
tests/fixtures/gnubg_mat_import.json, whose .mat lines are written next to their .sgf here
(``NAME.mat``) so the test can read both.

Output: ``tests/fixtures/gnubg_sgf/NAME.sgf`` as gnubg wrote it (its ``DT`` property is the day
it ran) and ``index.json``: ``{"generator", "gnubg_version", "files": [{"sgf", "mat", "jacoby",
"beavers"}]}`` with paths relative to tests/fixtures. tests/analysis/test_sgf.py checks that each
.sgf reads into the same games, plays and cube actions as its .mat.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

GNUBG = "/usr/games/gnubg"
ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
OUT = FIXTURES / "gnubg_sgf"

# (name, source: a .mat under tests/fixtures or "mat_import:TOURNAMENT:FILE", jacoby, beavers)
SOURCES = [
    ("gnubg_03pt_s04", "gnubg_analysis/gnubg_03pt_s04.mat", False, True),
    ("gnubg_03pt_s05", "gnubg_analysis/gnubg_03pt_s05.mat", False, True),
    ("gnubg_05pt_s10", "gnubg_analysis/gnubg_05pt_s10.mat", False, True),
    ("gnubg_07pt_s14", "gnubg_analysis/gnubg_07pt_s14.mat", False, True),
    ("gnubg_09pt_s17", "gnubg_analysis/gnubg_09pt_s17.mat", False, True),
    ("arena_money_s3_pair_000000", "gnubg_analysis/arena_money_s3_pair_000000.mat", False, True),
    ("money_beavers", "mat_import:0:pair_000000.mat", False, True),
    ("money_jacoby", "mat_import:1:pair_000000.mat", True, False),
]


def _source(source: str) -> tuple[Path, str | None]:
    """The .mat file to import and, for a mat_import session, the text to write next to the .sgf."""
    if not source.startswith("mat_import:"):
        return FIXTURES / source, None
    _, tournament, name = source.split(":")
    fixture = json.loads((FIXTURES / "gnubg_mat_import.json").read_text())
    (session,) = [s for s in fixture["sessions"] if s["tournament"] == int(tournament) and s["file"] == name]
    return Path(), "\n".join(session["mat"]) + "\n"


def _version() -> str:
    """gnubg's version line."""
    out = subprocess.run([GNUBG, "--version"], capture_output=True, text=True, check=True).stdout
    return out.splitlines()[0].strip()


def main() -> None:
    """Write the .sgf files and index.json; raises when gnubg complains or writes nothing."""
    OUT.mkdir(parents=True, exist_ok=True)
    files = []
    with tempfile.TemporaryDirectory() as tmp:
        commands = ["set display off"]
        for name, source, jacoby, beavers in SOURCES:
            mat, text = _source(source)
            if text is not None:
                mat = OUT / f"{name}.mat"
                mat.write_text(text)
            sgf = Path(tmp) / f"{name}.sgf"
            commands += [
                f"set jacoby {'on' if jacoby else 'off'}",
                f"set beavers {'on' if beavers else 'off'}",
                f"import mat {mat}",
                f"save match {sgf}",
            ]
            files.append({"sgf": f"gnubg_sgf/{name}.sgf", "mat": str(mat.relative_to(FIXTURES)), "jacoby": jacoby})
            files[-1]["beavers"] = beavers
        script = "\n".join(commands) + "\nquit\n"
        done = subprocess.run([GNUBG, "-t", "-q"], input=script, capture_output=True, text=True, timeout=300)
        for name, *_ in SOURCES:
            sgf = Path(tmp) / f"{name}.sgf"
            if not sgf.is_file():
                raise RuntimeError(f"gnubg wrote no {sgf.name}; it said:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
            (OUT / sgf.name).write_text(sgf.read_text(encoding="utf-8"), encoding="utf-8")
    index = {"generator": "tools/gnubg_fixtures/gen_sgf.py", "gnubg_version": _version(), "files": files}
    (OUT / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    print(f"wrote {len(files)} .sgf files and index.json to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
