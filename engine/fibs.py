"""FIBS ``board:`` strings (the CLIP format GNU Backgammon's external-player mode speaks).

53 colon-separated fields: ``board``, the player's and the opponent's names, match length,
both scores, 26 board counts (positive = colour O = 1, negative = X = -1; indices 0 and 25 are
bars), turn, the player's two dice, the opponent's two dice, cube, may-double flags for both,
was-doubled, colour, direction, home, bar, borne off and on bar for both, can-move,
forced-move, did-Crawford and redoubles.

How GNU Backgammon 1.07 reads a board in its ``external`` mode (checked against the program,
``tests/fixtures/gnubg_fibs_external.json``):

- The side whose colour is ``turn`` is on roll; its checkers are those with that sign. Points
  run from index 1 to 24 for a side with direction -1 (its point ``p`` is index ``p``), and the
  other way for direction +1 (index ``25 - p``). A side's bar is index 25 for direction -1 and
  index 0 for direction +1, so the opponent's bar is the player's ``home`` index.
- The home, bar, borne-off, on-bar, can-move and forced-move fields are ignored; checkers on
  the bar are read from indices 0 and 25 only.
- Cube owner: whoever alone may double; both may double means centred. Neither may double
  reads as a double just offered (gnubg then answers take/drop/beaver, never a move).
- Crawford: when either side is 1-away, the game is the Crawford game unless the did-Crawford
  field (gnubg: post-Crawford) or the redoubles field (gnubg: non-Crawford) is non-zero.
- Match length 9999 (FIBS's unlimited) and 0 mean a money game; a score at or above the match
  length is refused; a match longer than 64 points (gnubg's longest) is read as a 64-point
  match at the same away scores (a side more than 64 away at 64-away).
- A pending double (was-doubled 1) is written as FIBS sends it: the board of the side being
  doubled, with the doubler's colour in ``turn``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np

from engine.errors import IllegalMove, InvalidFibsBoard, InvalidMoveText, NotSupported
from engine.match import JACOBY_OFF_BIT, MAX_MATCH_LENGTH, MatchState
from engine.notation import OFF, parse_point, replay_hops
from engine.position import Position

N_FIELDS = 53
MONEY = 9999  # FIBS's match length for an unlimited (money) session

# Words GNU Backgammon's external mode answers to a cube question (dice 0 0 or a pending double).
EXTERNAL_CUBE_REPLIES = frozenset({"double", "roll", "take", "drop", "beaver"})

_NAME_RE = re.compile(r"^[^:\s]+$")


@dataclass(frozen=True, slots=True)
class FibsBoard:
    """A parsed FIBS board; ``board`` holds the 26 raw signed counts in FIBS order."""

    player: str
    opponent: str
    match_length: int
    player_score: int
    opponent_score: int
    board: tuple[int, ...]
    turn: int
    player_dice: tuple[int, int]
    opponent_dice: tuple[int, int]
    cube: int
    player_may_double: bool
    opponent_may_double: bool
    was_doubled: bool
    color: int
    direction: int
    home: int
    bar: int
    player_off: int
    opponent_off: int
    player_on_bar: int
    opponent_on_bar: int
    can_move: int
    forced_move: int
    did_crawford: bool
    redoubles: int

    @classmethod
    def parse(cls, text: str) -> FibsBoard:
        """Read a ``board:...`` line; raises InvalidFibsBoard naming it."""
        if not isinstance(text, str):
            raise InvalidFibsBoard(f"FIBS board {text!r} is not a string")
        parts = text.strip().split(":")
        if len(parts) != N_FIELDS or parts[0] != "board":
            raise InvalidFibsBoard(
                f"FIBS board {text!r} must be 'board:' and {N_FIELDS - 1} fields, got {len(parts)} fields"
            )
        try:
            nums = [int(x) for x in parts[3:]]
        except ValueError as exc:
            raise InvalidFibsBoard(f"FIBS board {text!r} has a non-integer field: {exc}") from None
        board = tuple(nums[3:29])
        rest = nums[29:]
        fb = cls(
            player=parts[1],
            opponent=parts[2],
            match_length=nums[0],
            player_score=nums[1],
            opponent_score=nums[2],
            board=board,
            turn=rest[0],
            player_dice=(rest[1], rest[2]),
            opponent_dice=(rest[3], rest[4]),
            cube=rest[5],
            player_may_double=bool(rest[6]),
            opponent_may_double=bool(rest[7]),
            was_doubled=bool(rest[8]),
            color=rest[9],
            direction=rest[10],
            home=rest[11],
            bar=rest[12],
            player_off=rest[13],
            opponent_off=rest[14],
            player_on_bar=rest[15],
            opponent_on_bar=rest[16],
            can_move=rest[17],
            forced_move=rest[18],
            did_crawford=bool(rest[19]),
            redoubles=rest[20],
        )
        fb._check(text)
        return fb

    def _check(self, text: str) -> None:
        """Raise InvalidFibsBoard naming ``text`` when a field is out of range."""
        if self.color not in (-1, 1) or self.direction not in (-1, 1):
            raise InvalidFibsBoard(f"FIBS board {text!r}: colour and direction must be -1 or 1")
        if self.turn not in (-1, 0, 1):
            raise InvalidFibsBoard(f"FIBS board {text!r}: turn must be -1, 0 or 1")
        for sign, name in ((self.color, "player"), (-self.color, "opponent")):
            total = sum(abs(v) for v in self.board if v * sign > 0)
            if total > 15:
                raise InvalidFibsBoard(f"FIBS board {text!r} gives the {name} {total} checkers")
        for d in self.player_dice + self.opponent_dice:
            if not 0 <= d <= 6:
                raise InvalidFibsBoard(f"FIBS board {text!r} has a die {d} outside 0-6")
        length = 0 if self.match_length in (0, MONEY) else self.match_length
        if length < 0 or min(self.player_score, self.opponent_score) < 0:
            raise InvalidFibsBoard(f"FIBS board {text!r}: a match length or score below 0")
        if length and max(self.player_score, self.opponent_score) >= length:
            raise InvalidFibsBoard(
                f"FIBS board {text!r}: score {self.player_score}-{self.opponent_score} is not below the match "
                f"length {length}"
            )

    def __str__(self) -> str:
        """The ``board:...`` line, fields in FIBS order."""
        values: list[str] = ["board"]
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, tuple):
                values.extend(str(int(x)) for x in v)
            elif isinstance(v, bool):
                values.append(str(int(v)))
            else:
                values.append(str(v))
        return ":".join(values)

    def _point_index(self, point: int) -> int:
        """FIBS index of the player's point ``point`` (1..24, own view)."""
        return point if self.direction == -1 else 25 - point

    def position(self) -> Position:
        """The position seen from the side whose turn it is (the player when ``turn`` is 0).

        Read as GNU Backgammon reads it: bar checkers come from board indices 0 and 25 (the
        player's bar is 25 for direction -1, else 0), not from the on-bar fields.
        """
        arr = np.zeros(26, np.int64)
        for p in range(1, 25):
            arr[p] = self.board[self._point_index(p)] * self.color
        own_bar, opp_bar = (25, 0) if self.direction == -1 else (0, 25)
        arr[25] = abs(self.board[own_bar])
        arr[0] = -abs(self.board[opp_bar])
        try:
            seen = Position.from_board(arr)
        except ValueError as exc:
            raise InvalidFibsBoard(f"FIBS board {str(self)!r} is not a legal position: {exc}") from None
        return seen.flip() if self.turn == -self.color else seen

    def match_state(self, jacoby: bool = True) -> MatchState:
        """The match state GNU Backgammon 1.07 reads from this board, its side on roll being player 1 (X).

        As gnubg's external mode shows it (``set debug on``): the side whose colour is ``turn`` is
        player 1 with its score second, the dice high first, the cube owned by whoever alone may
        double. ``jacoby`` (money play) is not on the board. The state may be one no game reaches
        (see :meth:`MatchState.check_playable`), as gnubg reads those too. Raises NotSupported for a
        board that gnubg reads as a pending double (was-doubled set, or neither side may double).
        """
        if self.was_doubled or not (self.player_may_double or self.opponent_may_double):
            raise NotSupported(f"FIBS board {str(self)!r} holds a pending double, which has no position to play")
        players_turn = self.turn != -self.color
        own_score, other_score = self.player_score, self.opponent_score
        if not players_turn:
            own_score, other_score = other_score, own_score
        length = 0 if self.match_length in (0, MONEY) else self.match_length
        if length > MAX_MATCH_LENGTH:  # as gnubg: the longest match it plays, at the same away scores
            own_score, other_score = (max(0, s - (length - MAX_MATCH_LENGTH)) for s in (own_score, other_score))
            length = MAX_MATCH_LENGTH
        one_away = length > 0 and length - 1 in (own_score, other_score)
        if self.player_may_double == self.opponent_may_double:
            owner = None
        else:
            owner = 1 if self.player_may_double == players_turn else 0
        dice = self.player_dice if players_turn else self.opponent_dice
        try:
            return MatchState(
                cube=self.cube,
                cube_owner=owner,
                on_roll=1,
                turn=1,
                crawford=one_away and not self.did_crawford and self.redoubles == 0,
                dice=(max(dice), min(dice)),
                match_length=length,
                score=(other_score, own_score),
                extra_bits=0 if jacoby or length else JACOBY_OFF_BIT,
            )
        except ValueError as exc:
            raise InvalidFibsBoard(f"FIBS board {str(self)!r}: {exc}") from None

    @classmethod
    def from_position(
        cls,
        position: Position,
        *,
        player: str = "You",
        opponent: str = "Opponent",
        dice: tuple[int, int] = (0, 0),
        cube: int = 1,
        match_length: int = MONEY,
        score: tuple[int, int] = (0, 0),
        color: int = -1,
        direction: int = -1,
        player_may_double: bool = True,
        opponent_may_double: bool = True,
        crawford: bool = False,
        doubled: bool = False,
    ) -> FibsBoard:
        """A board for the side on roll in ``position`` (own view), or for its opponent when ``doubled``.

        ``player``, ``score[0]``, ``player_may_double``, ``color`` and ``direction`` belong to the
        side the board is for (FIBS's "you"): normally the side on roll, which then has ``dice``
        (0 0 asks whether to double). With ``doubled`` the side on roll has just doubled and the
        board is for the side being doubled, as FIBS sends it (turn = the doubler's colour,
        was-doubled 1, no dice). ``cube`` is the value before any pending double. In match play
        with a side 1-away, ``crawford`` marks the Crawford game; otherwise the did-Crawford
        field is set so GNU Backgammon does not take a post-Crawford game for the Crawford one.
        Raises InvalidFibsBoard for a context the format (or gnubg) cannot carry.
        """
        _check_context(player, opponent, dice, cube, match_length, score, color, direction, crawford, doubled)
        if not doubled and not player_may_double and not opponent_may_double:
            raise InvalidFibsBoard(
                "neither side may double: GNU Backgammon reads that as a double just offered "
                "(mark the Crawford game with crawford=True instead)"
            )
        dice = (int(dice[0]), int(dice[1]))
        score = (int(score[0]), int(score[1]))
        mine = position.flip() if doubled else position  # the board's owner's view
        b = mine.array
        raw = [0] * 26
        home, bar = (0, 25) if direction == -1 else (25, 0)
        for p in range(1, 25):
            raw[p if direction == -1 else 25 - p] = int(b[p]) * color
        raw[bar] = int(b[25]) * color
        raw[home] = int(b[0]) * color  # the opponent's bar is at the player's home end
        own_off, opp_off = mine.off
        one_away = match_length not in (0, MONEY) and match_length - 1 in score
        can_move = 0
        if dice != (0, 0) and not doubled:
            can_move = max(len(move.hops) for move, _ in position.plays(dice))
        return cls(
            player=player,
            opponent=opponent,
            match_length=match_length,
            player_score=score[0],
            opponent_score=score[1],
            board=tuple(raw),
            turn=-color if doubled else color,
            player_dice=dice,
            opponent_dice=(0, 0),
            cube=cube,
            player_may_double=player_may_double,
            opponent_may_double=opponent_may_double,
            was_doubled=doubled,
            color=color,
            direction=direction,
            home=home,
            bar=bar,
            player_off=own_off,
            opponent_off=opp_off,
            player_on_bar=int(b[25]),
            opponent_on_bar=int(-b[0]),
            can_move=can_move,
            forced_move=0,
            did_crawford=one_away and not crawford,
            redoubles=0,
        )


def _check_context(
    player: str,
    opponent: str,
    dice: tuple[int, int],
    cube: int,
    match_length: int,
    score: tuple[int, int],
    color: int,
    direction: int,
    crawford: bool,
    doubled: bool,
) -> None:
    """Raise InvalidFibsBoard naming the first argument of ``from_position`` a FIBS board cannot carry."""
    for name in (player, opponent):
        if not isinstance(name, str) or not _NAME_RE.match(name):
            raise InvalidFibsBoard(f"FIBS name {name!r} must be non-empty, without ':' or whitespace")
    if color not in (-1, 1) or direction not in (-1, 1):
        raise InvalidFibsBoard(f"colour {color} and direction {direction} must each be -1 or 1")
    if len(dice) != 2 or not (tuple(dice) == (0, 0) or all(1 <= d <= 6 for d in dice)):
        raise InvalidFibsBoard(f"dice {dice!r} must be (0, 0) or two dice 1-6")
    if cube < 1 or cube & (cube - 1):
        raise InvalidFibsBoard(f"cube {cube} must be a power of two")
    if match_length < 0 or min(score) < 0:
        raise InvalidFibsBoard(f"match length {match_length} and score {score} must not be negative")
    match_play = match_length not in (0, MONEY)
    if match_play and max(score) >= match_length:
        raise InvalidFibsBoard(f"score {score} must stay below the match length {match_length}")
    if crawford and not (match_play and match_length - 1 in score):
        raise InvalidFibsBoard(f"crawford needs a side 1-away in match play, got {score} to {match_length}")
    if doubled and tuple(dice) != (0, 0):
        raise InvalidFibsBoard(f"a board with a pending double has no dice, got {dice!r}")


_HOP_TOKEN_RE = re.compile(r"^(?:bar|off|\d{1,2})\*?(?:[/-](?:bar|off|\d{1,2})\*?)+(?:\((\d)\))?$", re.IGNORECASE)


def _external_hops(text: str) -> tuple[list[tuple[int, int]], list[bool]]:
    """Single-checker hops of a reply and whether each is marked as a hit; raises IllegalMove."""
    tokens = text.replace(",", " ").split()
    if tokens and tokens[0].lower() == "move":
        tokens = tokens[1:]
    hops: list[tuple[int, int]] = []
    marks: list[bool] = []
    for token in tokens:
        match = _HOP_TOKEN_RE.match(token)
        if not match:
            raise InvalidMoveText(f"gnubg reply {text!r}: cannot read {token!r} (expected e.g. 24/18, 25/22*, 6/0)")
        repeat = int(match.group(1)) if match.group(1) else 1
        parts = re.split(r"[/-]", token.split("(")[0])
        points = [parse_point(p.rstrip("*"), text, "gnubg reply") for p in parts]
        hit_marks = [p.endswith("*") for p in parts]
        for _ in range(repeat):
            for k in range(1, len(points)):
                if points[k] >= points[k - 1]:
                    raise InvalidMoveText(f"gnubg reply {text!r}: {token!r} does not move toward home")
                hops.append((points[k - 1], points[k]))
                marks.append(hit_marks[k])
    return hops, marks


def _dice_cover(hops: Sequence[tuple[int, int]], dice: tuple[int, int]) -> bool:
    """True when each hop uses its own die: exactly, or a larger die for a bear-off."""
    left = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)
    for src, dst in sorted(hops, key=lambda h: (h[1] == OFF, h[0] - h[1])):
        distance = src - dst
        if distance in left:
            left.remove(distance)
            continue
        larger = [d for d in left if d > distance]
        if dst != OFF or not larger:
            return False
        left.remove(min(larger))
    return True


def parse_external_reply(text: str, position: Position, dice: tuple[int, int]) -> Position:
    """The child of ``position`` (side on roll's view) that gnubg's external-mode reply plays; opponent's view.

    GNU Backgammon 1.07 answers a board with dice in its "plain" notation: one ``from/to`` per
    die used, separated by spaces, ``*`` after a hit, 25 for the bar and 0 for off, never chained
    or grouped (``8/7* 7/6 6/5 6/5``, ``25/23``, ``5/0 4/0``), often with a trailing space, and an
    empty line when no play is legal. Also read: FIBS-style ``move 24-18 13-11``, ``bar``/``off``,
    chains (``13/7*/5``) and repeats (``8/5(2)``). Each hop must use its own die (a larger one
    only to bear off), the hops are replayed in the order given (or, failing that, any order),
    hit marks must match what the replay hits, and the result must be a legal play of ``dice``.
    Raises IllegalMove saying why not.
    """
    hops, marks = _external_hops(text)
    plays = position.plays(dice)
    children = [child for _, child in plays]
    if not hops:
        if len(plays) == 1 and not plays[0][0].hops:
            return children[0]
        raise IllegalMove(f"gnubg reply {text!r} plays nothing but {position.id} has legal plays of {dice}")
    if len(hops) > (4 if dice[0] == dice[1] else 2) or not _dice_cover(hops, dice):
        raise IllegalMove(f"gnubg reply {text!r} does not fit the dice {dice[0]}-{dice[1]}")
    check_marks = any(marks)
    for order in itertools.permutations(range(len(hops))):
        try:
            after, hits = replay_hops(position.array, [hops[k] for k in order], strict_text=text)
        except IllegalMove:
            continue
        if check_marks and list(hits) != [marks[k] for k in order]:
            continue
        target = Position(-after[::-1])
        if target in children:
            return target
    raise IllegalMove(f"gnubg reply {text!r} with {dice[0]}-{dice[1]} is not a legal play in {position.id}")
