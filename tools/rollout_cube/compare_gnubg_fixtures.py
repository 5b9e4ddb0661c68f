"""Roll out the 40 cube decisions of tests/fixtures/gnubg_rollout_cube.json and compare them with gnubg 1.07.

For each case: this project's cube-decision rollout (``--trials`` a branch, 0-ply, gnubg's cube model
inside the trials) against gnubg's cube analysis at 0 and 2 ply. Reports the action agreement where
gnubg's two depths agree, the mean absolute ND and DT differences (normalised equity), and every
disagreement with its margins, so that each can be explained (the net, the cube model, or a bug).

    python tools/rollout_cube/compare_gnubg_fixtures.py --trials 1296 --out results/rollout-cube/gnubg_agreement.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path
from typing import Any

from arena.rollout import RolloutConfig, RolloutStart
from arena.rollout_cube import CubeDecisionRollout, run_cube_decisions
from engine.match import MatchState
from nets.weights import weights_digest, write_atomic
from weights import DEFAULT_WEIGHTS

FIXTURE = Path("tests/fixtures/gnubg_rollout_cube.json")
OWNER = {"centered": None, "owned": 0, "unavailable": 1}


def start_of(case: dict[str, Any]) -> RolloutStart:
    """The case as a rollout start: the side on roll is player 0 of the match ID."""
    owner = OWNER[case["owner"]]
    if case["length"] == 0:
        match = MatchState(cube=case["cube"], cube_owner=owner, on_roll=0, turn=0, extra_bits=1)  # no Jacoby
    else:
        match = MatchState(
            cube=case["cube"],
            cube_owner=owner,
            on_roll=0,
            turn=0,
            crawford=case["crawford"],
            match_length=case["length"],
            score=tuple(case["score"]),
        )
    return RolloutStart.parse(f"{case['position_id']}:{match.id}")


def base_action(text: str) -> str:
    """gnubg's words without "Optional " (an optional double is a double)."""
    return text.removeprefix("Optional ").replace("optional ", "").capitalize()


def compare(case: dict[str, Any], d: CubeDecisionRollout) -> dict[str, Any]:
    nd, dt_, _ = d.figures
    return {
        "position_id": case["position_id"],
        "kind": case["kind"],
        "length": case["length"],
        "score": case["score"],
        "cube": case["cube"],
        "owner": case["owner"],
        "rollout": {
            "no_double": nd.to_json(),
            "double_take": dt_.to_json(),
            "action": str(d.action),
            "margin": round(d.margin.value, 4),
            "margin_se": None if d.margin.se is None else round(d.margin.se, 4),
            "take_margin": round(d.take_margin.value, 4),
        },
        "gnubg_0ply": {
            "nd": case["ply0"]["equities"][1],
            "dt": case["ply0"]["equities"][2],
            "action": case["ply0"]["decision_text"],
        },
        "gnubg_2ply": {
            "nd": case["ply2"]["equities"][1],
            "dt": case["ply2"]["equities"][2],
            "action": case["ply2"]["decision_text"],
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=1296)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    cases = json.loads(FIXTURE.read_text())["cases"]
    config = RolloutConfig(trials=args.trials, cubeful=True, cube="gnubg", seed=1)
    rows: list[dict[str, Any]] = []
    for kind in ("money", "match"):
        group = [c for c in cases if c["kind"] == kind]
        decisions, _ = run_cube_decisions([start_of(c) for c in group], config, workers=args.workers)
        rows += [compare(c, d) for c, d in zip(group, decisions, strict=True)]
    settled = [r for r in rows if base_action(r["gnubg_0ply"]["action"]) == base_action(r["gnubg_2ply"]["action"])]
    agree = [r for r in settled if base_action(r["rollout"]["action"]) == base_action(r["gnubg_2ply"]["action"])]

    def mean_abs(key: str, depth: str) -> float:
        short = {"no_double": "nd", "double_take": "dt"}[key]
        return round(sum(abs(r["rollout"][key]["equity"] - r[depth][short]) for r in rows) / len(rows), 4)

    summary = {
        "cases": len(rows),
        "gnubg_depths_agree": len(settled),
        "rollout_agrees_where_gnubg_depths_agree": len(agree),
        "mean_abs_nd_vs_2ply": mean_abs("no_double", "gnubg_2ply"),
        "mean_abs_dt_vs_2ply": mean_abs("double_take", "gnubg_2ply"),
        "mean_abs_nd_vs_0ply": mean_abs("no_double", "gnubg_0ply"),
        "mean_abs_dt_vs_0ply": mean_abs("double_take", "gnubg_0ply"),
        "disagreements": [r for r in settled if r not in agree],
    }
    record = {
        "what": "cube-decision rollouts (0-ply, gnubg's cube model in the trials, variance reduction) against gnubg "
        "1.07's cube analysis at 0 and 2 ply; normalised equity, side on roll's view",
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "trials_per_branch": args.trials,
        "net_digest": weights_digest(DEFAULT_WEIGHTS),
        "fixture": str(FIXTURE),
        "summary": summary,
        "rows": rows,
    }
    write_atomic(args.out, (json.dumps(record, indent=1) + "\n").encode())
    print(json.dumps({k: v for k, v in summary.items() if k != "disagreements"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
