"""A cube-decision rollout timed against GNU Backgammon 1.07's own rollout of the same decision, per core.

Both sides: 0-ply checker play and cube, variance reduction, quasi-random (stratified) dice,
``trials`` trials, one thread each (``NUMBA_NUM_THREADS=1``; gnubg ``set threads 1``). gnubg's tty
``rollout`` rolls out the current position only, so its two branches are two runs: no double (the
cube as it is) and double/take (the cube doubled, owned by the opponent). This project rolls out
both branches in one run (``jumpgammon rollout ID --cube-decision``). Each tool is timed by the CPU
time (user + system) of its process, read from ``getrusage`` of the children, so the load of other
processes on a shared machine counts as little as it can; wall times are recorded too. The runs
alternate, ``repeats`` times, and the ratio is of the medians: gnubg's CPU seconds for its two
branches over this project's for both.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from engine.errors import NotSupported
from engine.match import MatchState

#: Where Debian's gnubg package puts the program.
GNUBG = Path("/usr/games/gnubg")
#: Contact, 64.6% for the side on roll at gnubg's 0 ply: near the doubling window.
POSITION = "s9uAAQa7cQ4GAA"
#: The file a run writes into ``--out DIR`` (results/rollout-speed/).
RESULT_FILE = "cube_decision_vs_gnubg.json"

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

#: Money, centred cube, no Jacoby; and the cube doubled to 2, the opponent's.
NO_DOUBLE_STATE = MatchState(on_roll=0, turn=0, extra_bits=1).id
DOUBLE_TAKE_STATE = MatchState(cube=2, cube_owner=1, on_roll=0, turn=0, extra_bits=1).id


def timed(command: list[str], stdin: str | None = None, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run ``command``; its CPU seconds (user, system, from the children's rusage), wall seconds and stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, env=env, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    times = {"cpu": round(user + system, 3), "user": round(user, 3), "sys": round(system, 3), "wall": round(wall, 3)}
    return {**times, "stdout": done.stdout}


def our_command(position: str, trials: int) -> list[str]:
    """The ``jumpgammon rollout`` of both branches, as a command line run by this Python."""
    return [
        sys.executable,
        "-m",
        "cli.main",
        "rollout",
        f"{position}:{NO_DOUBLE_STATE}",
        "--cube-decision",
        "--trials",
        str(trials),
        "--cube",
        "gnubg",
        "--json",
    ]


@dataclass(frozen=True)
class RolloutSpeed:
    """Both programs' CPU seconds per repeat, and the ratio of the medians (gnubg's over this project's)."""

    position: str
    trials: int
    runs: list[dict[str, Any]]
    gnubg_cpu_median: float
    jumpgammon_cpu_median: float
    date: str
    machine: dict[str, Any]
    commands: dict[str, str]

    @property
    def speed_ratio_per_core(self) -> float:
        """How many times gnubg's CPU seconds this project's rollout of the same decision takes, inverted."""
        return self.gnubg_cpu_median / self.jumpgammon_cpu_median

    def to_json(self) -> dict[str, Any]:
        """JSON-ready figures (the record ``results/rollout-speed/`` keeps)."""
        return {
            "what": "cube-decision rollout, both branches, 0-ply checker play and cube, variance reduction, "
            "quasi-random dice, one thread each; CPU seconds (user + system)",
            "date": self.date,
            "machine": self.machine,
            "position": self.position,
            "trials": self.trials,
            "commands": self.commands,
            "median_cpu_seconds": {"gnubg": self.gnubg_cpu_median, "jumpgammon": self.jumpgammon_cpu_median},
            "speed_ratio_per_core": round(self.speed_ratio_per_core, 3),
            "runs": self.runs,
        }


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def bench_rollout(
    trials: int = 1296, repeats: int = 3, position: str = POSITION, gnubg: Path | None = None, progress: bool = True
) -> RolloutSpeed:
    """Time ``repeats`` alternating runs of gnubg's two branch rollouts and this project's cube-decision rollout.

    Raises NotSupported (naming the path) when ``gnubg`` is not a program here, and RuntimeError when gnubg
    does not finish a rollout; ``gnubg`` defaults to :data:`GNUBG`.
    """
    gnubg = GNUBG if gnubg is None else gnubg
    if not (gnubg.is_file() and os.access(gnubg, os.X_OK)):
        raise NotSupported(f"bench rollout needs GNU Backgammon 1.07 at {gnubg} (apt-get install gnubg)")
    ours = our_command(position, trials)
    env = {**os.environ, "NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    runs: list[dict[str, Any]] = []
    # three timed runs a repeat: gnubg's two branches, then this project's rollout of both
    bar = tqdm(total=3 * repeats, disable=not progress, unit="run", desc="bench rollout", leave=False)
    for repeat in range(repeats):
        theirs = {}
        for branch, match_id in (("no_double", NO_DOUBLE_STATE), ("double_take", DOUBLE_TAKE_STATE)):
            script = GNUBG_SCRIPT.format(match_id=match_id, position=position, trials=trials)
            run = timed([str(gnubg), "-t", "-q"], stdin=script)
            if "Rollout done" not in run.pop("stdout"):
                raise RuntimeError(f"gnubg ({gnubg}) did not finish its {branch} rollout")
            theirs[branch] = run
            bar.update(1)
        mine = timed(ours, env=env)
        bar.update(1)
        result = _json_of(mine.pop("stdout"))
        mine["rollout_seconds"] = result["seconds"]  # from the first block's start: the rest is start-up
        mine["cube_decision"] = result["cube_decision"]
        runs.append({"repeat": repeat, "gnubg": theirs, "jumpgammon": mine})
        if progress:
            g_cpu = theirs["no_double"]["cpu"] + theirs["double_take"]["cpu"]
            bar.write(
                f"repeat {repeat}: gnubg both branches {g_cpu:.1f} CPU s, jumpgammon {mine['cpu']:.1f} CPU s "
                f"(ratio {g_cpu / mine['cpu']:.2f})",
                file=sys.stderr,
            )
    bar.close()
    return RolloutSpeed(
        position=position,
        trials=trials,
        runs=runs,
        gnubg_cpu_median=round(
            _median([r["gnubg"]["no_double"]["cpu"] + r["gnubg"]["double_take"]["cpu"] for r in runs]), 3
        ),
        jumpgammon_cpu_median=_median([r["jumpgammon"]["cpu"] for r in runs]),
        date=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        machine={"platform": platform.platform(), "cpus": os.cpu_count(), "load_average": os.getloadavg()},
        commands={"jumpgammon": " ".join(ours[2:]), "gnubg": f"{gnubg} -t -q < script (GNUBG_SCRIPT)"},
    )


def _json_of(stdout: str) -> dict[str, Any]:
    """The rollout's ``--json`` answer."""
    value = json.loads(stdout)
    if not isinstance(value, dict):
        raise RuntimeError(f"the rollout printed no JSON object: {stdout[:80]!r}")
    return value
