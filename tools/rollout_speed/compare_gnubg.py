"""Time a cube-decision rollout against GNU Backgammon 1.07's own rollout of the same decision, per core.

Both sides: 0-ply checker play and cube, variance reduction, quasi-random (stratified) dice,
``--trials`` trials, one thread each (``NUMBA_NUM_THREADS=1``; gnubg ``set threads 1``). gnubg's
tty ``rollout`` rolls out the current position only, so its two branches are two runs: no double
(the cube as it is) and double/take (the cube doubled, owned by the opponent). This project rolls
out both branches in one run (``jumpgammon rollout ID --cube-decision``). Each tool is timed by the
CPU time (user + system) of its process, read from ``getrusage`` of the children, so the load of
other processes on a shared machine counts as little as it can; wall times are recorded too.
The runs alternate, ``--repeats`` times.

    python tools/rollout_speed/compare_gnubg.py --out results/rollout-speed/2026-11-26.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from engine.match import MatchState
from nets.weights import weights_digest, write_atomic
from weights import DEFAULT_WEIGHTS

GNUBG = "/usr/games/gnubg"
POSITION = "s9uAAQa7cQ4GAA"  # contact, 64.6% for the side on roll at gnubg's 0 ply: near the doubling window

GNUBG_SCRIPT = """set automatic roll off
set player 0 human
set player 1 human
new session
set cube use on
set jacoby off
set matchid {match_id}
set board {position}
set threads 1
set rollout trials {trials}
set rollout cubeful on
set rollout varredn on
set rollout quasirandom on
set rollout chequerplay plies 0
set rollout cubedecision plies 0
set rollout later enable off
set rollout truncation enable off
set rollout seed 1
rollout
"""


def timed(command: list[str], stdin: str | None = None, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run ``command``; its CPU seconds (user, system, from the children's rusage), wall seconds and stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, env=env, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    return {
        "cpu": round(user + system, 3),
        "user": round(user, 3),
        "sys": round(system, 3),
        "wall": round(wall, 3),
        "stdout": done.stdout,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--position", default=POSITION)
    parser.add_argument("--trials", type=int, default=1296)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, required=True, help="JSON file to write (results/rollout-speed/...)")
    args = parser.parse_args(argv)
    money_nd = MatchState(on_roll=0, turn=0, extra_bits=1).id  # money, centred cube, no Jacoby
    money_dt = MatchState(cube=2, cube_owner=1, on_roll=0, turn=0, extra_bits=1).id  # cube 2, the opponent's
    ours = [
        sys.executable,
        "-m",
        "cli.main",
        "rollout",
        f"{args.position}:{money_nd}",
        "--cube-decision",
        "--trials",
        str(args.trials),
        "--cube",
        "gnubg",
        "--json",
    ]
    env = {**os.environ, "NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    runs: list[dict[str, Any]] = []
    for repeat in range(args.repeats):
        gnubg = {}
        for branch, match_id in (("no_double", money_nd), ("double_take", money_dt)):
            script = GNUBG_SCRIPT.format(match_id=match_id, position=args.position, trials=args.trials)
            run = timed([GNUBG, "-t", "-q"], stdin=script)
            if "Rollout done" not in run.pop("stdout"):
                raise SystemExit(f"gnubg did not finish its {branch} rollout")
            gnubg[branch] = run
        mine = timed(ours, env=env)
        result = json.loads(mine.pop("stdout"))
        mine["rollout_seconds"] = result["seconds"]  # from the first block's start: the rest is start-up
        mine["cube_decision"] = result["cube_decision"]
        runs.append({"repeat": repeat, "gnubg": gnubg, "jumpgammon": mine})
        g_cpu = gnubg["no_double"]["cpu"] + gnubg["double_take"]["cpu"]
        print(
            f"repeat {repeat}: gnubg both branches {g_cpu:.1f} cpu-s, jumpgammon {mine['cpu']:.1f} cpu-s "
            f"(ratio {g_cpu / mine['cpu']:.2f})",
            file=sys.stderr,
        )
    g_total = sorted(r["gnubg"]["no_double"]["cpu"] + r["gnubg"]["double_take"]["cpu"] for r in runs)
    j_total = sorted(r["jumpgammon"]["cpu"] for r in runs)
    record = {
        "what": "cube-decision rollout, both branches, 0-ply checker play and cube, variance reduction, "
        "quasi-random dice, one thread each; CPU seconds (user + system)",
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "load_average": os.getloadavg()},
        "position": args.position,
        "trials": args.trials,
        "net": str(DEFAULT_WEIGHTS.name),
        "net_digest": weights_digest(DEFAULT_WEIGHTS),
        "commands": {"jumpgammon": " ".join(ours[2:]), "gnubg": f"{GNUBG} -t -q < script (see GNUBG_SCRIPT)"},
        "median_cpu_seconds": {"gnubg": round(g_total[len(g_total) // 2], 3), "jumpgammon": j_total[len(j_total) // 2]},
        "speed_ratio_per_core": round(g_total[len(g_total) // 2] / j_total[len(j_total) // 2], 3),
        "runs": runs,
    }
    write_atomic(args.out, (json.dumps(record, indent=1) + "\n").encode())
    print(json.dumps({k: record[k] for k in ("median_cpu_seconds", "speed_ratio_per_core")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
