"""Generate tests/fixtures/gnubg_odd/: game records gnubg 1.07 writes that are valid but out of the ordinary.

Run from the repository root (a few seconds; needs ``/usr/games/gnubg``):

    .venv/bin/python tools/gnubg_fixtures/gen_odd_records.py

Each record is made by gnubg (``gnubg -t -q``, commands on its standard input) and written both
ways, ``save match NAME.sgf`` and ``export match mat NAME.mat``:

* ``rolled_resign``: a 3-point match whose first game ends when the side on roll resigns after
  rolling (its opponent wins 1), whose second ends likewise with the other side rolling, and
  whose third ends with a resigned gammon; imported by gnubg from the ``.mat`` text below.
* ``raccoon``: a money session (beavers allowed, gnubg's default of 3 redoubles) with a double,
  a beaver and a raccoon (the doubler redoubles to 8), from ``tests/fixtures/gnubg_sgf/money_beavers.mat``
  with the raccoon written in.
* ``nocube``: one money game gnubg played against itself with the cube off (``set cube use off``,
  seed 7); the ``.sgf`` says ``RU[NoCube]``, the ``.mat`` cannot say it.

Output: the six files and ``index.json`` (``{"generator", "gnubg_version", "files": [...]}``).
tests/analysis/test_odd_records.py reads them.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

GNUBG = "/usr/games/gnubg"
ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fixtures" / "gnubg_odd"

ROLLED_RESIGN = """ 3 point match

 Game 1
 Alice : 0                      Bob : 0
  1) 31: 8/5 6/5                 42: 8/4 6/4
  2) 63: 24/18 13/10             52:
      Wins 1 point

 Game 2
 Alice : 1                      Bob : 0
  1) 31: 8/5 6/5                 42: 8/4 6/4
  2) 52:                         Wins 1 point

 Game 3
 Alice : 1                      Bob : 1
  1) 65: 24/13                   31: 8/5 6/5
  2) 62: 24/18 13/11             41: 13/9 6/5
                                 Wins 2 points
"""

BEAVER_LINE = "  4)  Doubles => 2                Beavers => 4"


def raccoon_text() -> str:
    """money_beavers.mat with the doubler's raccoon after the beaver (game 1 then worth 8 points)."""
    text = (ROOT / "tests" / "fixtures" / "gnubg_sgf" / "money_beavers.mat").read_text()
    if BEAVER_LINE not in text or "Wins 4 points" not in text:
        raise RuntimeError("money_beavers.mat no longer holds the beaver this generator extends")
    text = text.replace(BEAVER_LINE, BEAVER_LINE + "\n  5)  Beavers => 8", 1)
    return text.replace("Wins 4 points", "Wins 8 points", 1)


def _version() -> str:
    """gnubg's version line."""
    out = subprocess.run([GNUBG, "--version"], capture_output=True, text=True, check=True).stdout
    return out.splitlines()[0].strip()


def main() -> None:
    """Write the records and index.json; raises when gnubg writes nothing."""
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "rolled_resign_in.mat").write_text(ROLLED_RESIGN)
        (work / "raccoon_in.mat").write_text(raccoon_text())
        commands = ["set display off", "set beavers 3"]
        for name in ("rolled_resign", "raccoon"):
            commands += [
                "set jacoby off",
                f"import mat {work / (name + '_in.mat')}",
                f"save match {work / (name + '.sgf')}",
                f"export match mat {work / (name + '.mat')}",
            ]
        commands += [
            "set jacoby on",
            "set player 0 gnubg",
            "set player 1 gnubg",
            "set cube use off",
            "set seed 7",
            "set automatic game off",
            "new session",
            f"save match {work / 'nocube.sgf'}",
            f"export match mat {work / 'nocube.mat'}",
        ]
        script = "\n".join(commands) + "\nquit\n"
        done = subprocess.run([GNUBG, "-t", "-q"], input=script, capture_output=True, text=True, timeout=300)
        files = []
        for name in ("rolled_resign", "raccoon", "nocube"):
            for suffix in (".sgf", ".mat"):
                made = work / (name + suffix)
                if not made.is_file():
                    raise RuntimeError(
                        f"gnubg wrote no {made.name}; it said:\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
                    )
                (OUT / made.name).write_text(made.read_text(encoding="utf-8"), encoding="utf-8")
            files.append(name)
    index = {"generator": "tools/gnubg_fixtures/gen_odd_records.py", "gnubg_version": _version(), "files": files}
    (OUT / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    print(f"wrote {2 * len(files)} records and index.json to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
