"""Generate tests/fixtures/gnubg_movegen.json from GNU Backgammon.

Run from the repository root:
    /usr/games/gnubg -t -q -p tools/gnubg_fixtures/gen_movegen.py

For every (position, dice) case gnubg's full legal move list is taken from
gnubg.hint() (0-ply, so nothing is filtered away), and each move text is then
played with gnubg's own `move` command from a freshly set-up position; the
position ID gnubg reports afterwards (opponent now on roll) is the child.
Every case is cross-checked against an independent move generator
(gfx_common.legal_results); any disagreement aborts the run.
"""

import os
import random
import sys

sys.path.insert(0, os.path.join(os.getcwd(), "tools", "gnubg_fixtures"))
import gfx_common as G  # noqa: E402
import gnubg  # noqa: E402
from gfx_common import C  # noqa: E402

SEED = 600613
ALL_ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]


def ensure_game():
    if gnubg.posinfo()["gamestate"] != 1:
        C("new game")


def setup(board, turn, dice):
    """Put `board` (board1 on roll) on gnubg's board with player `turn` on roll."""
    ensure_game()
    pid = gnubg.positionid(board)
    C("set turn %d" % turn)
    C("set board %s" % pid)
    C("set dice %d %d" % dice)
    pi = gnubg.posinfo()
    got = gnubg.positionid()
    if got != pid or pi["turn"] != turn or tuple(sorted(pi["dice"])) != tuple(sorted(dice)):
        raise RuntimeError("setup failed: %s %s %s %s" % (pid, got, pi, dice))
    return pid


def gnubg_case(board, dice, turn):
    C("new game")  # keep the game record short
    pid = setup(board, turn, dice)
    assert [list(x) for x in gnubg.positionfromid(pid)] == [list(x) for x in board]
    hint = gnubg.hint(100000)
    moves = [h["move"] for h in hint["hint"]]
    out = []
    for mv in moves:
        setup(board, turn, dice)
        C("move " + mv)
        pi = gnubg.posinfo()
        child = gnubg.positionid()
        # a legal move always changes the position and passes the turn
        # (or ends the game); an illegal/unparsable one changes nothing.
        if child == pid or (pi["gamestate"] == 1 and pi["turn"] == turn):
            raise RuntimeError("move not accepted: %s %s %s" % (pid, dice, mv))
        out.append({"move": mv, "child_id": child})
    return pid, out


def check_case(board, dice, moves):
    """Cross-check gnubg's answer with the independent generator."""
    mine = sorted(gnubg.positionid((c[0], c[1])) for c in G.child_boards(board, dice))
    theirs = sorted(m["child_id"] for m in moves)
    if mine != theirs or len(set(theirs)) != len(theirs):
        raise RuntimeError("MISMATCH %s %s\n gnubg=%s\n mine=%s" % (gnubg.positionid(board), dice, theirs, mine))


# ---------------------------------------------------------------------------
# position sources
# ---------------------------------------------------------------------------


def opp_board_points(rng, npts, n=15, extra_lo=0, extra_hi=23):
    """Opponent with `npts` made points in its home (indices 0..5) + rest random."""
    b = [0] * 25
    pts = rng.sample(range(6), npts)
    for p in pts:
        b[p] = 2
    left = n - 2 * npts
    for _ in range(left):
        b[rng.randint(extra_lo, extra_hi)] += 1
    return b


def gen_bar(rng):
    n1 = rng.choice([15, 15, 15, 14, 13, 11])
    me = G.random_side(rng, n1, 0, 23)
    me[24] = 0
    nbar = rng.choice([1, 1, 1, 2, 2, 3, 4])
    # take bar checkers from the board
    for _ in range(nbar):
        idx = [i for i in range(24) if me[i]]
        me[rng.choice(idx)] -= 1
        me[24] += 1
    npts = rng.choice([0, 1, 2, 3, 4, 5, 5, 6])
    opp = opp_board_points(rng, npts, n=rng.choice([15, 15, 14, 12]))
    if rng.random() < 0.35:  # both sides on the bar
        k = rng.randint(1, 2)
        for _ in range(k):
            idx = [i for i in range(6, 24) if opp[i]]
            if idx:
                opp[rng.choice(idx)] -= 1
                opp[24] += 1
    # opponent checkers left where we are would conflict: resolve onto free pts
    G.resolve_conflicts(rng, opp, me)
    return opp, me


def gen_closed(rng):
    """Closed board / prime positions."""
    kind = rng.random()
    opp = [0] * 25
    if kind < 0.5:
        for p in range(6):
            opp[p] = 2
        rest = 3
        for _ in range(rest):
            opp[rng.randint(0, 12)] += 1
    else:  # a 5- or 6-prime somewhere
        ln = rng.choice([5, 6])
        start = rng.randint(1, 10)
        for p in range(start, start + ln):
            opp[p] = 2
        for _ in range(15 - 2 * ln):
            opp[rng.randint(0, 23)] += 1
    me = [0] * 25
    nb = rng.choice([0, 1, 2, 2, 3])
    me[24] = nb
    for _ in range(15 - nb):
        me[rng.choice([rng.randint(0, 23), rng.randint(16, 23), rng.randint(0, 7)])] += 1
    G.resolve_conflicts(rng, me, opp)  # move OUR checkers off opponent points
    return opp, me


def gen_bearoff(rng, gaps=False):
    n = rng.choice([15, 14, 12, 10, 8, 6, 5, 4, 3, 2, 1])
    me = [0] * 25
    if gaps:
        hi = rng.randint(0, 4)  # highest occupied point low, so big dice bear off
        pts = sorted(rng.sample(range(hi + 1), rng.randint(1, hi + 1)))
        if hi not in pts:
            pts.append(hi)
        n = rng.choice([1, 2, 3, 4, 5, 6, 8, 10])
        for _ in range(n):
            me[rng.choice(pts)] += 1
    else:
        for _ in range(n):
            me[rng.randint(0, 5)] += 1
    nopp = rng.choice([15, 15, 13, 9])
    if rng.random() < 0.5:
        opp = G.random_side(rng, nopp, 0, 5)  # race
    else:
        opp = G.random_side(rng, nopp, 0, 23)  # contact: opp checkers in our home
    G.resolve_conflicts(rng, opp, me)
    return opp, me


def gen_blocked(rng):
    """Heavily blocked positions: good source of one-die / no-move rolls."""
    opp = [0] * 25
    me = [0] * 25
    # opponent makes many points (2 each)
    npts = rng.randint(4, 7)
    pts = rng.sample(range(0, 24), npts)
    for p in pts:
        opp[p] = 2
    left = 15 - 2 * npts
    for _ in range(left):
        opp[rng.choice(pts)] += 1
    n = rng.choice([15, 15, 12, 8, 5, 3, 2, 1])
    nb = rng.choice([0, 0, 0, 1, 2])
    me[24] = min(nb, n)
    for _ in range(n - me[24]):
        me[rng.randint(0, 23)] += 1
    G.resolve_conflicts(rng, me, opp)
    return opp, me


def gen_random(rng):
    n0 = rng.choice([15] * 6 + [14, 12, 9, 5])
    n1 = rng.choice([15] * 6 + [14, 12, 9, 5])
    b0 = G.random_side(rng, n0, 0, 23, bar_prob=0.1, max_bar=2)
    b1 = G.random_side(rng, n1, 0, 23, bar_prob=0.1, max_bar=2)
    G.resolve_conflicts(rng, b0, b1)
    return b0, b1


def main():
    rng = random.Random(SEED)
    G.quiet_setup(SEED)
    C("set jacoby off")
    C("new game")

    cases = []
    seen = set()
    turn_counter = [0]

    def add(board, dice, category):
        board = ([int(x) for x in board[0]], [int(x) for x in board[1]])
        if not G.valid_board(board[0], board[1]):
            return False
        dice = (max(dice), min(dice))
        pid0 = gnubg.positionid(board)
        key = (pid0, dice)
        if key in seen:
            return False
        seen.add(key)
        turn = turn_counter[0] % 2
        turn_counter[0] += 1
        pid, moves = gnubg_case(board, dice, turn)
        check_case(board, dice, moves)
        if len(cases) % 50 == 0:
            sys.stderr.write("progress: %d cases\n" % len(cases))
        cases.append(
            {
                "position_id": pid,
                "board": [board[0], board[1]],
                "dice": [dice[0], dice[1]],
                "category": category,
                "moves": moves,
            }
        )
        return True

    # 1. opening: every roll from the initial position
    init = (list(G.INITIAL), list(G.INITIAL))
    for d in ALL_ROLLS:
        add(init, d, "opening")

    # 2. positions (with the roll actually thrown) from gnubg self-play
    sp = [(b, d) for (b, d, _) in G.selfplay_positions(12, SEED + 1)]
    rng.shuffle(sp)
    n = 0
    for board, dice in sp:
        if n >= 260:
            break
        if add(board, dice, "game"):
            n += 1

    # 3. constructed positions
    def fill(category, gen, target, dice_pick=None, accept=None, tries=200000):
        got = 0
        for _ in range(tries):
            if got >= target:
                break
            board = gen(rng)
            if not G.valid_board(board[0], board[1]):
                continue
            dice = dice_pick(rng) if dice_pick else rng.choice(ALL_ROLLS)
            if accept and not accept(board, dice):
                continue
            if add(board, dice, category):
                got += 1
        return got

    def rand_dice(rng):
        return (rng.randint(1, 6), rng.randint(1, 6))

    def is_double(rng):
        d = rng.randint(1, 6)
        return (d, d)

    fill("bar", gen_bar, 70, rand_dice)
    fill("closed_board", gen_closed, 40, rand_dice)
    fill("bearoff", lambda r: gen_bearoff(r, False), 45, rand_dice)

    def gaps_ok(board, dice):
        me = board[1]
        hi = max(i for i in range(25) if me[i])
        return max(dice) > hi + 1  # some die larger than the highest point

    fill("bearoff_gaps", lambda r: gen_bearoff(r, True), 45, rand_dice, gaps_ok)

    # one die only: each of the three sub-kinds
    def want(detail):
        def acc(board, dice):
            if dice[0] == dice[1]:
                return False
            _, best, det = G.classify_roll(board, dice)
            return best == 1 and det == detail

        return acc

    nondouble = lambda r: tuple(r.sample(range(1, 7), 2))  # noqa: E731
    fill("one_die_only", gen_blocked, 15, nondouble, want("only_smaller"))
    fill("one_die_only", gen_blocked, 15, nondouble, want("only_larger"))
    fill("one_die_only", gen_blocked, 20, nondouble, want("either_not_both"))
    fill("one_die_only", gen_bar, 10, nondouble, want("either_not_both"))

    def no_move(board, dice):
        return G.classify_roll(board, dice)[1] == 0

    fill("no_move", gen_blocked, 15, rand_dice, no_move)
    fill("no_move", gen_bar, 15, rand_dice, no_move)

    # doubles: random + partial (fewer than 4 moves playable)
    fill("doubles", gen_random, 50, is_double)

    def partial(board, dice):
        b = G.classify_roll(board, dice)[1]
        return 0 < b < 4

    fill("doubles", gen_blocked, 20, is_double, partial)
    fill("doubles", lambda r: gen_bearoff(r, rng.random() < 0.5), 15, is_double)

    fill("random", gen_random, 60, rand_dice)

    counts = G.count_by(cases, "category")
    out = {
        "generator": "tools/gnubg_fixtures/gen_movegen.py (gnubg.hint at 0-ply for the move "
        "list; each move played with gnubg's `move` command, child = "
        "gnubg.positionid() afterwards, opponent on roll)",
        "gnubg_version": G.gnubg_version(),
        "seed": SEED,
        "category_counts": counts,
        "cases": cases,
    }
    G.write_cases("gnubg_movegen.json", out, counts)


main()
