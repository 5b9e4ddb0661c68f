"""Generate tests/fixtures/gnubg_match_cube.json: GNU Backgammon 1.07's 0-ply cube decisions at match scores.

Run from the repository root (about 3 minutes):
    /usr/games/gnubg -t -q -p tools/gnubg_fixtures/gen_match_cube.py > /dev/null

Positions come from gnubg-vs-gnubg 0-ply games (cube off), stratified by gnubg's position class;
each gets a match situation drawn from a spread of kinds (pre-Crawford scores with the cube
centred, owned or the opponent's, the Crawford game, post-Crawford with either side on roll,
double match point, 2-away against 2-away, dead cubes, 1-point matches). For each case the file
holds gnubg's 0-ply cubeless probabilities and its cubeful 0-ply cube analysis
(``gnubg.cfevaluate``: optimal, no double, double/take, double/pass in normalised money equity
and the decision code), the same four as MWC (``gnubg.eq2mwc`` with the same cubeinfo), and the
match equity table gnubg used (``gnubg.met``). Two-sided bearoffs also carry gnubg's money
equities (cubeless, and cubeful for each cube owner), from which gnubg derives their cube
efficiency in match play.
"""

import os
import random
import sys

sys.path.insert(0, os.path.join(os.getcwd(), "tools", "gnubg_fixtures"))
import gfx_common as G  # noqa: E402
import gnubg  # noqa: E402

SEED = 20251123
N_GAMES = 200
PER_CLASS = {"contact": 420, "crashed": 80, "race": 260, "bearoff1": 160, "bearoff2": 120}
LENGTHS = [3, 4, 5, 7, 9, 11, 13, 15, 17, 21, 25]
MAX_CUBE = 16  # gnubg 1.07's cubeinfo crashes for large cubes in matches (see README)
EC_CUBELESS = {"cubeful": 0, "plies": 0, "deterministic": 1, "prune": 0, "noise": 0.0}
EC_CUBEFUL = {"cubeful": 1, "plies": 0, "deterministic": 1, "prune": 0, "noise": 0.0}
ON_ROLL, OPPONENT, CENTRED = 1, 0, -1
OWNER_NAME = {CENTRED: "centered", ON_ROLL: "owned", OPPONENT: "unavailable"}
KINDS = [
    ("pre_crawford", 30),
    ("pre_crawford_owned", 12),
    ("opponent_owns", 8),
    ("dead_cube", 6),
    ("crawford", 12),
    ("post_crawford_trailer", 14),
    ("post_crawford_leader", 5),
    ("double_match_point", 4),
    ("two_away_two_away", 5),
    ("one_point_match", 4),
]


def pips(side):
    return sum((i + 1) * n for i, n in enumerate(side))


def owned_cube(rng, doubler_away):
    """A random cube value the side at doubler_away could have doubled to (2 .. MAX_CUBE)."""
    values = [v for v in (2, 4, 8, 16) if v <= MAX_CUBE and doubler_away > v // 2]
    return rng.choice(values) if values else None


def situation(rng, kind):
    """(length, (on roll score, opponent score), crawford, cube, owner) of one kind."""
    if kind == "one_point_match":
        return 1, (0, 0), 0, 1, CENTRED
    if kind == "double_match_point":
        n = rng.choice(LENGTHS)
        return n, (n - 1, n - 1), 0, 1, CENTRED
    if kind == "two_away_two_away":
        n = rng.choice(LENGTHS)
        if rng.random() < 0.7:
            return n, (n - 2, n - 2), 0, 1, CENTRED
        return n, (n - 2, n - 2), 0, 2, rng.choice([ON_ROLL, OPPONENT])
    n = rng.choice(LENGTHS)
    if kind == "crawford":
        other = rng.randrange(0, n - 1)
        score = (n - 1, other) if rng.random() < 0.5 else (other, n - 1)
        return n, score, 1, 1, CENTRED
    if kind == "post_crawford_trailer":
        score = (rng.randrange(0, n - 1), n - 1)
        if rng.random() < 0.75:
            return n, score, 0, 1, CENTRED
        return n, score, 0, 2, OPPONENT  # the trailer doubled, the leader took
    if kind == "post_crawford_leader":
        score = (n - 1, rng.randrange(0, n - 1))
        if rng.random() < 0.6:
            return n, score, 0, 1, CENTRED
        return n, score, 0, 2, ON_ROLL
    score = (rng.randrange(0, n - 1), rng.randrange(0, n - 1))
    away, opp_away = n - score[0], n - score[1]
    if kind == "pre_crawford":
        return n, score, 0, 1, CENTRED
    if kind == "pre_crawford_owned":
        cube = owned_cube(rng, opp_away)
        return (n, score, 0, cube, ON_ROLL) if cube else (n, score, 0, 1, CENTRED)
    if kind == "opponent_owns":
        cube = owned_cube(rng, away)
        return (n, score, 0, cube, OPPONENT) if cube else (n, score, 0, 1, CENTRED)
    # dead_cube: a cube at least as big as what both sides need, held by a side that could get it
    for owner, doubler_away in ((ON_ROLL, opp_away), (OPPONENT, away)):
        for cube in (2, 4, 8, 16):
            if cube >= max(away, opp_away) and doubler_away > cube // 2 and cube <= MAX_CUBE:
                return n, score, 0, cube, owner
    return n, score, 0, 1, CENTRED


def cube_info(length, score, crawford, cube, owner):
    # gnubg's player 1 is on roll (board[1]); its score tuple is (player 0, player 1)
    return gnubg.cubeinfo(cube, owner, ON_ROLL, length, (score[1], score[0]), crawford)


def main():
    rng = random.Random(SEED)
    G.quiet_setup(SEED)
    gnubg.command("set jacoby off")
    gnubg.command("set beavers 0")
    recs = G.selfplay_positions(N_GAMES, SEED + 1)
    pool = {}
    for board, _dice, _gi in recs:
        pid = gnubg.positionid(board)
        cls = G.CLASS_NAMES[gnubg.classifypos(board, 0)]
        if cls in PER_CLASS and pid not in pool:
            pool[pid] = (board, cls)
    chosen = []
    for cls, want in PER_CLASS.items():
        ids = sorted(p for p, (_b, c) in pool.items() if c == cls)
        rng.shuffle(ids)
        chosen += ids[:want]
    kinds = [k for k, _w in KINDS]
    weights = [w for _k, w in KINDS]
    cases = []
    for pid in chosen:
        board, cls = pool[pid]
        kind = rng.choices(kinds, weights)[0]
        length, score, crawford, cube, owner = situation(rng, kind)
        ci = cube_info(length, score, crawford, cube, owner)
        probs = gnubg.evaluate(board, ci, EC_CUBELESS)[:5]
        optimal, nd, dt, dp, code, text = gnubg.cfevaluate(board, ci, EC_CUBEFUL)
        case = {
            "kind": kind,
            "position_id": pid,
            "gnubg_class": cls,
            "pips": [pips(board[1]), pips(board[0])],
            "length": length,
            "score": list(score),
            "crawford": bool(crawford),
            "cube": cube,
            "owner": OWNER_NAME[owner],
            "probabilities": [float(x) for x in probs],
            "equities": [float(optimal), float(nd), float(dt), float(dp)],
            "mwc": [float(gnubg.eq2mwc(e, ci)) for e in (optimal, nd, dt, dp)],
            "decision": int(code),
            "decision_text": text,
        }
        if cls == "bearoff2":
            money = {
                "cubeless": float(
                    gnubg.evaluate(board, gnubg.cubeinfo(1, CENTRED, ON_ROLL, 0, (0, 0), 0), EC_CUBELESS)[5]
                )
            }
            for own in (CENTRED, ON_ROLL, OPPONENT):
                mci = gnubg.cubeinfo(1, own, ON_ROLL, 0, (0, 0), 0)
                money[OWNER_NAME[own]] = float(gnubg.cfevaluate(board, mci, EC_CUBEFUL)[1])
            case["money"] = money
        cases.append(case)
    met = gnubg.met(25)
    counts = G.count_by(cases, "kind")
    out = {
        "generator": "tools/gnubg_fixtures/gen_match_cube.py (gnubg.cfevaluate, 0-ply cubeful, side on roll = "
        "board1 of position_id = gnubg's player 1; score is [side on roll, opponent])",
        "gnubg_version": G.gnubg_version(),
        "seed": SEED,
        "evalcontext_cubeless": EC_CUBELESS,
        "evalcontext_cubeful": EC_CUBEFUL,
        "met": {"pre_crawford": met[0], "post_crawford_player0": met[1], "post_crawford_player1": met[2]},
        "kind_counts": counts,
        "cases": cases,
    }
    G.write_cases("gnubg_match_cube.json", out, counts)


main()
