"""Both luck adjustments on the same tournament games: the cubeless equity's luck and the cubeful equity's.

    python tools/luck/tournament_control_variates.py janowski:0.7 jump:0.10:numerical 1024

Plays PAIRS mirrored pairs (seed 1, blocks of 64 pairs, net@0 checker play on both sides) of A's cube
against B's and prints A's points per game raw, adjusted by the luck of the cubeless equity times the
cube (what ``tournament --luck`` does), and adjusted by the luck of gnubg's 0-ply cubeful equity times
the cube (what cubeful rollouts do), each with its SE over the pairs. docs/experiments.md quotes it.
"""

from __future__ import annotations

import argparse

import numpy as np

from arena import Rules
from arena.games import Lockstep, play_block
from arena.luck import cubeful_roll_luck, reference_evaluator
from cube.gamestate import difference_equity
from players.specs import make_player

BLOCK_PAIRS = 64


def block_figures(a_cube: str, b_cube: str, first_pair: int) -> np.ndarray:
    """A's mean points per pair (BLOCK_PAIRS, 3): raw, the cubeless equity's luck, the cubeful equity's luck."""
    n = 2 * BLOCK_PAIRS
    cubeless, cubeful = np.zeros(n), np.zeros(n)
    ev = reference_evaluator(None)

    def both_lucks(g: Lockstep, idx: np.ndarray, rolls: np.ndarray) -> None:
        stake = np.where(g.cube_open[idx], g.cube[idx], 0)
        luck, cube_luck, _ = cubeful_roll_luck(ev, g.boards[idx], rolls, g.on_roll[idx], g.owner[idx])
        cubeless[idx] += stake * difference_equity(luck)
        cubeful[idx] += stake * cube_luck

    players = (make_player("net@0", a_cube), make_player("net@0", b_cube))
    block = play_block(
        players, 1, first_pair, BLOCK_PAIRS, Rules(cubeful=True), compare_cube=False, before_move=both_lucks
    )
    sign = np.where(block.seat_of_a == 0, 1.0, -1.0)
    columns = [block.points_seat0 * sign, cubeless * sign, cubeful * sign]
    return np.stack([c.reshape(-1, 2).mean(axis=1) for c in columns], axis=1)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("a_cube")
    p.add_argument("b_cube")
    p.add_argument("pairs", type=int, help=f"mirrored pairs (a multiple of {BLOCK_PAIRS})")
    args = p.parse_args()
    if args.pairs < BLOCK_PAIRS or args.pairs % BLOCK_PAIRS:
        p.error(f"pairs {args.pairs!r}: give a positive multiple of {BLOCK_PAIRS}")
    r = np.concatenate([block_figures(args.a_cube, args.b_cube, f) for f in range(0, args.pairs, BLOCK_PAIRS)])
    raw, n = r[:, 0], len(r)
    for name, values in (("raw", raw), ("cubeless luck", raw - r[:, 1]), ("cubeful luck", raw - r[:, 2])):
        print(f"{name}: {values.mean():+.4f} ppg, SE {values.std(ddof=1) / np.sqrt(n):.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
