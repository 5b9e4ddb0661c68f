"""Tournament games in the Jellyfish ``.mat`` text format, as GNU Backgammon 1.07 imports it.

Money games: one file per mirrored pair (``pair_000123.mat``), a money session (`` 0 point
match``) of two games. Matches: one file per match (``match_000246.mat``, the pair's first match,
then ``match_000247.mat``), an ``N point match`` of its games; gnubg works out the Crawford game
from the scores. Player A is the left column (gnubg's player 0, ``X``) and player B the right one
in every game, whichever seat each sat in, so that the names and the score stay with the players;
the header of each game carries the score before it (points won by A and by B).

What gnubg 1.07's ``import mat`` needs, and how it is written here (see
``tools/gnubg_fixtures/gen_mat_import.py`` and ``tests/fixtures/gnubg_mat_import.json``):

* The session header is `` 0 point match`` (gnubg reads ``%d point match``; 0 is a money
  session). Rules are not read from the file: gnubg applies its own ``set jacoby`` setting to
  every imported money game, and that setting is on by default, so import with ``set jacoby
  off`` a session played without the Jacoby rule (else its centred-cube gammons score one point)
  and with ``set jacoby on`` one played with it. The XG-style comments ``; [Jacoby "On"]``,
  ``; [Beaver "On"]`` and ``; [CubeLimit ...]`` written here record the rules for readers; gnubg
  skips them.
* Names: gnubg reads a name up to the first ``:`` of the score line, keeps at most 31
  characters and takes ``,<digits>`` as a rating, so names are written with ``:`` as ``=``, ``,``
  as ``;``, blanks as ``_`` and cut to 31 characters.
* A move line is ``nnn) <left cell> <right cell>``. gnubg splits a line with two rolls at the
  second roll, and any other line at the first double blank after column 15, so cells never hold
  a double blank and at least two blanks separate them. gnubg 1.07 does not clear the right
  cell of a line under 16 characters without a ``:``: it reads the previous line's right cell
  again (a lone `` 18)  Drops`` under ``... Doubles => 8`` is a second double), so no line here
  is that short (see ``Wins`` below).
* A play is written one die at a time in the mover's points, highest first (``25/22 13/8*
  6/0``: 25 is the bar, 0 off, ``*`` a hit), so gnubg never has to guess how a checker that moved
  twice got there. A roll with no legal play is the roll alone (``33:``).
* Cube actions: `` Doubles => 2``, `` Takes``, `` Drops``. A beaver is `` Beavers => 4`` in the
  beaverer's column with no ``Takes`` after it (Jellyfish's way: gnubg reads it as the taker's
  redouble and adds the doubler's take itself, ending with a 4-cube owned by the beaverer); a
  beaver refused because the cube would pass the cube limit was a take and is written ``Takes``.
* The last line says who ``Wins N point(s)``, in the winner's column; after a drop in the left
  column it shares the drop's line, as gnubg writes it. gnubg scores a game from the final
  bear-off (gammons and backgammons included, Jacoby as set) or the drop, and reads ``Wins`` only
  for a game still in play (as a resignation), which tournament games never are.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from arena.games import BlockResult
from arena.matches import MatchBlockResult
from engine.match import MAX_CUBE
from engine.notation import BAR, OFF
from engine.position import Position

if TYPE_CHECKING:
    from arena.tournament import TournamentResult

LEFT_WIDTH = 27  # the left cell's width, as gnubg writes it ("%3d) %-27s ")
RIGHT_COLUMN = 5 + LEFT_WIDTH + 1  # where the right cell starts on a line
NAME_LENGTH = 31  # gnubg keeps at most MAX_NAME_LEN - 1 characters of a name
SCORE_WIDTH = 30  # the left "name : score" of a game's score line


@dataclass(frozen=True)
class MatGame:
    """One recorded game as the writer needs it: its events, player A's seat, the winning seat and the points."""

    events: list[list[Any]]
    seat_of_a: int
    winner: int
    points: int

    @classmethod
    def from_saved(cls, record: Mapping[str, Any]) -> MatGame:
        """The game from one game line of ``save_games`` (``events``, ``seat_of_a``, ``winner``, ``points``)."""
        return cls(list(record["events"]), int(record["seat_of_a"]), int(record["winner"]), int(record["points"]))


def mat_name(name: str) -> str:
    """``name`` as gnubg reads it back from a score line: no ``:``, no ``,``, no blanks, at most 31 characters."""
    cleaned = name.replace(":", "=").replace(",", ";")
    return "_".join(cleaned.split())[:NAME_LENGTH] or "?"


def mat_move(position: Position, dice: tuple[int, int], child: Position) -> str:
    """The play from ``position`` (mover's view) to ``child`` in Jellyfish notation, one die a part (``25/22 6/0``).

    Empty when there is no legal play; raises ValueError when ``child`` is no play of ``dice``.
    """
    move = position.move_to(dice, child)
    if move is None:
        raise ValueError(f"position {child.id!r} is not a play of {dice[0]}{dice[1]} from {position.id}")
    parts = zip(move.hops, move.hits, strict=True)
    return " ".join(f"{_point(src)}/{_point(dst)}{'*' if hit else ''}" for (src, dst), hit in parts)


def _point(point: int) -> str:
    """A point as Jellyfish writes it: 25 for the bar, 0 for off."""
    return "25" if point == BAR else "0" if point == OFF else str(point)


def game_lines(
    events: Sequence[Sequence[Any]], winner: int, points: int, *, left_seat: int = 0, max_cube: int = MAX_CUBE
) -> list[str]:
    """The numbered move lines of one game and its ``Wins`` line; ``left_seat`` is the seat written on the left.

    ``events`` are the game's records (``[seat, "roll", d1, d2, child_id]``, ``[seat, "double", n]``,
    ``[seat, "take" | "pass" | "beaver"]``), ``winner`` a seat, ``max_cube`` the session's cube limit.
    """
    cells: list[tuple[int, str]] = []  # (column, text) in play order
    position = Position.initial()
    offered = 1
    for event in events:
        column = int(event[0]) ^ left_seat
        kind = event[1]
        if kind == "roll":
            d1, d2, child = int(event[2]), int(event[3]), Position.from_id(str(event[4]))
            move = mat_move(position, (d1, d2), child)
            cells.append((column, f"{max(d1, d2)}{min(d1, d2)}: {move}".rstrip()))
            position = child
        elif kind == "double":
            offered = int(event[2])
            cells.append((column, f" Doubles => {offered}"))
        elif kind == "beaver" and offered * 2 <= max_cube:
            cells.append((column, f" Beavers => {offered * 2}"))
        elif kind in ("take", "beaver"):
            cells.append((column, " Takes"))
        elif kind == "pass":
            cells.append((column, " Drops"))
        else:
            raise ValueError(f"unknown game event {list(event)!r}")
    rows: list[list[str]] = []
    for column, text in cells:
        if column == 0 or not rows or rows[-1][1]:
            rows.append(["", ""])
        rows[-1][column] = text
    wins = f" Wins {points} point{'s' if points != 1 else ''}"
    winner_column = winner ^ left_seat
    if winner_column == 1 and rows and not rows[-1][1]:
        # A drop in the left column: ``Wins`` goes on the same line, as gnubg writes it. gnubg 1.07
        # reads a short line without a ':' with the right cell of the line before it still in place,
        # so `` 18)  Drops`` alone would repeat the double above it.
        rows[-1][1], wins = wins, ""
    lines = [_row(number, left, right) for number, (left, right) in enumerate(rows, start=1)]
    if wins:
        lines.append(f"{'':{5 if winner_column == 0 else RIGHT_COLUMN}}{wins}")
    return lines


def _row(number: int, left: str, right: str) -> str:
    """One numbered move line: the right cell in its column, always two blanks or more after the left one."""
    if not right:
        return f"{number:3d}) {left}".rstrip()
    width = max(LEFT_WIDTH + 1, len(left) + 2)
    return f"{number:3d}) {left:<{width}}{right}"


def rules_comments(rules: Mapping[str, Any]) -> list[str]:
    """XG-style comment lines naming a money session's rules (gnubg 1.07 skips them; see the module docstring)."""
    on = {True: '"On"', False: '"Off"'}
    return [
        f"; [Jacoby {on[bool(rules.get('jacoby', False))]}]",
        f"; [Beaver {on[bool(rules.get('beavers', False))]}]",
        f'; [CubeLimit "{int(rules.get("max_cube", MAX_CUBE))}"]',
    ]


def session_text(
    games: Sequence[MatGame],
    players: tuple[str, str],
    rules: Mapping[str, Any] | None = None,
    *,
    match_length: int = 0,
) -> str:
    """The .mat text of ``games`` between ``players`` (A, B), A on the left in every game: a money session, or with
    ``match_length`` the games of one match (the points a game brings beyond the length count for nothing).

    ``rules`` is a tournament's rules dict (``jacoby``, ``beavers``, ``max_cube``); missing keys mean off / 4096.
    """
    rules = rules or {}
    max_cube = int(rules.get("max_cube", MAX_CUBE))
    names = (mat_name(players[0]), mat_name(players[1]))
    lines = [*rules_comments(rules), "", f" {match_length} point match", ""]
    scores = [0, 0]  # points won so far by A and by B
    for number, game in enumerate(games, start=1):
        left = f"{names[0]} : {scores[0]}"
        lines += [f" Game {number}", f" {left:<{SCORE_WIDTH}} {names[1]} : {scores[1]}"]
        lines += game_lines(game.events, game.winner, game.points, left_seat=game.seat_of_a, max_cube=max_cube)
        lines.append("")
        won = scores[game.winner ^ game.seat_of_a] + game.points
        scores[game.winner ^ game.seat_of_a] = min(won, match_length) if match_length else won
    return "\n".join(lines) + "\n"


def block_games(block: BlockResult, first_game: int, count: int = 2) -> list[MatGame]:
    """Games ``first_game .. first_game + count - 1`` of a recorded block."""
    assert block.records is not None
    return [
        MatGame(block.records[j], int(block.seat_of_a[j]), int(block.winner[j]), int(abs(block.points_seat0[j])))
        for j in range(first_game, first_game + count)
    ]


def pair_text(result: TournamentResult, block: BlockResult, first_game: int) -> str:
    """The .mat text of the pair whose first game is ``first_game`` in ``block`` (a session of two games)."""
    return session_text(block_games(block, first_game), (result.player_a, result.player_b), result.rules)


def pair_files(result: TournamentResult, blocks: Sequence[BlockResult]) -> Iterator[tuple[str, str]]:
    """(file name, .mat text) of each mirrored pair of a money tournament, in order."""
    for block in blocks:
        for j in range(0, block.games, 2):
            yield f"pair_{block.first_pair + j // 2:06d}.mat", pair_text(result, block, j)


def match_files(result: TournamentResult, blocks: Sequence[MatchBlockResult]) -> Iterator[tuple[str, str]]:
    """(file name, .mat text) of each match of a match tournament, in order (match ``2 pair`` and ``2 pair + 1``)."""
    assert result.match_length is not None
    for block in blocks:
        assert block.records is not None
        for m, games in enumerate(block.records):
            seat_of_a = int(block.seat_of_a[m])
            text = session_text(
                [MatGame.from_saved(game | {"seat_of_a": seat_of_a}) for game in games],
                (result.player_a, result.player_b),
                result.rules,
                match_length=result.match_length,
            )
            yield f"match_{2 * block.first_pair + m:06d}.mat", text


def write_mat_files(
    folder: Path, result: TournamentResult, blocks: Sequence[BlockResult | MatchBlockResult], progress: bool = False
) -> list[Path]:
    """Write one ``.mat`` file per pair of money games, or per match, into ``folder`` (created; filled atomically
    via a temporary folder). Returns the paths of the files written; ``progress`` shows a bar on stderr."""
    files: Iterable[tuple[str, str]]
    if result.match_length is None:
        money = [b for b in blocks if isinstance(b, BlockResult)]
        files, total = pair_files(result, money), sum(b.games // 2 for b in money)
    else:
        matches = [b for b in blocks if isinstance(b, MatchBlockResult)]
        files, total = match_files(result, matches), sum(b.matches for b in matches)
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}.", suffix=".tmp"))
    bar = tqdm(total=total, unit="file", desc=".mat files", disable=not progress, file=sys.stderr)
    try:
        written = []
        for name, text in files:
            (staging / name).write_text(text)
            written.append(folder / name)
            bar.update()
        folder.mkdir(exist_ok=True)
        for path in staging.iterdir():
            os.replace(path, folder / path.name)
        return written
    finally:
        bar.close()
        shutil.rmtree(staging, ignore_errors=True)
