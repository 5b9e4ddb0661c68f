"""Generate tests/fixtures/gnubg_evals.json: gnubg's 0-ply (and some 2-ply)
cubeless evaluations of positions from gnubg's own self-play games.

Run from the repository root:
    /usr/games/gnubg -t -q -p tools/gnubg_fixtures/gen_evals.py
"""

import os
import random
import sys

sys.path.insert(0, os.path.join(os.getcwd(), "tools", "gnubg_fixtures"))
import gfx_common as G  # noqa: E402
import gnubg  # noqa: E402

SEED = 4242
N_TOTAL = 2000
N_PLY2 = 200
EC0 = {"cubeful": 0, "plies": 0, "deterministic": 1, "prune": 0, "noise": 0.0}
EC2 = {"cubeful": 0, "plies": 2, "deterministic": 1, "prune": 1, "noise": 0.0}


def phase_of(cls):
    if 4 <= cls <= 7:
        return "bearoff"
    if cls == 8:
        return "race"
    return "contact"


def main():
    rng = random.Random(SEED)
    G.quiet_setup(SEED)
    gnubg.command("set jacoby off")
    ci = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)

    recs = G.selfplay_positions(120, SEED + 1)
    # annotate move number within its game
    pool = {}
    ply_in_game = {}
    for board, dice, gi in recs:
        n = ply_in_game.get(gi, 0)
        ply_in_game[gi] = n + 1
        pid = gnubg.positionid(board)
        if pid in pool:
            continue
        cls = gnubg.classifypos(board, 0)
        if cls == 0:
            continue
        pool[pid] = (board, gi, n, cls)

    by_phase = {"contact": [], "race": [], "bearoff": []}
    for pid in sorted(pool):
        by_phase[phase_of(pool[pid][3])].append(pid)
    for v in by_phase.values():
        rng.shuffle(v)
    # stratify: as many race/bearoff as available up to a share, rest contact
    want = {"bearoff": 450, "race": 550}
    chosen = []
    for ph in ("bearoff", "race"):
        chosen += by_phase[ph][: want[ph]]
    chosen += by_phase["contact"][: N_TOTAL - len(chosen)]
    if len(chosen) < N_TOTAL:
        rest = [p for ph in ("race", "bearoff") for p in by_phase[ph][want[ph] :]]
        chosen += rest[: N_TOTAL - len(chosen)]
    chosen.sort(key=lambda p: (pool[p][1], pool[p][2]))

    ply2 = set(rng.sample(chosen, N_PLY2))
    cases = []
    for pid in chosen:
        board, gi, n, cls = pool[pid]
        ev0 = gnubg.evaluate(board, ci, EC0)
        c = {
            "position_id": pid,
            "phase_hint": phase_of(cls),
            "gnubg_class": G.CLASS_NAMES[cls],
            "game": gi,
            "move_no": n,
            "eval0": [float(x) for x in ev0[:5]],
            "equity0": float(ev0[5]),
        }
        if pid in ply2:
            ev2 = gnubg.evaluate(board, ci, EC2)
            c["eval2"] = [float(x) for x in ev2[:5]]
            c["equity2"] = float(ev2[5])
        cases.append(c)

    counts = G.count_by(cases, "phase_hint")
    out = {
        "generator": "tools/gnubg_fixtures/gen_evals.py (gnubg.evaluate, cubeless, money "
        "cubeinfo, side on roll = board1 of position_id)",
        "gnubg_version": G.gnubg_version(),
        "seed": SEED,
        "evalcontext0": EC0,
        "evalcontext2": EC2,
        "outputs": ["win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon"],
        "phase_counts": counts,
        "n_eval2": sum(1 for c in cases if "eval2" in c),
        "cases": cases,
    }
    G.write_cases("gnubg_evals.json", out, counts)


main()
