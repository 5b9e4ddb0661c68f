"""Generate tests/fixtures/gnubg_boards.json: gnubg's text-mode `show board`.

Run from the repository root:
    /usr/games/gnubg -t -q -p tools/gnubg_fixtures/gen_boards.py

Each case sets up a state with gnubg commands (listed in "how"), then stores
gnubg's own position ID, match ID and the exact stdout of `show board`.
Player names are set explicitly (player 0 = "gnubg" is O, player 1 = "user"
is X in gnubg's drawing).
"""

import os
import random
import sys

sys.path.insert(0, os.path.join(os.getcwd(), "tools", "gnubg_fixtures"))
import gfx_common as G  # noqa: E402
import gnubg  # noqa: E402
from gfx_common import C  # noqa: E402

SEED = 31337
NAMES = ("gnubg", "user")


def pid_of(b0, b1):
    return gnubg.positionid((b0, b1))


def main():
    rng = random.Random(SEED)
    G.quiet_setup(SEED)
    cases = []

    def emit(cmds, note):
        full = list(cmds)
        for c in full:
            C(c)
            if c.startswith("set board ") and gnubg.positionid() != c.split()[2]:
                raise RuntimeError("set board failed: %s" % c)
        C("set player 0 name %s" % NAMES[0])
        C("set player 1 name %s" % NAMES[1])
        text = G.capture("show board")
        cases.append(
            {
                "position_id": gnubg.positionid(),
                "match_id": gnubg.matchid(),
                "turn": gnubg.posinfo()["turn"],
                "names": list(NAMES),
                "note": note,
                "how": "; ".join(full),
                "show_board": text,
            }
        )

    # initial position, each side on roll, rolled / not rolled
    for t in (0, 1):
        emit(["set jacoby off", "new session", "set turn %d" % t], "initial, not rolled, turn %d" % t)
        emit(["new session", "set turn %d" % t, "set dice 6 2"], "initial, rolled 62, turn %d" % t)
    # bar checkers (one side / both sides), various dice
    for t in (0, 1):
        b0 = [0, 0, 2, 2, 0, 3, 0, 2, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1]
        b1 = [0, 2, 0, 2, 0, 4, 0, 3, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2]
        emit(
            ["new session", "set turn %d" % t, "set board %s" % pid_of(b0, b1), "set dice 5 3"],
            "both sides on the bar, turn %d" % t,
        )
        b0 = [2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        b1 = [0, 0, 0, 0, 0, 6, 0, 3, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4]
        emit(
            ["new session", "set turn %d" % t, "set board %s" % pid_of(b0, b1)],
            "four on the bar vs closed board, turn %d" % t,
        )
    # borne-off checkers
    for t in (0, 1):
        b0 = [3, 2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        b1 = [0, 2, 3, 1, 2, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        emit(
            ["new match 7", "set score 3 5", "set turn %d" % t, "set board %s" % pid_of(b0, b1), "set dice 4 4"],
            "bear-off race, borne-off checkers, match play, turn %d" % t,
        )
    # big stacks (more than 5 checkers on a point)
    b0 = [0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    b1 = [0, 0, 0, 0, 0, 15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    emit(["new session", "set turn 1", "set board %s" % pid_of(b0, b1)], "tall stacks")
    # cube states
    for own, note in (
        ("set cube owner 0", "cube 4 owned by player 0"),
        ("set cube owner 1", "cube 4 owned by player 1"),
        ("set cube centre", "cube 4 centred"),
    ):
        for t in (0, 1):
            emit(["new session", "set turn %d" % t, "set cube value 4", own], note + ", turn %d" % t)
    emit(["new session", "set turn 0", "double"], "double offered by player 0")
    emit(["new session", "set turn 1", "double"], "double offered by player 1")
    emit(["new session", "set turn 1", "double", "take"], "double taken")
    emit(["new session", "set turn 0", "set cube value 64", "set cube owner 1", "set dice 1 1"], "cube 64")
    # match play with score, Crawford, post-Crawford
    emit(["new match 5", "set score 4 2", "set turn 1", "set dice 3 1"], "Crawford game")
    emit(["new match 5", "set score 4 4", "set turn 0"], "post-Crawford 4-4 in 5")
    emit(
        ["new match 25", "set score 17 9", "set turn 1", "set cube value 2", "set cube owner 0", "set dice 6 5"],
        "25-point match, cube owned",
    )
    emit(["set jacoby on", "new session", "set turn 1"], "money with Jacoby")
    emit(["new match 7", "set turn 0", "resign 2"], "resignation (gammon) offered")
    # a few random middle-game positions
    for i in range(6):
        while True:
            b0 = G.random_side(rng, 15, 0, 23, bar_prob=0.2, max_bar=2)
            b1 = G.random_side(rng, 15 - rng.randint(0, 3), 0, 23, bar_prob=0.2, max_bar=2)
            G.resolve_conflicts(rng, b0, b1)
            if G.valid_board(b0, b1):
                break
        t = i % 2
        emit(
            [
                "new match 9",
                "set score %d %d" % (rng.randint(0, 8), rng.randint(0, 8)),
                "set turn %d" % t,
                "set board %s" % pid_of(b0, b1),
                "set dice %d %d" % (rng.randint(1, 6), rng.randint(1, 6)),
            ],
            "random %d" % i,
        )

    out = {
        "generator": "tools/gnubg_fixtures/gen_boards.py (text of `show board`, gnubg -t)",
        "gnubg_version": G.gnubg_version(),
        "cases": cases,
    }
    path = G.write_json("gnubg_boards.json", out)
    sys.stderr.write("wrote %s: %d cases\n" % (path, len(cases)))


main()
