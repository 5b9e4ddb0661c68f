"""Generate tests/fixtures/gnubg_xgid.json: XGIDs and the position and match IDs gnubg 1.07 reads them into.

Run from the repository root:
    /usr/games/gnubg -t -q -p tools/gnubg_fixtures/gen_xgid.py > /dev/null

gnubg 1.07 reads XGIDs (``set xgid``) but writes none. Each case writes an XGID from a position of
gnubg-vs-gnubg games (or a constructed one: checkers on the bar, borne off) and match fields drawn at
random (money or match, cube value and owner, the player on roll, dice or none, scores, Crawford,
Jacoby and beavers, the maximum cube), has gnubg read it, and records gnubg's ``positionid()`` and
``matchid()``. When O (turn -1) is on roll gnubg's ``set xgid`` swaps the players so that the one on
roll is drawn at the bottom (it asks, and in a script the answer is yes); ``swap players`` undoes
that, so the IDs recorded are those of the XGID's own players (X = player 1, O = player 0).

The dice may come in either order (gnubg keeps the higher die first); ``xgid_high_die_first`` is the
XGID as XG writes it, the higher die first. Strings gnubg refuses ("Not a valid XGID") are recorded
with ``"valid": false``. Not covered here:
a double offered (dice ``D``), which gnubg 1.07's ``set matchid`` drops, and beavers and the maximum
cube, which a match ID does not hold (each case keeps them for the writer's check).
"""

import ctypes
import os
import random
import sys
import tempfile

sys.path.insert(0, os.path.join(os.getcwd(), "tools", "gnubg_fixtures"))
import gfx_common as G  # noqa: E402
import gnubg  # noqa: E402

SEED = 2812
CASES = 240
LENGTHS = [0, 0, 0, 0, 1, 3, 5, 7, 9, 11, 15, 25]


def slot(v):
    if v == 0:
        return "-"
    return chr(ord("A") + v - 1) if v > 0 else chr(ord("a") - v - 1)


def x_frame(board, x_on_roll):
    """gnubg's (not on roll, on roll) pair as XG's 26 slots in X's frame."""
    theirs, mine = board
    if not x_on_roll:
        mine, theirs = theirs, mine  # X is the side not on roll
    out = [0] * 26
    out[0] = -theirs[24]
    out[25] = mine[24]
    for p in range(1, 25):
        out[p] = mine[p - 1] - theirs[24 - p]
    return out


def constructed(rng):
    """A random legal board with checkers on the bar or borne off (gnubg's pair, side on roll last)."""
    while True:
        b1 = G.random_side(rng, rng.randint(1, 15), 0, 23, bar_prob=0.3)
        b0 = G.random_side(rng, rng.randint(1, 15), 0, 23, bar_prob=0.3)
        b0, b1 = G.resolve_conflicts(rng, b0, b1)
        if G.valid_board(b0, b1):
            return [b0, b1]


def one_case(rng, boards):
    board = rng.choice(boards) if rng.random() < 0.75 else constructed(rng)
    length = rng.choice(LENGTHS)
    turn = rng.choice([1, -1])
    score_x = score_o = 0
    crawford = False
    if length == 0:
        score_x, score_o = rng.randint(0, 9), rng.randint(0, 9)
        rules = rng.randint(0, 3)
    elif length > 1:
        score_x, score_o = rng.randint(0, length - 1), rng.randint(0, length - 1)
        if rng.random() < 0.4:
            score_x, score_o = rng.choice([(length - 1, score_o), (score_x, length - 1)])
        crawford = (length - 1) in (score_x, score_o) and score_x != score_o and rng.random() < 0.6
        rules = int(crawford)
    else:
        rules = 0
    cube, owner = 0, 0
    if not crawford and rng.random() < 0.6:
        if length == 0:
            cube = rng.randint(0, 6)
            owner = rng.choice([1, -1]) if cube else rng.choice([0, 0, 1, -1])
        else:
            # the owner took the cube from the other player, whose score plus half the cube is below the length
            owner = rng.choice([1, -1])
            room = length - (score_o if owner == 1 else score_x) - 1
            if room >= 1:
                cube = rng.randint(1, min(room.bit_length(), 6))
            else:
                owner = 0
    dice = "00"
    if rng.random() < 0.6:
        dice = "%d%d" % (rng.randint(1, 6), rng.randint(1, 6))
    max_cube = rng.choice([8, 10, 10, 12])
    position = "".join(slot(v) for v in x_frame(board, turn == 1))
    fields = [position, cube, owner, turn, dice, score_x, score_o, rules, length, max_cube]
    return "XGID=" + ":".join(str(f) for f in fields)


_libc = ctypes.CDLL(None)


def capture_both(cmd):
    """Run a gnubg command and return what it printed on stdout and stderr (its errors go to stderr)."""
    sys.stdout.flush()
    sys.stderr.flush()
    _libc.fflush(None)
    saved = [os.dup(1), os.dup(2)]
    with tempfile.TemporaryFile(mode="w+b") as tf:
        os.dup2(tf.fileno(), 1)
        os.dup2(tf.fileno(), 2)
        try:
            gnubg.command(cmd)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            _libc.fflush(None)
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
        tf.seek(0)
        return tf.read().decode("utf-8", "replace")


def read(xgid):
    out = capture_both("set xgid " + xgid)
    if "Not a valid XGID" in out:
        return None
    if xgid.split(":")[3] == "-1":
        G.capture("swap players")
    return gnubg.positionid(), gnubg.matchid()


BAD = [
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0",  # nine fields
    "XGID=-b----E-C---eE---c-e----B:0:0:1:52:0:0:3:0:10",  # 25 position characters
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:5:0:0:3:0:10",  # one die
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:B:0:0:3:0:10",  # a beaver pending
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:2:7:10",  # rules 2 in a match
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:4:0:10",  # rules 4 in money play
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:x2:0:0:0:0:10",  # a letter for a die
    "-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10:1",  # eleven fields
]


def main():
    rng = random.Random(SEED)
    G.quiet_setup(SEED)
    boards = [b for b, _, _ in G.selfplay_positions(6, SEED)]
    C = G.C
    C("new session")
    cases = []
    seen = set()
    while len(cases) < CASES:
        xgid = one_case(rng, boards)
        if xgid in seen:
            continue
        seen.add(xgid)
        result = read(xgid)
        if result is None:
            raise RuntimeError("gnubg refused a generated XGID %s" % xgid)
        fields = xgid.split(":")
        beavers = fields[8] == "0" and int(fields[7]) >= 2
        if fields[4] != "00":  # XG writes the higher die first; gnubg's match ID keeps it first too
            fields[4] = "".join(sorted(fields[4], reverse=True))
        cases.append(
            {
                "xgid": xgid,
                "xgid_high_die_first": ":".join(fields),
                "valid": True,
                "position_id": result[0],
                "match_id": result[1],
                "beavers": beavers,
                "max_cube_exponent": int(xgid.split(":")[9]),
            }
        )
    for xgid in BAD:
        if read(xgid) is not None:
            raise RuntimeError("gnubg accepted %s, listed as invalid" % xgid)
        cases.append({"xgid": xgid, "valid": False})
    out = {
        "generator": "tools/gnubg_fixtures/gen_xgid.py",
        "gnubg_version": G.gnubg_version(),
        "seed": SEED,
        "cases": cases,
    }
    G.write_cases("gnubg_xgid.json", out, G.count_by(cases, "valid"))


main()
