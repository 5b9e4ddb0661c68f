"""Does the `gnubg` package decide the cube as gnubg 1.07's model does? Its cube life, measured on play.

    python tools/gnubg_cube/package_cube_life.py [--games 30] [--seed 1]

The cube spec ``gnubg@0`` asks the installed `gnubg` package (its nets, its cubeful evaluation) for each
money cube decision; the cube spec ``gnubg`` carries gnubg 1.07's model (Janowski's x by position class:
0.68 in contact, 0.6 to 0.7 in races) on any player's probabilities. On the pre-roll positions of
``--games`` 0-ply self-play games of the shipped net, with the cube centred and then owned by the side on
roll, this gives both the package's probabilities and counts how often the package's own decision (double
or not; take or pass) differs from 1.07's model on those same probabilities: any difference is the model's,
not the net's. Needs the `gnubg` extra.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from benchmarks.experiments.cube_errors import self_play_positions
from cube.states import CubeAction, CubeState
from engine.batch import phases
from engine.position import GamePhase
from nets.cube_advice import money_cube_decisions
from nets.evaluator import load_evaluator
from players.base import CubeContext
from players.gnubg_cube import GnubgEngineDecider
from players.specs import make_player


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--games", type=int, default=30)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    boards, _ = self_play_positions(load_evaluator(), args.games, np.random.default_rng(args.seed))
    boards = boards[phases(boards) != GamePhase.OVER]
    # the package computes in single precision: a probability can exceed 1 by an ulp
    gnubg_probs = np.clip(make_player("gnubg@0").probabilities(boards), 0.0, 1.0)  # type: ignore[attr-defined]
    package = GnubgEngineDecider(0)
    out: dict[str, object] = {"positions": len(boards), "games": args.games, "seed": args.seed}
    for state in (CubeState.CENTERED, CubeState.OWNED):
        states = np.full(len(boards), str(state))
        own = package.decide(boards, CubeContext.money(states))
        model = money_cube_decisions(boards, gnubg_probs, states, jacoby=False, beavers=False)
        own_doubles = own.action == str(CubeAction.DOUBLE)
        model_doubles = np.asarray(model.action, dtype=str) == str(CubeAction.DOUBLE)
        own_takes = own.response != "pass"
        model_takes = np.asarray(model.response, dtype=str) != "pass"
        out[str(state)] = {
            "double_differs": int((own_doubles != model_doubles).sum()),
            "package_doubles_model_not": int((own_doubles & ~model_doubles).sum()),
            "response_differs": int((own_takes != model_takes).sum()),
        }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
