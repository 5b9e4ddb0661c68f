"""Generate tests/fixtures/gnubg_two_roll.json and gnubg_late_race.json: GNU Backgammon 1.07's 2-ply cube
decisions of late bear-offs and of late races outside the two-sided database.

Run from the repository root (a minute or two):
    /usr/games/gnubg -t -q -p tools/gnubg_fixtures/gen_two_roll.py > /dev/null

Random two-sided bear-offs with one to three checkers a side, each with a money cube state or a
match situation (pre-Crawford, Crawford, post-Crawford; cube centred, owned or the opponent's).
Where the game is decided within the side on roll's roll and the opponent's reply, gnubg's 2-ply
cubeful evaluation (its cube decisions at every node, the bear-off database at the leaves) is the
exact answer that ``cube.two_roll`` computes; the tests pick those cases with the project's own
database and compare. For each case the file holds gnubg's ``cfevaluate`` at 2 plies: optimal, no
double, double/take, double/pass as normalised equity and as MWC, and the decision code.

The second file holds the same for bear-off races where one side has one to three checkers left and the
other seven to nine (so outside the two-sided database, up to six a side): the side with few checkers on
roll or not. Their two-roll lines end in a finished game or a one-sided database's certainty, decided or
nearly; gnubg's 2-ply takes its one-sided database at the leaves.
"""

import os
import random
import sys

sys.path.insert(0, os.path.join(os.getcwd(), "tools", "gnubg_fixtures"))
import gfx_common as G  # noqa: E402
import gnubg  # noqa: E402

SEED = 20261127
N_CASES = 240
LATE_RACE_SEED = 20261128
N_LATE_RACE = 200
EC_2PLY = {"cubeful": 1, "plies": 2, "deterministic": 1, "prune": 0, "noise": 0.0}
ON_ROLL, OPPONENT, CENTRED = 1, 0, -1
OWNER_NAME = {CENTRED: "centered", ON_ROLL: "owned", OPPONENT: "unavailable"}


def bearoff_side(rng):
    """One to three checkers on the home board (gnubg's 25 counts, index 0 = ace)."""
    side = [0] * 25
    for _ in range(rng.randint(1, 3)):
        side[rng.randrange(0, 6)] += 1
    return side


def crowded_side(rng):
    """Seven to nine checkers on the home board (outside the two-sided database)."""
    side = [0] * 25
    for _ in range(rng.randint(7, 9)):
        side[rng.randrange(0, 6)] += 1
    return side


def money_situation(rng):
    return 0, (0, 0), 0, 1, rng.choice([CENTRED, ON_ROLL, OPPONENT])


def match_situation(rng):
    """(length, (on roll score, opponent score), crawford, cube, owner) of a match."""
    n = rng.choice([3, 5, 7, 9, 11])
    kind = rng.choice(["pre", "pre", "pre", "crawford", "post"])
    if kind == "crawford":
        other = rng.randrange(0, n - 1)
        return n, ((n - 1, other) if rng.random() < 0.5 else (other, n - 1)), 1, 1, CENTRED
    if kind == "post":
        other = rng.randrange(0, n - 1)
        score = (n - 1, other) if rng.random() < 0.5 else (other, n - 1)
        return n, score, 0, 1, CENTRED
    score = (rng.randrange(0, n - 1), rng.randrange(0, n - 1))
    owner = rng.choice([CENTRED, CENTRED, ON_ROLL, OPPONENT])
    if owner == CENTRED:
        return n, score, 0, 1, CENTRED
    doubler_away = n - (score[1] if owner == ON_ROLL else score[0])
    cubes = [v for v in (2, 4) if doubler_away > v // 2]
    return (n, score, 0, rng.choice(cubes), owner) if cubes else (n, score, 0, 1, CENTRED)


def cube_cases(rng, n_cases, board_of):
    """``n_cases`` distinct (board, money or match situation) cases with gnubg's 2-ply cube evaluation."""
    cases = []
    seen = set()
    while len(cases) < n_cases:
        board = board_of(rng)
        length, score, crawford, cube, owner = money_situation(rng) if rng.random() < 0.3 else match_situation(rng)
        key = (gnubg.positionid(board), length, score, crawford, cube, owner)
        if key in seen:
            continue
        seen.add(key)
        # gnubg's player 1 is on roll (board[1]); its score tuple is (player 0, player 1)
        ci = gnubg.cubeinfo(cube, owner, ON_ROLL, length, (score[1], score[0]), crawford)
        optimal, nd, dt, dp, code, text = gnubg.cfevaluate(board, ci, EC_2PLY)
        cases.append(
            {
                "kind": "money" if length == 0 else "match",
                "position_id": key[0],
                "length": length,
                "score": list(score),
                "crawford": bool(crawford),
                "cube": cube,
                "owner": OWNER_NAME[owner],
                "equities": [float(optimal), float(nd), float(dt), float(dp)],
                "mwc": [float(gnubg.eq2mwc(e, ci)) for e in (optimal, nd, dt, dp)] if length else None,
                "decision": int(code),
                "decision_text": text,
            }
        )
    return cases


def late_race(rng):
    """One side with one to three checkers, the other with seven to nine; either on roll."""
    few, many = bearoff_side(rng), crowded_side(rng)
    return [many, few] if rng.random() < 0.5 else [few, many]


def write(name, seed, cases):
    counts = G.count_by(cases, "kind")
    met = gnubg.met(11)
    out = {
        "generator": "tools/gnubg_fixtures/gen_two_roll.py (gnubg.cfevaluate, 2-ply cubeful, side on roll = board1 "
        "of position_id = gnubg's player 1; score is [side on roll, opponent])",
        "gnubg_version": G.gnubg_version(),
        "seed": seed,
        "evalcontext": EC_2PLY,
        "met": {"pre_crawford": met[0], "post_crawford_player0": met[1], "post_crawford_player1": met[2]},
        "kind_counts": counts,
        "cases": cases,
    }
    G.write_cases(name, out, counts)


def main():
    G.quiet_setup(SEED)
    gnubg.command("set jacoby off")
    gnubg.command("set beavers 0")
    rng = random.Random(SEED)
    write("gnubg_two_roll.json", SEED, cube_cases(rng, N_CASES, lambda r: [bearoff_side(r), bearoff_side(r)]))
    rng = random.Random(LATE_RACE_SEED)
    write("gnubg_late_race.json", LATE_RACE_SEED, cube_cases(rng, N_LATE_RACE, late_race))


main()
