"""Generate tests/fixtures/gnubg_matchids.json from GNU Backgammon.

Run from the repository root:
    /usr/games/gnubg -t -q -p tools/gnubg_fixtures/gen_matchids.py

Three kinds of case (key "kind"):

* "state":     a real gnubg match/session state reached with gnubg commands
               (new match, set score, set cube, set turn/dice, double, take,
               drop, resign, accept, reject, playing a game to its end).  The
               match ID is gnubg.matchid() of that state; the fields are read
               back from gnubg (gnubg.posinfo() and gnubg.cubeinfo()).
* "encode":    gnubg's own encoder, gnubg.matchid(cubeinfo, posinfo), fed with
               field values the command interface cannot reach (game state 0,
               cubes up to 4096 in long matches, ...).  Fields = the inputs.
* "roundtrip": `set matchid <encode case's id>`; match_id is what gnubg
               re-emits and the fields are read back, input_match_id is what
               was set (gnubg normalises some fields, see README).
"""

import os
import random
import re
import sys

sys.path.insert(0, os.path.join(os.getcwd(), "tools", "gnubg_fixtures"))
import gfx_common as G  # noqa: E402
import gnubg  # noqa: E402
from gfx_common import C  # noqa: E402

SEED = 7719
LENGTHS = [0, 0, 0, 1, 2, 3, 4, 5, 7, 9, 11, 13, 15, 17, 19, 21, 25, 31, 33, 41, 49, 55, 63, 64]


SCORE_RE = re.compile(r"The score \(after \d+ games?\) is: .* (\d+), .* (\d+) \(")


def show_score():
    """anScore as gnubg's `show score` states it (cubeinfo() zeroes the
    score in money sessions, but the match ID carries the session score)."""
    m = SCORE_RE.search(G.capture("show score"))
    return [int(m.group(1)), int(m.group(2))]


def read_fields():
    pi = gnubg.posinfo()
    ci = gnubg.cubeinfo()
    f = fields_from(ci, pi)
    sc = show_score()
    if f["match_length"] and sc != f["score"]:
        raise RuntimeError("score mismatch %s %s" % (sc, f["score"]))
    f["score"] = sc
    return f


def fields_from(ci, pi):
    owner = ci["cubeowner"]
    return {
        "cube": int(ci["cube"]),
        "cube_owner": None if owner not in (0, 1) else int(owner),
        "on_roll": int(ci["move"]),
        "crawford": bool(ci["crawford"]),
        "game_state": int(pi["gamestate"]),
        "turn": int(pi["turn"]),
        "doubled": bool(pi["doubled"]),
        "resigned": int(pi["resigned"]),
        "dice": [int(pi["dice"][0]), int(pi["dice"][1])],
        "match_length": int(ci["matchto"]),
        "score": [int(ci["score"][0]), int(ci["score"][1])],
        "jacoby": bool(ci["jacoby"]) if ci["matchto"] == 0 else None,
    }


def run(cmds):
    for c in cmds:
        C(c)


def end_game_cmds(rng):
    """Commands that make the side on roll bear off its last checker."""
    me = [0] * 25
    me[0] = 1
    opp = [0] * 25
    kind = rng.choice(["single", "gammon", "backgammon"])
    if kind == "single":
        opp[rng.randint(0, 5)] += 5
        opp[rng.randint(0, 5)] += 4
    elif kind == "gammon":
        opp[rng.randint(6, 17)] += 15
    else:
        opp[rng.randint(18, 22)] += 3  # in the winner's home board
        opp[rng.randint(6, 17)] += 12
    pid = gnubg.positionid((opp, me))
    d = (rng.randint(1, 6), rng.randint(1, 6))
    return ["set board %s" % pid, "set dice %d %d" % d, "move 1/off"]


def state_case(rng):
    L = rng.choice(LENGTHS)
    cmds = []
    if L == 0:
        cmds.append("set jacoby %s" % rng.choice(["on", "off"]))
        cmds.append("new session")
    else:
        cmds.append("new match %d" % L)
        if L > 1 and rng.random() < 0.75:
            a = rng.randint(0, L - 1)
            b = rng.randint(0, L - 1)
            if rng.random() < 0.3:
                (a, b) = rng.choice([(L - 1, b), (a, L - 1), (L - 1, L - 1)])
            cmds.append("set score %d %d" % (a, b))
            if (a == L - 1 or b == L - 1) and rng.random() < 0.5:
                cmds.append("set crawford %s" % rng.choice(["on", "off"]))
    if L == 0 and rng.random() < 0.2:
        cmds.append("set score %d %d" % (rng.randint(0, 40), rng.randint(0, 40)))
    # whose turn / dice
    t = rng.random()
    if t < 0.35:
        cmds.append("set turn %d" % rng.randint(0, 1))  # dice not rolled
    elif t < 0.75:
        cmds.append("set turn %d" % rng.randint(0, 1))
        cmds.append("set dice %d %d" % (rng.randint(1, 6), rng.randint(1, 6)))
    # else: keep the opening roll gnubg made
    # cube
    if rng.random() < 0.6:
        maxlog = 12 if L == 0 else 5
        cmds.append("set cube value %d" % (2 ** rng.randint(0, maxlog)))
        cmds.append(rng.choice(["set cube owner 0", "set cube owner 1", "set cube centre"]))
    # action
    a = rng.random()
    if a < 0.25:
        cmds = [c for c in cmds if not c.startswith("set dice")]
        if not any(c.startswith("set turn") for c in cmds):
            cmds.append("set turn %d" % rng.randint(0, 1))
        cmds.append("double")
        cmds.append(rng.choice([None, "take", "drop", "take", "drop"]))
        if cmds[-1] == "take" and rng.random() < 0.3:
            cmds.append("roll")
    elif a < 0.45:
        cmds.append("resign %d" % rng.randint(1, 3))
        cmds.append(rng.choice([None, "accept", "reject"]))
    elif a < 0.55:
        if not any(c.startswith("set turn") for c in cmds):
            cmds.append("set turn %d" % rng.randint(0, 1))
        cmds.extend(end_game_cmds(rng))
    return [c for c in cmds if c]


def encode_case(rng, i):
    L = rng.choice(LENGTHS + [64, 64, 1, 3])
    crawford = 0
    if L:
        s0, s1 = rng.randint(0, L - 1), rng.randint(0, L - 1)
        if rng.random() < 0.2:
            s0 = L - 1
        crawford = int((s0 == L - 1 or s1 == L - 1) and rng.random() < 0.5)
        jac = 0
    else:
        s0, s1 = rng.randint(0, 200), rng.randint(0, 200)
        jac = rng.randint(0, 1)
    if i < 13:
        cube = 2**i  # every cube value gnubg can hold
    else:
        cube = 2 ** rng.randint(0, 12)
    owner = rng.choice([-1, 0, 1])
    if cube == 1:
        owner = -1
    gs = i % 5 if i < 40 else rng.randint(0, 4)
    dice = rng.choice([(0, 0)] + [(a, b) for a in range(1, 7) for b in range(1, 7)])
    ci = {
        "cube": cube,
        "cubeowner": owner,
        "move": rng.randint(0, 1),
        "matchto": L,
        "score": (s0, s1),
        "crawford": crawford,
        "jacoby": jac,
        "beavers": 0,
        "bgv": 0,
    }
    pi = {
        "dice": dice,
        "turn": rng.randint(0, 1),
        "resigned": rng.choice([0, 0, 1, 2, 3]),
        "doubled": rng.randint(0, 1),
        "gamestate": gs,
    }
    mid = gnubg.matchid(ci, pi)
    f = fields_from(ci, pi)
    if L:
        f["jacoby"] = None
    how = "gnubg.matchid(%r, %r)" % (ci, pi)
    return mid, f, how


def main():
    rng = random.Random(SEED)
    G.quiet_setup(SEED)
    cases = []
    seen = set()

    # the manual's example
    run(["set jacoby off", "new match 9", "set matchid QYkqASAAIAAA"])
    cases.append(
        {
            "kind": "state",
            "match_id": gnubg.matchid(),
            "position_id": gnubg.positionid(),
            "fields": read_fields(),
            "how": "new match 9; set matchid QYkqASAAIAAA (manual example)",
        }
    )
    seen.add(cases[-1]["match_id"])

    n_state = 0
    tries = 0
    while n_state < 300 and tries < 5000:
        tries += 1
        cmds = state_case(rng)
        run(cmds)
        try:
            mid = gnubg.matchid()
            pid = gnubg.positionid()
            f = read_fields()
        except Exception:  # e.g. match over: gnubg.cubeinfo() refuses
            continue
        if mid in seen:
            continue
        seen.add(mid)
        cases.append({"kind": "state", "match_id": mid, "position_id": pid, "fields": f, "how": "; ".join(cmds)})
        n_state += 1

    for i in range(90):
        mid, f, how = encode_case(rng, i)
        cases.append({"kind": "encode", "match_id": mid, "position_id": None, "fields": f, "how": how})

    rt_src = [c for c in cases if c["kind"] == "state"][1:41] + [c for c in cases if c["kind"] == "encode"]
    for c in rt_src:
        f = c["fields"]
        # gnubg 1.07 crashes in cubeinfo() for big cubes in match play
        if f["match_length"] and f["cube"] > 32:
            continue
        mid = c["match_id"]
        run(["new match 1", "set matchid %s" % mid])
        try:
            out = gnubg.matchid()
            pid = gnubg.positionid()
        except Exception:
            continue
        cases.append(
            {
                "kind": "roundtrip",
                "input_match_id": mid,
                "match_id": out,
                "position_id": pid,
                "fields": read_fields(),
                "how": "new match 1; set matchid %s" % mid,
            }
        )

    # consistency: bit 66 is NOT fJacoby (money), always 0 for bits 67..71
    counts = G.count_by(cases, "kind")
    out = {
        "generator": "tools/gnubg_fixtures/gen_matchids.py",
        "gnubg_version": G.gnubg_version(),
        "seed": SEED,
        "kind_counts": counts,
        "cases": cases,
    }
    G.write_cases("gnubg_matchids.json", out, counts)


main()
