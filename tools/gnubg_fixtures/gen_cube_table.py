"""Generate tests/fixtures/gnubg_cube_table.json: GNU Backgammon 1.07's 0-ply cube analysis, money and match.

Run from the repository root (about a minute):
    /usr/games/gnubg -t -q -p tools/gnubg_fixtures/gen_cube_table.py > /dev/null

Positions: gnubg-vs-gnubg 0-ply games (cube off), stratified by gnubg's class (contact, crashed,
races spread over the pip counts, one- and two-sided bearoffs), plus the positions named in the
project's cube-decision issue (a last roll, a two-sided bearoff pass, a 76-57 race). Each
position gets a money case with the cube centred (Jacoby off, no beavers), a money case with the
cube owned by one side at 2, and two match situations drawn in turn from a list that holds the
Crawford game and post-Crawford scores. Each case holds gnubg's 0-ply cubeless probabilities and
its 0-ply cubeful cube analysis (optimal, no double, double/take, double/pass in normalised
equity, the decision code and text); match cases also hold the MWCs. Two-sided bearoffs carry
gnubg's cubeful money equities for the three cube states (centred, owned, unavailable).
"""

import os
import random
import sys

sys.path.insert(0, os.path.join(os.getcwd(), "tools", "gnubg_fixtures"))
import gfx_common as G  # noqa: E402
import gnubg  # noqa: E402

SEED = 20261126
N_GAMES = 60
PER_CLASS = {"contact": 16, "crashed": 10, "race": 20, "bearoff1": 12, "bearoff2": 14}
NAMED = ["AwAAMAAAAAAAAA", "0QAA4BIAAAAAAA", "u9uGAAC23VkAAA"]
EC_CUBELESS = {"cubeful": 0, "plies": 0, "deterministic": 1, "prune": 0, "noise": 0.0}
EC_CUBEFUL = {"cubeful": 1, "plies": 0, "deterministic": 1, "prune": 0, "noise": 0.0}
ON_ROLL, OPPONENT, CENTRED = 1, 0, -1
OWNER_NAME = {CENTRED: "centered", ON_ROLL: "owned", OPPONENT: "unavailable"}
# (name, length, (on roll's score, opponent's score), crawford, cube, owner)
MATCH_SITUATIONS = [
    ("7-point, 7-away 7-away", 7, (0, 0), 0, 1, CENTRED),
    ("7-point, 4-away 2-away", 7, (3, 5), 0, 1, CENTRED),
    ("7-point, Crawford game, 1-away 3-away", 7, (6, 4), 1, 1, CENTRED),
    ("7-point, Crawford game, 3-away 1-away", 7, (4, 6), 1, 1, CENTRED),
    ("7-point, post-Crawford, 4-away 1-away", 7, (3, 6), 0, 1, CENTRED),
    ("5-point, 2-away 3-away, cube 2 owned", 5, (3, 2), 0, 2, ON_ROLL),
    ("9-point, 5-away 3-away, opponent owns 2", 9, (4, 6), 0, 2, OPPONENT),
    ("11-point, 3-away 6-away", 11, (8, 5), 0, 1, CENTRED),
]


def pips(side):
    return sum((i + 1) * n for i, n in enumerate(side))


def analysis(board, ci):
    optimal, nd, dt, dp, code, text = gnubg.cfevaluate(board, ci, EC_CUBEFUL)
    return [float(optimal), float(nd), float(dt), float(dp)], int(code), text


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
    chosen = list(NAMED)
    for cls, want in PER_CLASS.items():
        ids = sorted(p for p, (_b, c) in pool.items() if c == cls and p not in chosen)
        if cls == "race":  # spread over the pip counts: every k-th of the races sorted by the roller's pips
            ids.sort(key=lambda p: pips(pool[p][0][1]))
            step = max(1, len(ids) // want)
            chosen += ids[::step][:want]
        else:
            rng.shuffle(ids)
            chosen += ids[:want]
    cases = []
    situation = 0
    for pid in chosen:
        board = gnubg.positionfromid(pid)
        cls = G.CLASS_NAMES[gnubg.classifypos(board, 0)]
        money_ci = gnubg.cubeinfo(1, CENTRED, ON_ROLL, 0, (0, 0), 0)
        probs = [float(x) for x in gnubg.evaluate(board, money_ci, EC_CUBELESS)[:5]]
        common = {
            "position_id": pid,
            "gnubg_class": cls,
            "pips": [pips(board[1]), pips(board[0])],
            "probabilities": probs,
        }
        money = None
        if cls == "bearoff2":
            money = {
                OWNER_NAME[o]: analysis(board, gnubg.cubeinfo(1, o, ON_ROLL, 0, (0, 0), 0))[0][1] for o in OWNER_NAME
            }
        owner = rng.choice([ON_ROLL, OPPONENT])
        for cube, own in ((1, CENTRED), (2, owner)):
            eqs, code, text = analysis(board, gnubg.cubeinfo(cube, own, ON_ROLL, 0, (0, 0), 0))
            case = dict(common, kind="money", length=0, score=[0, 0], crawford=False, cube=cube, owner=OWNER_NAME[own])
            case.update(equities=eqs, decision=code, decision_text=text)
            if money is not None:
                case["money"] = money
            cases.append(case)
        # The Jacoby rule on a centred cube (it changes nothing once the cube is owned). gnubg.cubeinfo takes the
        # rule from the session, not from "set jacoby", so the cubeinfo's own field is set.
        jacoby_ci = gnubg.cubeinfo(1, CENTRED, ON_ROLL, 0, (0, 0), 0)
        jacoby_ci["jacoby"] = 1
        eqs, code, text = analysis(board, jacoby_ci)
        case = dict(common, kind="money", length=0, score=[0, 0], crawford=False, cube=1, owner=OWNER_NAME[CENTRED])
        case.update(jacoby=True, equities=eqs, decision=code, decision_text=text)
        cases.append(case)
        for _ in range(2):
            name, length, score, crawford, cube, own = MATCH_SITUATIONS[situation % len(MATCH_SITUATIONS)]
            situation += 1
            ci = gnubg.cubeinfo(cube, own, ON_ROLL, length, (score[1], score[0]), crawford)
            eqs, code, text = analysis(board, ci)
            case = dict(common, kind=name, length=length, score=list(score), crawford=bool(crawford), cube=cube)
            case.update(owner=OWNER_NAME[own], equities=eqs, decision=code, decision_text=text)
            case["mwc"] = [float(gnubg.eq2mwc(e, ci)) for e in eqs]
            if money is not None:
                case["money"] = money
            cases.append(case)
    met = gnubg.met(25)
    out = {
        "generator": "tools/gnubg_fixtures/gen_cube_table.py (gnubg.cfevaluate, 0-ply; side on roll = board1 of "
        "position_id; score is [side on roll, opponent]; money: no beavers, Jacoby off unless jacoby is true; "
        "equities are "
        "[optimal, no double, double/take, double/pass] normalised to the cube)",
        "gnubg_version": G.gnubg_version(),
        "seed": SEED,
        "evalcontext_cubeless": EC_CUBELESS,
        "evalcontext_cubeful": EC_CUBEFUL,
        "met": {"pre_crawford": met[0], "post_crawford_player0": met[1], "post_crawford_player1": met[2]},
        "kind_counts": G.count_by(cases, "kind"),
        "class_counts": G.count_by(cases, "gnubg_class"),
        "cases": cases,
    }
    G.write_cases("gnubg_cube_table.json", out, out["kind_counts"])


main()
