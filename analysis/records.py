"""Game records as files hold them, before any replay: who did what, in order, and where in the file.

Every reader (:mod:`analysis.matfile` for Jellyfish ``.mat``, :mod:`analysis.saved` for this
project's ``--save`` lines) turns its file into :class:`MatchRecord` values; :mod:`analysis.replay`
then plays them through the rules. Players are 0 and 1: the left and right columns of a ``.mat``
file (gnubg's X and O), player A and player B of a saved tournament.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from engine.errors import InvalidText
from engine.match import MAX_CUBE

__all__ = ["Action", "Event", "GameRecord", "InvalidRecord", "MatchRecord", "MoneyRules", "read_record_text"]


class InvalidRecord(InvalidText):
    """A game record that cannot be read or replayed; the message names the file, the line or game, and why."""


class PointsDisagree(InvalidRecord):
    """A game whose stated points (``Wins N points``) differ from the points its replay scores."""


def read_record_text(path: Path) -> str:
    """The text of a record file; raises InvalidRecord naming the file and the first byte that is not UTF-8."""
    try:
        return path.read_text(encoding="utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise InvalidRecord(f"{path.name}: not a text file (byte {exc.start} is not UTF-8)") from None


class Action(StrEnum):
    """What one event of a game record does."""

    ROLL = "roll"  # a roll and the play made with it
    DOUBLE = "double"
    TAKE = "take"
    PASS = "pass"
    BEAVER = "beaver"  # take and redouble at once, keeping the cube (money only)
    WIN = "win"  # a "Wins N points" line: the end of a game, or a resignation accepted when play was not over


@dataclass(frozen=True)
class Event:
    """One event: ``player`` (0 or 1) and its action, with the dice and the play or the cube value it names.

    A play is the text of the record (``move``, mover's numbering) or the resulting position ID
    (``child_id``, seen by the next side on roll); ``where`` locates the event in its file.
    """

    player: int
    action: Action
    where: str
    dice: tuple[int, int] | None = None
    move: str | None = None
    child_id: str | None = None
    cube: int | None = None
    points: int | None = None


@dataclass(frozen=True)
class MoneyRules:
    """A money session's rules: Jacoby, beavers, the largest cube."""

    jacoby: bool = False
    beavers: bool = False
    max_cube: int = MAX_CUBE
    jacoby_stated: bool = True  # False: the file did not say (a gnubg .mat), so the stated points may settle it


@dataclass(frozen=True)
class GameRecord:
    """One game: its number in the match (from 1), the score before it (players 0, 1), its events.

    ``crawford`` is None where the file does not say (the replay works it out from the scores).
    """

    number: int
    score: tuple[int, int]
    events: tuple[Event, ...]
    where: str
    crawford: bool | None = None


@dataclass(frozen=True)
class MatchRecord:
    """A match (``length`` points) or a money session (``length`` 0) between two named players."""

    source: Path
    names: tuple[str, str]
    length: int
    games: tuple[GameRecord, ...]
    rules: MoneyRules = MoneyRules()
    label: str = ""  # which match of a file holding several (a saved match tournament)

    @property
    def title(self) -> str:
        """``file`` or ``file, match 3``: how reports and errors name this match."""
        return self.source.name + (f", {self.label}" if self.label else "")
