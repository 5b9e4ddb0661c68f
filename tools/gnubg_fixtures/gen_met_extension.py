"""Generate tests/fixtures/gnubg_met_extended.json: the match equity tables GNU Backgammon 1.07 holds in memory.

gnubg extends every table it reads to 64 points (post-Crawford by its recursion, pre-Crawford by
a normal approximation); ``cube.met.extended_met`` does the same. Run from the repository root
(a few seconds; needs ``/usr/games/gnubg``):

    .venv/bin/python tools/gnubg_fixtures/gen_met_extension.py

This file runs twice: with the project's Python it starts gnubg (``gnubg -t -q -p`` on itself);
inside gnubg (stdlib and gnubg's module only) it sets each shipped table (``set
matchequitytable FILE``) and writes ``gnubg.met(64)``'s pre-Crawford table and post-Crawford row,
up to ``SIZE`` points, for the three tables this project ships.

Output: ``{"generator", "gnubg_version", "size", "tables": {NAME: {"pre_crawford": [[...]],
"post_crawford": [...]}}}``; MWCs as gnubg's single precision gives them, to 7 decimals.
"""

import json
import os
import subprocess
import sys

try:  # gnubg's own module inside gnubg (the venv may hold an unrelated pip package of that name)
    import gnubg
except ImportError:
    gnubg = None

GNUBG = "/usr/games/gnubg"
OUT = os.path.join("tests", "fixtures", "gnubg_met_extended.json")
FILES = {
    "Kazaross-XG2": "/usr/share/gnubg/met/Kazaross-XG2.xml",
    "Rockwell-Kazaross": "/usr/share/gnubg/met/Rockwell-Kazaross.xml",
    "Woolsey": "/usr/share/gnubg/met/woolsey.xml",
}
SIZE = 40
JOB = "MET_EXTENSION_OUT"


def inside_gnubg(out: str) -> None:
    """Write each table's first SIZE points as gnubg holds them."""
    tables = {}
    for name, path in FILES.items():
        gnubg.command(f"set matchequitytable {path}")
        pre, post0, _ = gnubg.met(64)
        tables[name] = {
            "pre_crawford": [[round(v, 7) for v in row[:SIZE]] for row in pre[:SIZE]],
            "post_crawford": [round(v, 7) for v in post0[:SIZE]],
        }
    with open(out, "w") as f:
        json.dump({"size": SIZE, "tables": tables}, f)


def main() -> None:
    """Run this file inside gnubg and add the generator's name and gnubg's version."""
    tmp = OUT + ".tmp"
    env = dict(os.environ, **{JOB: tmp})
    subprocess.run(
        [GNUBG, "-t", "-q", "-p", os.path.abspath(__file__)], env=env, check=True, timeout=300, capture_output=True
    )
    with open(tmp) as f:
        data = json.load(f)
    os.remove(tmp)
    version = subprocess.run([GNUBG, "--version"], capture_output=True, text=True, check=True).stdout.splitlines()[0]
    data = {"generator": "tools/gnubg_fixtures/gen_met_extension.py", "gnubg_version": version.strip(), **data}
    with open(OUT, "w") as f:
        f.write(json.dumps(data) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    if gnubg is not None and os.environ.get(JOB):
        inside_gnubg(os.environ[JOB])
    else:
        main()
        sys.exit(0)
