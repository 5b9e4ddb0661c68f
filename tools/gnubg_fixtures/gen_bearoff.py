"""Generate bearoff fixtures from GNU Backgammon's own databases.

Builds gnubg's two-sided 6x6 database (``makebearoff -t 6x6``) and its one-sided 15-checker
database (``makebearoff -o 6``) in a temporary folder, then dumps random positions with
``bearoffdump -p POSITION_ID`` and writes what gnubg prints, verbatim values only:

* ``tests/fixtures/gnubg_bearoff_two_sided.json``: per position ID (side on roll's view), the
  printed ``Cubeless equity``, ``Owned cube``, ``Centered cube`` and ``Opponent owns cube``.
* ``tests/fixtures/gnubg_bearoff_one_sided.json``: per position ID, for the side on roll
  ("player") and its opponent, the printed roll distributions (percent) for bearing off all
  checkers and at least one checker, and the printed means and standard deviations.

Run: ``python tools/gnubg_fixtures/gen_bearoff.py`` (needs /usr/games/makebearoff and
/usr/games/bearoffdump). The tests that read the JSON do not need gnubg.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from engine import Position  # noqa: E402
from nets.bearoff import N_TWO_SIDED_SIDE, one_sided_points  # noqa: E402

MAKEBEAROFF = "/usr/games/makebearoff"
BEAROFFDUMP = "/usr/games/bearoffdump"
MANUAL_EXAMPLE = "CgAAEAEAAAAAAA"


def board_of(own: np.ndarray, opp: np.ndarray) -> np.ndarray:
    """26-slot board with home-point counts (ace first) of the side on roll and the opponent."""
    b = np.zeros(26, np.int8)
    b[1:7] = own
    b[24:18:-1] = -opp
    return b


def dump(db: Path, position_id: str) -> str:
    """bearoffdump's text for one position."""
    res = subprocess.run([BEAROFFDUMP, str(db), "-p", position_id], capture_output=True, text=True, check=True)
    return res.stdout


def parse_two_sided(text: str) -> dict[str, float]:
    """The four equities bearoffdump prints for a two-sided database entry."""
    labels = {
        "cubeless_equity": "Cubeless equity",
        "owned_cube": "Owned cube",
        "centered_cube": "Centered cube",
        "opponent_owns_cube": "Opponent owns cube",
    }
    out = {}
    for key, label in labels.items():
        m = re.search(rf"^{label}\s*:\s*([-+]?\d+\.\d+)", text, re.M)
        if m is None:
            raise ValueError(f"no {label!r} in bearoffdump output:\n{text}")
        out[key] = float(m.group(1))
    return out


def parse_one_sided(text: str) -> dict[str, dict[str, object]]:
    """Distributions (percent, by roll count), means and std devs of player and opponent."""
    lines = text.splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith("Rolls\tPlayer")) + 1
    sides: dict[str, dict[str, object]] = {}
    cols: dict[str, dict[str, float]] = {
        "player_all": {},
        "opponent_all": {},
        "player_first": {},
        "opponent_first": {},
    }
    k = start
    while not lines[k].startswith("Average rolls"):
        fields = lines[k].split()
        n = fields[0]
        for name, value in zip(
            ("player_all", "opponent_all", "player_first", "opponent_first"),
            fields[1:],
            strict=False,
        ):
            if float(value) != 0.0:
                cols[name][n] = float(value)
        k += 1
    mean = re.search(r"^Mean\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)", text, re.M)
    std = re.search(r"^Std dev\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)", text, re.M)
    if mean is None or std is None:
        raise ValueError(f"no means in bearoffdump output:\n{text}")
    for s, who in enumerate(("player", "opponent")):
        sides[who] = {
            "off_all_percent": cols[f"{who}_all"],
            "off_first_percent": cols[f"{who}_first"],
            "mean_all": float(mean.group(1 + s)),
            "std_all": float(std.group(1 + s)),
            "mean_first": float(mean.group(3 + s)),
            "std_first": float(std.group(3 + s)),
        }
    return sides


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=20240607)
    parser.add_argument("--two-sided", type=int, default=300, help="random two-sided positions")
    parser.add_argument("--one-sided", type=int, default=200, help="random IDs (2 sides each)")
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "fixtures")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    points = one_sided_points()
    version = (
        subprocess.run([MAKEBEAROFF, "--version"], capture_output=True, text=True).stdout.strip()
        or "makebearoff (GNU Backgammon 1.07)"
    )

    with tempfile.TemporaryDirectory() as tmp:
        two_db = Path(tmp) / "ts66.bd"
        one_db = Path(tmp) / "os6.bd"
        subprocess.run([MAKEBEAROFF, "-t", "6x6", "-f", str(two_db)], check=True, capture_output=True)
        subprocess.run([MAKEBEAROFF, "-o", "6", "-f", str(one_db)], check=True, capture_output=True)

        two_ids = [MANUAL_EXAMPLE]
        # Hand-checkable corners: single checkers on the ace / six points.
        for own, opp in (
            ((1, 0, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0)),
            ((0, 0, 0, 0, 0, 1), (1, 0, 0, 0, 0, 0)),
            ((0, 0, 0, 0, 0, 6), (0, 0, 0, 0, 0, 6)),
        ):
            two_ids.append(Position(board_of(np.array(own), np.array(opp))).id)
        pairs = rng.integers(1, N_TWO_SIDED_SIDE, size=(args.two_sided, 2))
        two_ids += [Position(board_of(points[i], points[j])).id for i, j in pairs]
        two_entries = [{"id": pid, **parse_two_sided(dump(two_db, pid))} for pid in two_ids]

        one_ids = [MANUAL_EXAMPLE]
        many = rng.integers(1, len(points), size=(args.one_sided - args.one_sided // 4, 2))
        few = rng.integers(1, N_TWO_SIDED_SIDE, size=(args.one_sided // 4, 2))
        one_ids += [Position(board_of(points[i], points[j])).id for i, j in np.vstack([many, few])]
        one_entries = [{"id": pid, **parse_one_sided(dump(one_db, pid))} for pid in one_ids]

    args.out.mkdir(parents=True, exist_ok=True)
    common = {"generator": "tools/gnubg_fixtures/gen_bearoff.py", "gnubg": version, "seed": args.seed}
    two = {
        **common,
        "database": "makebearoff -t 6x6 (two-sided, up to 6 checkers a side, with cubeful)",
        "note": "values as printed by bearoffdump -p ID, side on roll = Player; equities are "
        "money equities per unit cube, 4 decimals",
        "positions": two_entries,
    }
    one = {
        **common,
        "database": "makebearoff -o 6 (one-sided, up to 15 checkers, with gammon distributions)",
        "note": "values as printed by bearoffdump -p ID: distributions in percent (3 decimals) "
        "keyed by number of rolls, zeros left out; player = side on roll",
        "positions": one_entries,
    }
    for name, data in (("gnubg_bearoff_two_sided.json", two), ("gnubg_bearoff_one_sided.json", one)):
        path = args.out / name
        path.write_text(json.dumps(data, indent=1) + "\n")
        print(f"wrote {path} ({len(data['positions'])} positions)")


if __name__ == "__main__":
    main()
