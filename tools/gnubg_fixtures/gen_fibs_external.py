"""Generate tests/fixtures/gnubg_fibs_external.json: FIBS boards answered by gnubg's external mode.

Unlike the other generators this one runs in ordinary Python (it starts gnubg itself, on a free
127.0.0.1 port, and terminates it at the end). From the repository root:

    python tools/gnubg_fixtures/gen_fibs_external.py

Positions come from seeded random games of the project's own engine. Each board is exactly
``str(FibsBoard.from_position(...))`` (or, for two small categories, a board edited the way
gnubg itself or a FIBS client would write it), sent with ``set debug on`` so that gnubg's own
reading of it (position ID and match ID) is recorded next to its raw reply. The generator
checks every reply (a legal play, or a cube word) and every ID, and refuses to write the file
otherwise.
"""

from __future__ import annotations

import os
import random
import re
import sys
from collections import Counter
from dataclasses import replace
from typing import Any

REPO_ROOT = os.getcwd()
sys.path.insert(0, REPO_ROOT)

from fixture_json import write_fixture  # noqa: E402

from engine import Dice, FibsBoard, Position  # noqa: E402
from engine.fibs import MONEY, parse_external_reply  # noqa: E402
from players.gnubg_client import GnubgExternal  # noqa: E402

SEED = 20260107
OUT = os.path.join(REPO_ROOT, "tests", "fixtures", "gnubg_fibs_external.json")
PLIES = 2  # gnubg 1.07's default for both chequer play and cube decisions
QUOTAS = {
    "game": 110,
    "bar": 45,
    "opponent_bar": 20,
    "bearoff": 45,
    "doubles": 30,
    "one_play": 30,
    "no_play": 25,
}


def pool_of_turns(rng: random.Random, games: int) -> list[tuple[Position, tuple[int, int]]]:
    """(position, dice) of every turn of seeded random games, side on roll's view."""
    turns = []
    for g in range(games):
        dice = Dice(SEED + g)
        position = Position.initial()
        _, roll = dice.opening()
        first = True
        while not position.is_over():
            if not first:
                roll = dice.roll()
            first = False
            turns.append((position, roll))
            position = rng.choice(position.children(roll))
    return turns


def category_of(position: Position, roll: tuple[int, int]) -> list[str]:
    """Every category a turn belongs to."""
    b = position.array
    plays = position.plays(roll)
    cats = ["game"]
    if b[25] > 0:
        cats.append("bar")
    if b[0] < 0 and b[25] == 0:
        cats.append("opponent_bar")
    if not (b[7:26] > 0).any():
        cats.append("bearoff")
    if roll[0] == roll[1]:
        cats.append("doubles")
    if len(plays) == 1:
        cats.append("no_play" if not plays[0][0].hops else "one_play")
    return cats


def random_context(rng: random.Random, *, cube_question: bool = False) -> dict[str, Any]:
    """Random from_position keywords: colour, direction, money or match score, Crawford, cube."""
    ctx: dict[str, Any] = {"color": rng.choice((-1, 1)), "direction": rng.choice((-1, 1))}
    crawford = False
    if rng.random() < 0.5:
        length = rng.choice((3, 5, 7, 9, 11, 25))
        if rng.random() < 0.35:  # a side 1-away: the Crawford game or a post-Crawford game
            other = rng.randrange(length - 1)
            score = (length - 1, other) if rng.random() < 0.5 else (other, length - 1)
            crawford = rng.random() < 0.5 and min(score) < length - 1
        else:
            score = (rng.randrange(length - 1), rng.randrange(length - 1))
        ctx.update(match_length=length, score=list(score), crawford=crawford)
    else:
        ctx.update(match_length=rng.choice((MONEY, MONEY, 0)), score=[rng.randrange(5), rng.randrange(5)])
    if crawford:
        ctx.update(cube=1, player_may_double=True, opponent_may_double=True)
    else:
        owner = rng.choice(("centre", "centre", "player", "opponent"))
        if cube_question and owner == "opponent" and rng.random() < 0.7:
            owner = "player"
        ctx.update(
            cube=1 if owner == "centre" else rng.choice((2, 4, 8)),
            player_may_double=owner != "opponent",
            opponent_may_double=owner != "player",
        )
    return ctx


def board_of(position: Position, dice: tuple[int, int], ctx: dict[str, Any]) -> FibsBoard:
    """``FibsBoard.from_position`` with a record's context (score stored as a list)."""
    kw = dict(ctx)
    kw["score"] = tuple(kw.get("score", (0, 0)))
    return FibsBoard.from_position(position, dice=dice, **kw)


def debug_ids(debug: list[str]) -> tuple[str, str]:
    """gnubg's position ID and match ID from its debug output."""
    text = "\n".join(debug)
    pid = re.search(r"Position ID: (\S+)", text)
    mid = re.search(r"Match ID\s*: (\S+)", text)
    if not pid or not mid:
        raise RuntimeError(f"no IDs in gnubg's debug output: {text!r}")
    return pid.group(1), mid.group(1)


class Recorder:
    """Sends boards to gnubg and keeps checked records."""

    def __init__(self, gnubg: GnubgExternal) -> None:
        self.gnubg = gnubg
        self.records: list[dict[str, Any]] = []

    def send(self, board: str) -> tuple[str, str, str]:
        reply = self.gnubg.request(board)
        pid, mid = debug_ids(self.gnubg.last_debug)
        return reply, pid, mid

    def add(
        self,
        kind: str,
        category: str,
        position: Position,
        dice: tuple[int, int],
        ctx: dict[str, Any] | None,
        board: str,
    ) -> dict[str, Any]:
        reply, gpid, gmid = self.send(board)
        rec = {
            "kind": kind,
            "category": category,
            "position_id": position.id,
            "dice": list(dice),
            "context": ctx,
            "board": board,
            "reply": reply,
            "gnubg_position_id": gpid,
            "gnubg_match_id": gmid,
        }
        # gnubg's debug view puts the side on roll first, except for a pending double, which it
        # shows with the side being doubled on roll (it swaps back before deciding).
        expected_pid = position.flip().id if kind == "take" else position.id
        if gpid != expected_pid:
            raise RuntimeError(f"gnubg read {board!r} as {gpid}, meant {expected_pid}")
        if kind in ("move", "opponent_turn"):
            parse_external_reply(reply, position, dice)  # raises IllegalMove
        elif reply.strip() not in ({"double", "roll"} if kind == "cube" else {"take", "drop", "beaver"}):
            raise RuntimeError(f"gnubg answered {reply!r} to the {kind} question {board!r}")
        self.records.append(rec)
        return rec


def main() -> None:
    rng = random.Random(SEED)
    turns = pool_of_turns(rng, 300)
    by_cat: dict[str, list[tuple[Position, tuple[int, int]]]] = {}
    seen: set[tuple[str, tuple[int, int]]] = set()
    for position, roll in turns:
        key = (position.id, roll)
        if key in seen:
            continue
        seen.add(key)
        for cat in category_of(position, roll):
            by_cat.setdefault(cat, []).append((position, roll))

    with GnubgExternal(plies=PLIES, jacoby=False, beavers=False, debug=True) as gnubg:
        version = gnubg.version()
        rec = Recorder(gnubg)

        # Opening rolls, both colours and directions.
        for a in range(1, 7):
            for b in range(1, a):
                ctx = random_context(rng)
                ctx.update(match_length=MONEY, score=[0, 0], crawford=False, cube=1)
                ctx.update(player_may_double=True, opponent_may_double=True)
                dice = (a, b) if rng.random() < 0.5 else (b, a)
                rec.add("move", "opening", Position.initial(), dice, ctx, str(board_of(Position.initial(), dice, ctx)))

        # Moves by category.
        for cat, quota in QUOTAS.items():
            for position, dice in rng.sample(by_cat[cat], min(quota, len(by_cat[cat]))):
                ctx = random_context(rng)
                rec.add("move", cat, position, dice, ctx, str(board_of(position, dice, ctx)))

        # Boards as gnubg writes them (its own FIBS writer leaves the on-bar and can-move fields 0):
        # the bar counts must be read from board indices 0 and 25.
        for position, dice in rng.sample(by_cat["bar"], 10):
            ctx = random_context(rng)
            fb = replace(board_of(position, dice, ctx), player_on_bar=0, opponent_on_bar=0, can_move=0)
            rec.add("move", "gnubg_style", position, dice, None, str(fb))

        # The opponent's turn: a board from the player's view with the opponent's colour in turn
        # and the dice in the opponent's fields; gnubg plays for the side on turn.
        for position, dice in rng.sample(by_cat["game"], 12):
            ctx = random_context(rng)
            fb = board_of(position.flip(), (0, 0), ctx)
            fb = replace(fb, turn=-fb.color, opponent_dice=dice)
            rec.add("opponent_turn", "opponent_turn", position, dice, None, str(fb))

        # Cube questions: dice 0 0 (double or roll) and pending doubles (take, drop).
        cube_pool = [t for t in by_cat["game"] if not t[0].is_over()]
        late = [t for t in cube_pool if t[0].pips[0] < 70 or t[0].pips[1] < 70]
        for position, _ in rng.sample(cube_pool, 22) + rng.sample(late, 14):
            ctx = random_context(rng, cube_question=True)
            rec.add("cube", "double", position, (0, 0), ctx, str(board_of(position, (0, 0), ctx)))
        for position, _ in rng.sample(cube_pool, 14) + rng.sample(late, 14):
            ctx = random_context(rng)
            if ctx.get("crawford"):
                ctx.update(crawford=False, score=[0, 0])
            redouble = ctx["cube"] > 1
            ctx.update(doubled=True, player_may_double=not redouble, opponent_may_double=True)
            rec.add("take", "take", position, (0, 0), ctx, str(board_of(position, (0, 0), ctx)))

        score_order = score_order_records(gnubg)
        records = rec.records

    counts = Counter(r["category"] for r in records)
    replies = Counter(r["reply"].strip() for r in records if r["kind"] in ("cube", "take"))
    out: dict[str, Any] = {
        "generator": "tools/gnubg_fixtures/gen_fibs_external.py",
        "gnubg_version": version.get("Software"),
        "external_interface": version,
        "settings": gnubg.commands,
        "seed": SEED,
        "category_counts": dict(sorted(counts.items())),
        "cube_reply_counts": dict(sorted(replies.items())),
        "records": records,
        "score_order": score_order,
    }
    write_fixture(OUT, out, ("records", "score_order"))
    print(f"wrote {OUT}: {len(records)} records {dict(counts)}, cube replies {dict(replies)}", file=sys.stderr)


def score_order_records(gnubg: GnubgExternal) -> list[dict[str, Any]]:
    """Boards showing that gnubg 1.07 swaps the match scores for moves, doubles and evaluations, not takes."""
    out: list[dict[str, Any]] = []
    initial = Position.initial()

    def record(what: str, request: str, position: Position, ctx: dict[str, Any], expected: str) -> None:
        board = board_of(position, (0, 0), ctx)
        swapped = replace(board, player_score=board.opponent_score, opponent_score=board.player_score)
        prefix = "evaluation fibsboard " if request == "evaluation" else ""
        suffix = " plies 0 cubeless" if request == "evaluation" else ""
        as_fibs = gnubg.request(f"{prefix}{board}{suffix}")
        pid, mid = debug_ids(gnubg.last_debug)
        as_swapped = gnubg.request(f"{prefix}{swapped}{suffix}")
        out.append(
            {
                "what": what,
                "request": request,
                "position_id": position.id,
                "context": ctx,
                "board": str(board),
                "swapped_board": str(swapped),
                "reply": as_fibs,
                "swapped_reply": as_swapped,
                "expected": expected,
                "gnubg_position_id": pid,
                "gnubg_match_id": mid,
            }
        )

    post = {"match_length": 5, "crawford": False}
    record(
        "leader 1-away, post-Crawford: match-winning chance", "evaluation", initial, {**post, "score": [4, 1]}, ">0.5"
    )
    record("trailer, post-Crawford: match-winning chance", "evaluation", initial, {**post, "score": [1, 4]}, "<0.5")
    record("trailer, post-Crawford: double at once", "cube", initial, {**post, "score": [0, 4]}, "double")
    record("leader 1-away, post-Crawford: no double", "cube", initial, {**post, "score": [4, 0]}, "roll")
    # Take decisions read the scores the FIBS way. The doubler, on roll, is far ahead in a race
    # (37 pips to 72): a trailer doubled by the 1-away leader must take (a drop loses the match);
    # a 1-away leader doubled in such a position by the trailer drops (it stays 1-away).
    race = Position.from_board([0, 4, 4, 4, 2, 1] + [0] * 13 + [-5, -5, -3, -1, -1, 0, 0])
    record(
        "taker trailing, doubler 1-away (post-Crawford): take",
        "take",
        race,
        {**post, "score": [0, 4], "doubled": True},
        "take",
    )
    record(
        "taker 1-away (post-Crawford), doubler trailing: drop",
        "take",
        race,
        {**post, "score": [4, 0], "doubled": True},
        "drop",
    )
    for r in out:
        r["fibs_order_correct"] = _meets(r["reply"], r["request"], r["expected"])
        r["swapped_correct"] = _meets(r["swapped_reply"], r["request"], r["expected"])
    return out


def _meets(reply: str, request: str, expected: str) -> bool:
    """Whether a reply is the expected cube word, or an evaluation's MWC on the expected side of 0.5."""
    if request == "evaluation":
        mwc = float(reply.split()[5])
        return mwc > 0.5 if expected == ">0.5" else mwc < 0.5
    return reply.strip() == expected


if __name__ == "__main__":
    main()
