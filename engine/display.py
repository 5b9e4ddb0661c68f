"""Text board in the layout of GNU Backgammon's ``show board`` (player 1 = X at the bottom)."""

from __future__ import annotations

import numpy as np

from engine.match import BARE_ID_STATE, MatchState
from engine.position import Position

_TOP_LABELS = "+13-14-15-16-17-18------19-20-21-22-23-24-+"
_BOTTOM_LABELS = "+12-11-10--9--8--7-------6--5--4--3--2--1-+"


def _count_char(n: int) -> str:
    return str(n) if n < 10 else chr(ord("A") + n - 10)


def _cell(n: int, row: int, char: str) -> str:
    """Character for the ``row``-th checker (0 = at the edge) of a stack of ``n``."""
    if row == 4 and n > 5:
        return _count_char(n)
    return char if n > row else " "


def _off_cell(n: int, row: int, char: str) -> str:
    """Borne-off column: five checkers a column, up to three columns, then the text gap."""
    marks = "".join(char for column in range(3) if n > 5 * column + row)
    return f" {marks:<2}  "


_RESIGNATIONS = {1: "single game", 2: "gammon", 3: "backgammon"}


def board_text(
    position: Position,
    match: MatchState | None = None,
    names: tuple[str, str] = ("player 0", "player 1"),
) -> str:
    """gnubg-style board: O (player 0) on top, X (player 1) at the bottom, both IDs and pips.

    ``position`` is seen from the side on roll, which is ``match.on_roll`` (player 1 if no match).
    """
    m = match if match is not None else BARE_ID_STATE
    x_on_roll = m.on_roll == 1
    xb = position.array if x_on_roll else position.flip().array
    xb = xb.astype(np.int64)
    x = np.clip(xb, 0, None)
    o = np.clip(-xb, 0, None)
    x_bar, o_bar = int(xb[25]), int(-xb[0])
    x_off, o_off = 15 - int(x.sum()), 15 - int(o.sum())

    def status(player: int) -> str:
        if m.game_state != 1:
            return ""
        if m.doubled:
            return f"Cube offered at {2 * m.cube}" if m.turn == player else ""
        if m.on_roll != player:
            return ""
        text = f"Rolled {m.dice[0]}{m.dice[1]}" if m.dice[0] else "On roll"
        if m.resigned:
            text += f", resigns {_RESIGNATIONS[m.resigned]}"
        return text

    def points(player: int) -> str:
        return f"{m.score[player]} point" + ("" if m.score[player] == 1 else "s")

    def cube_tag(player: int) -> str:
        return f" (Cube: {m.cube})" if m.cube_owner == player else ""

    centred = f"(Cube: {m.cube})" if m.cube_owner is None and not m.doubled else ""
    middle = f"{m.match_length} points match {centred}".rstrip() if m.match_length else centred
    right_top = [points(0), status(0), "", "", ""]
    right_bottom = ["", "", "", status(1), points(1)]

    lines = [
        f" GNU Backgammon  Position ID: {position.id}",
        f"                 Match ID   : {m.id}",
    ]
    top_labels, bottom_labels = (_TOP_LABELS, _BOTTOM_LABELS) if x_on_roll else (_BOTTOM_LABELS, _TOP_LABELS)
    lines.append(f" {top_labels}     O: {names[0]}{cube_tag(0)}")
    for row in range(5):
        left = "".join(f" {_cell(int(o[p]) or int(x[p]), row, 'O' if o[p] else 'X')} " for p in range(13, 19))
        right = "".join(f" {_cell(int(o[p]) or int(x[p]), row, 'O' if o[p] else 'X')} " for p in range(19, 25))
        bar = f" {_cell(o_bar, row, 'O')} "
        lines.append(f" |{left}|{bar}|{right}|{_off_cell(o_off, row, 'O')}{right_top[row]}")
    lines.append(f"{'v' if x_on_roll else '^'}|{' ' * 18}|BAR|{' ' * 18}|     {middle}")
    for row in range(4, -1, -1):
        left = "".join(f" {_cell(int(o[p]) or int(x[p]), row, 'O' if o[p] else 'X')} " for p in range(12, 6, -1))
        right = "".join(f" {_cell(int(o[p]) or int(x[p]), row, 'O' if o[p] else 'X')} " for p in range(6, 0, -1))
        bar = f" {_cell(x_bar, row, 'X')} "
        lines.append(f" |{left}|{bar}|{right}|{_off_cell(x_off, row, 'X')}{right_bottom[4 - row]}")
    lines.append(f" {bottom_labels}     X: {names[1]}{cube_tag(1)}")
    x_pips = int((x[1:25] * np.arange(1, 25)).sum()) + 25 * x_bar
    o_pips = int((o[1:25] * (25 - np.arange(1, 25))).sum()) + 25 * o_bar
    lines.append(f"Pip counts: O {o_pips}, X {x_pips}")
    return "\n".join(line.rstrip() for line in lines)
