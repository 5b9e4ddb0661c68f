"""Shared helpers for the gnubg fixture generators.

These scripts run *inside* GNU Backgammon (``gnubg -t -q -p script.py``),
so ``import gnubg`` is available there.  The pure-Python helpers in this
module (independent move generator, random positions) do not need gnubg and
are only used to pick interesting positions and to cross-check what gnubg
reports; gnubg's own answers are what ends up in the fixture files.

Board convention (gnubg's): a board is ``(board0, board1)``; each is a list
of 25 checker counts from that player's own point of view (index 0 = ace
point ... 23 = 24 point, 24 = bar).  ``board1`` is the player on roll.
"""

import ctypes
import json
import os
import sys
import tempfile

try:  # only available inside gnubg
    import gnubg  # noqa: F401
except ImportError:  # pragma: no cover
    gnubg = None

REPO_ROOT = os.getcwd()
FIXTURE_DIR = os.path.join(REPO_ROOT, "tests", "fixtures")

_libc = ctypes.CDLL(None)


# ---------------------------------------------------------------------------
# gnubg plumbing
# ---------------------------------------------------------------------------


def C(cmd):
    """Run one gnubg command."""
    gnubg.command(cmd)


def capture(cmd):
    """Run a gnubg command and return what it printed on stdout."""
    sys.stdout.flush()
    _libc.fflush(None)
    saved = os.dup(1)
    with tempfile.TemporaryFile(mode="w+b") as tf:
        os.dup2(tf.fileno(), 1)
        try:
            gnubg.command(cmd)
        finally:
            sys.stdout.flush()
            _libc.fflush(None)
            os.dup2(saved, 1)
            os.close(saved)
        tf.seek(0)
        return tf.read().decode("utf-8", "replace")


def gnubg_version():
    return capture("show version").splitlines()[0].strip()


def quiet_setup(seed=20240601):
    """Settings shared by all generators: no auto play, 0-ply, fixed RNG."""
    for c in [
        "set display off",
        "set rng mersenne",
        "set seed %d" % seed,
        "set player 0 human",
        "set player 1 human",
        "set auto roll off",
        "set auto game off",
        "set auto bearoff off",
        "set auto move off",
        "set auto crawford on",
        "set evaluation chequerplay evaluation plies 0",
        "set evaluation cubedecision evaluation plies 0",
        "set evaluation chequerplay evaluation cubeful off",
    ]:
        C(c)


def selfplay_positions(ngames, seed):
    """(board, dice, game_no) from gnubg-vs-gnubg 0-ply games (cube off).

    board is the position before the move, the mover on roll (board[1])."""
    for c in ["set seed %d" % seed, "set cube use off", "set player 0 gnubg", "set player 1 gnubg"]:
        C(c)
    for p in (0, 1):
        gnubg.command("set player %d chequerplay evaluation plies 0" % p)
        gnubg.command("set player %d cubedecision evaluation plies 0" % p)
    out = []
    for gi in range(ngames):
        gnubg.command("new game")
        g = gnubg.match(0, 1, 0, 0)["games"][-1]
        for rec in g["game"]:
            if rec.get("action") == "move" and rec.get("board"):
                b = gnubg.positionfromid(rec["board"])
                mv = rec.get("move") or ()
                # sanity: the recorded move must start from the mover's checkers
                if mv and not all(b[1][f - 1] for f, _ in mv[:1]):
                    raise RuntimeError("self-play record perspective? %s" % rec)
                out.append((b, tuple(rec["dice"]), gi))
    gnubg.command("set player 0 human")
    gnubg.command("set player 1 human")
    gnubg.command("set cube use on")
    gnubg.command("new game")
    return out


# gnubg 1.07 position classes (gnubg.classifypos)
CLASS_NAMES = {
    0: "over",
    1: "hypergammon1",
    2: "hypergammon2",
    3: "hypergammon3",
    4: "bearoff2",
    5: "bearoff_ts",
    6: "bearoff1",
    7: "bearoff_os",
    8: "race",
    9: "crashed",
    10: "contact",
}


def count_by(cases, key):
    """How many cases have each value of case[key], in the order the values first appear."""
    counts = {}
    for c in cases:
        counts[c[key]] = counts.get(c[key], 0) + 1
    return counts


def write_cases(name, out, counts):
    """Write out to tests/fixtures/name with its "cases" one per line; report the counts on stderr."""
    path = write_json(name, out, one_line_list_key="cases")
    sys.stderr.write("wrote %s: %d cases %s\n" % (path, len(out["cases"]), counts))


def write_json(name, obj, one_line_list_key=None):
    """Write JSON deterministically; items of obj[one_line_list_key] one per line."""
    path = os.path.join(FIXTURE_DIR, name)
    os.makedirs(FIXTURE_DIR, exist_ok=True)
    if one_line_list_key is None:
        text = json.dumps(obj, indent=1, sort_keys=False) + "\n"
    else:
        head = {k: v for k, v in obj.items() if k != one_line_list_key}
        parts = ["{"]
        for k, v in head.items():
            parts.append("%s: %s," % (json.dumps(k), json.dumps(v)))
        parts.append("%s: [" % json.dumps(one_line_list_key))
        items = obj[one_line_list_key]
        for i, it in enumerate(items):
            sep = "," if i + 1 < len(items) else ""
            parts.append(json.dumps(it, separators=(", ", ": ")) + sep)
        parts.append("]")
        parts.append("}")
        text = "\n".join(parts) + "\n"
    with open(path, "w") as f:
        f.write(text)
    return path


# ---------------------------------------------------------------------------
# Independent legal-move generator (cross-check only)
# ---------------------------------------------------------------------------


def _step(me, opp, src, d):
    """Move one checker of `me` from index src (24 = bar) by d pips.

    Returns new (me, opp) tuples or None if illegal.  Caller guarantees the
    bar rule (a checker on the bar must move first)."""
    if me[src] == 0:
        return None
    dst = src - d
    if dst >= 0:
        oi = 23 - dst
        if opp[oi] >= 2:
            return None
        me2 = list(me)
        opp2 = list(opp)
        me2[src] -= 1
        me2[dst] += 1
        if opp2[oi] == 1:
            opp2[oi] = 0
            opp2[24] += 1
        return tuple(me2), tuple(opp2)
    # bearing off
    if any(me[i] for i in range(6, 25)):
        return None
    if dst < -1 and any(me[i] for i in range(src + 1, 6)):
        return None
    me2 = list(me)
    me2[src] -= 1
    return tuple(me2), tuple(opp)


def _sources(me):
    if me[24]:
        return [24]
    return [i for i in range(23, -1, -1) if me[i]]


def legal_results(board, dice):
    """All distinct legal resulting positions.

    board = (opp, me) with me on roll.  Returns (set of (me', opp'),
    number of dice played)."""
    opp, me = tuple(board[0]), tuple(board[1])
    d1, d2 = dice
    if d1 == d2:
        orders = [[d1] * 4]
    else:
        orders = [[d1, d2], [d2, d1]]
    results = {}  # (me, opp) -> (ndice, usedlarger)
    best = 0

    def rec(me, opp, rest, used):
        nonlocal best
        moved = False
        if rest:
            d = rest[0]
            for s in set(_sources(me)):
                r = _step(me, opp, s, d)
                if r is not None:
                    moved = True
                    rec(r[0], r[1], rest[1:], used + [d])
        if not moved:
            n = len(used)
            best = max(best, n)
            key = (me, opp)
            prev = results.get(key)
            info = (n, max(used) if used else 0)
            if prev is None or info > prev:
                results[key] = info

    for o in orders:
        rec(me, opp, o, [])
    keep = {k for k, v in results.items() if v[0] == best}
    if best == 1 and d1 != d2:
        hi = max(d1, d2)
        big = {k for k in keep if results[k][1] == hi}
        if big:
            keep = big
    if best == 0:
        keep = set()
    return keep, best


def classify_roll(board, dice):
    """Return (n_results, ndice_played, detail) using the independent generator."""
    res, best = legal_results(board, dice)
    detail = None
    d1, d2 = dice
    if d1 != d2 and best == 1:
        # which dice can be played alone?
        opp, me = tuple(board[0]), tuple(board[1])
        can = []
        for d in (d1, d2):
            if any(_step(me, opp, s, d) for s in _sources(me)):
                can.append(d)
        if len(can) == 2:
            detail = "either_not_both"
        elif can == [max(d1, d2)]:
            detail = "only_larger"
        else:
            detail = "only_smaller"
    return len(res), best, detail


def child_boards(board, dice):
    """Children as gnubg shows them after the move: (mover, opponent-on-roll)."""
    res, _ = legal_results(board, dice)
    return [(list(m), list(o)) for (m, o) in res]


# ---------------------------------------------------------------------------
# Random positions
# ---------------------------------------------------------------------------

INITIAL = [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]


def valid_board(b0, b1):
    for i in range(24):
        if b1[i] and b0[23 - i]:
            return False
    return 0 < sum(b0) <= 15 and 0 < sum(b1) <= 15 and all(x >= 0 for x in b0 + b1)


def random_side(rng, n, lo, hi, bar_prob=0.0, max_bar=3, weights=None):
    """n checkers on indices lo..hi (inclusive), plus maybe some on the bar."""
    b = [0] * 25
    nbar = 0
    if bar_prob and rng.random() < bar_prob:
        nbar = rng.randint(1, min(max_bar, n))
    b[24] = nbar
    pts = list(range(lo, hi + 1))
    for _ in range(n - nbar):
        if weights:
            i = rng.choices(pts, weights=[weights[p] for p in pts])[0]
        else:
            i = rng.choice(pts)
        b[i] += 1
    return b


def resolve_conflicts(rng, b0, b1):
    """Move checkers of b0 off points occupied by b1 (onto free points)."""
    for i in range(24):
        j = 23 - i  # b0 index facing b1[i]
        if b1[i] and b0[j]:
            n = b0[j]
            b0[j] = 0
            free = [k for k in range(24) if not b1[23 - k]]
            for _ in range(n):
                b0[rng.choice(free)] += 1
    return b0, b1
