"""Generate tests/fixtures/gnubg_rollout_cube.json: 40 cube decisions near the doubling window, with
GNU Backgammon 1.07's cube analysis at 0 and 2 ply, to hold the project's cube-decision rollouts against.

Run from the repository root (a few minutes):
    /usr/games/gnubg -t -q -p tools/gnubg_fixtures/gen_rollout_cube.py > /dev/null

Positions come from gnubg-vs-gnubg 0-ply self-play (cube off); a position is *near the doubling
window* when gnubg's 0-ply cubeful analysis puts doubling within 0.25 of not doubling (money, or at
the case's score, in normalised equity) and the side on roll may double. 20 money cases (centred
cube, no Jacoby, no beavers) and 20 match cases (pre-Crawford scores with a centred or owned cube,
and post-Crawford with the trailer on roll). Each case holds gnubg's 0-ply cubeless probabilities
and, at 0 and 2 ply, ``gnubg.cfevaluate``'s optimal, no double, double/take, double/pass
(normalised equity; MWC beside at a match score) and its proper action. Board convention as in
gen_match_cube.py: the side on roll is gnubg's player 1 (board1), scores are [side on roll, opponent].
"""

import os
import random
import sys

sys.path.insert(0, os.path.join(os.getcwd(), "tools", "gnubg_fixtures"))
import gfx_common as G  # noqa: E402
import gnubg  # noqa: E402

SEED = 20261126
N_GAMES = 120
N_MONEY = 20
N_MATCH = 20
WINDOW = 0.25  # |min(DT, DP) - ND| at 0 ply, normalised equity
LENGTHS = [3, 5, 7, 9, 11]
EC_CUBELESS = {"cubeful": 0, "plies": 0, "deterministic": 1, "prune": 0, "noise": 0.0}
EC = {plies: {"cubeful": 1, "plies": plies, "deterministic": 1, "prune": 0, "noise": 0.0} for plies in (0, 2)}
ON_ROLL, OPPONENT, CENTRED = 1, 0, -1
OWNER_NAME = {CENTRED: "centered", ON_ROLL: "owned", OPPONENT: "unavailable"}


def situation(rng, money):
    """(length, (on roll score, opponent score), crawford, cube, owner) of a case."""
    if money:
        return 0, (0, 0), 0, 1, CENTRED
    n = rng.choice(LENGTHS)
    if rng.random() < 0.2:  # post-Crawford, the trailer on roll
        return n, (rng.randrange(0, n - 1), n - 1), 0, 1, CENTRED
    score = (rng.randrange(0, n - 1), rng.randrange(0, n - 1))
    opp_away = n - score[1]
    if rng.random() < 0.25 and opp_away > 1:  # the side on roll owns a 2-cube (its opponent doubled)
        return n, score, 0, 2, ON_ROLL
    return n, score, 0, 1, CENTRED


def cube_info(length, score, crawford, cube, owner):
    # gnubg's player 1 is on roll (board[1]); its score tuple is (player 0, player 1)
    return gnubg.cubeinfo(cube, owner, ON_ROLL, length, (score[1], score[0]), crawford)


def analysis(board, ci, plies, length):
    optimal, nd, dt, dp, code, text = gnubg.cfevaluate(board, ci, EC[plies])
    out = {
        "equities": [float(optimal), float(nd), float(dt), float(dp)],
        "decision": int(code),
        "decision_text": text,
    }
    if length:
        out["mwc"] = [float(gnubg.eq2mwc(e, ci)) for e in (optimal, nd, dt, dp)]
    return out


def main():
    rng = random.Random(SEED)
    G.quiet_setup(SEED)
    gnubg.command("set jacoby off")
    gnubg.command("set beavers 0")
    recs = G.selfplay_positions(N_GAMES, SEED + 1)
    boards, seen = [], set()
    for board, _dice, _gi in recs:
        pid = gnubg.positionid(board)
        if pid not in seen and G.CLASS_NAMES[gnubg.classifypos(board, 0)] in ("contact", "crashed", "race"):
            seen.add(pid)
            boards.append((pid, board))
    rng.shuffle(boards)
    cases = {"money": [], "match": []}
    for pid, board in boards:
        if len(cases["money"]) >= N_MONEY and len(cases["match"]) >= N_MATCH:
            break
        kind = "money" if len(cases["money"]) < N_MONEY and rng.random() < 0.5 else "match"
        if len(cases[kind]) >= (N_MONEY if kind == "money" else N_MATCH):
            kind = "match" if kind == "money" else "money"
        length, score, crawford, cube, owner = situation(rng, kind == "money")
        ci = cube_info(length, score, crawford, cube, owner)
        zero = analysis(board, ci, 0, length)
        _opt, nd, dt, dp = zero["equities"]
        if abs(min(dt, dp) - nd) > WINDOW or zero["decision_text"].startswith(("Never", "Unknown")):
            continue
        probs = gnubg.evaluate(board, ci, EC_CUBELESS)[:5]
        cases[kind].append(
            {
                "kind": kind,
                "position_id": pid,
                "gnubg_class": G.CLASS_NAMES[gnubg.classifypos(board, 0)],
                "length": length,
                "score": list(score),
                "crawford": bool(crawford),
                "cube": cube,
                "owner": OWNER_NAME[owner],
                "probabilities": [float(x) for x in probs],
                "ply0": zero,
                "ply2": analysis(board, ci, 2, length),
            }
        )
    all_cases = cases["money"] + cases["match"]
    counts = G.count_by(all_cases, "kind")
    out = {
        "generator": "tools/gnubg_fixtures/gen_rollout_cube.py (gnubg.cfevaluate at 0 and 2 ply; side on roll = "
        "board1 of position_id = gnubg's player 1; score is [side on roll, opponent]; money: no Jacoby, no beavers)",
        "gnubg_version": G.gnubg_version(),
        "seed": SEED,
        "window": WINDOW,
        "evalcontexts": {"cubeless": EC_CUBELESS, "ply0": EC[0], "ply2": EC[2]},
        "kind_counts": counts,
        "cases": all_cases,
    }
    G.write_cases("gnubg_rollout_cube.json", out, counts)


main()
