"""Generate tests/fixtures/gnubg_id_fields.json: readable fields set with gnubg commands, and gnubg's IDs.

Run from the repository root:
    /usr/games/gnubg -t -q -p tools/gnubg_fixtures/gen_id_fields.py > /dev/null

Each case sets a money session (``set jacoby on|off``, ``new session``) or a match (``new match
L``, ``set score A B``, ``set crawford on|off``), the cube (``set cube value V``, ``set cube owner
P`` or ``set cube centre``), the player on roll (``set turn P``), the board (``set board ID``, the
position from the side on roll's view) and perhaps the dice (``set dice A B``). It records the
commands, the same fields as options of ``jumpgammon id`` and the position and match IDs gnubg
then writes (``gnubg.positionid()``, ``gnubg.matchid()``). tests/cli/test_id.py checks that
``jumpgammon id`` writes the same IDs from those options and reads them back into the same fields.
"""

import os
import random
import sys

sys.path.insert(0, os.path.join(os.getcwd(), "tools", "gnubg_fixtures"))
import gfx_common as G  # noqa: E402
import gnubg  # noqa: E402
from gfx_common import C  # noqa: E402

SEED = 2311
CASES = 32
LENGTHS = [0, 0, 0, 1, 3, 5, 7, 9, 11, 15, 25]


def one_case(rng, boards):
    length = rng.choice(LENGTHS)
    jacoby = rng.random() < 0.5
    cmds, options = [], []
    if length == 0:
        cmds += ["set jacoby %s" % ("on" if jacoby else "off"), "new session"]
        if not jacoby:
            options.append("--no-jacoby")
    else:
        cmds.append("new match %d" % length)
        options += ["--match-length", str(length)]
    score = (0, 0)
    crawford = False
    if length > 1:
        score = (rng.randint(0, length - 1), rng.randint(0, length - 1))
        if rng.random() < 0.4:
            score = rng.choice([(length - 1, score[1]), (score[0], length - 1)])
        cmds.append("set score %d %d" % score)
        options += ["--score", "%d-%d" % score]
        if length - 1 in score and max(score) != min(score):
            crawford = rng.random() < 0.6
            cmds.append("set crawford %s" % ("on" if crawford else "off"))
            if crawford:
                options.append("--crawford")
    turn = rng.randint(0, 1)
    cmds.append("set turn %d" % turn)
    options += ["--on-roll", str(turn)]
    if not crawford and rng.random() < 0.6:
        top = 6 if length == 0 else max(0, (length - max(score) - 1).bit_length())
        value = 2 ** rng.randint(0, min(top, 6))
        owner = rng.choice(["0", "1"]) if value > 1 else rng.choice(["centre", "0", "1"])
        cmds.append("set cube value %d" % value)
        cmds.append("set cube centre" if owner == "centre" else "set cube owner %s" % owner)
        options += ["--cube-value", str(value), "--cube-owner", owner]
    board_id = rng.choice(boards)
    cmds.append("set board %s" % board_id)
    if rng.random() < 0.6:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        cmds.append("set dice %d %d" % dice)
        options += ["--dice", str(dice[0]), str(dice[1])]
    for c in cmds:
        C(c)
    return {
        "commands": cmds,
        "position": board_id,
        "options": options,
        "position_id": gnubg.positionid(),
        "match_id": gnubg.matchid(),
    }


def main():
    rng = random.Random(SEED)
    G.quiet_setup(SEED)
    boards = sorted({gnubg.positionid(b) for b, _, _ in G.selfplay_positions(4, SEED)})
    cases = [one_case(rng, boards) for _ in range(CASES)]
    out = {
        "generator": "tools/gnubg_fixtures/gen_id_fields.py",
        "gnubg_version": G.gnubg_version(),
        "seed": SEED,
        "cases": cases,
    }
    G.write_cases("gnubg_id_fields.json", out, {"cases": len(cases)})


main()
