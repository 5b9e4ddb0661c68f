"""GNU Backgammon match keys and IDs: cube, turn, dice, scores and game state of a match."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import IntEnum
from numbers import Integral

import numpy as np

from engine.errors import InvalidMatchId, InvalidMatchState, InvalidXgid
from engine.ids import b64_decode_bits, b64_encode_bits, case_note
from engine.xgid import DEFAULT_MAX_CUBE_EXPONENT, Xgid, XgidPlayer, looks_like_xgid, parse_xgid

MATCH_KEY_BYTES = 9
MATCH_ID_LENGTH = 12
# The largest cube this program plays with; the match key could hold 2**15.
MAX_CUBE = 1 << 12


class GameState(IntEnum):
    """Game state field of the match key."""

    NONE = 0
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4


# (name, first bit, width) of each documented field, LSB first as gnubg packs them.
_FIELDS: tuple[tuple[str, int, int], ...] = (
    ("cube_log", 0, 4),
    ("owner", 4, 2),
    ("on_roll", 6, 1),
    ("crawford", 7, 1),
    ("game_state", 8, 3),
    ("turn", 11, 1),
    ("doubled", 12, 1),
    ("resigned", 13, 2),
    ("die0", 15, 3),
    ("die1", 18, 3),
    ("match_length", 21, 15),
    ("score0", 36, 15),
    ("score1", 51, 15),
)
DOCUMENTED_BITS = 66
# Bit 66, the first extra bit: gnubg 1.07 sets it when the Jacoby rule is *not* in force.
JACOBY_OFF_BIT = 1
_CENTRED = 3
#: The longest match GNU Backgammon 1.07 plays (its MAXSCORE): it refuses a longer match ID or XGID and reads a
#: longer FIBS match as a 64-point one at the same away scores.
MAX_MATCH_LENGTH = 64


@dataclass(frozen=True, slots=True)
class MatchState:
    """Everything a gnubg match ID records; players are 0 and 1 as gnubg numbers them.

    ``cube_owner`` is None for a centred cube; ``dice`` is (0, 0) before rolling;
    ``match_length`` 0 means a money game; ``extra_bits`` keeps bits 66-71, which gnubg 1.07
    sets beyond the 66 documented ones (bit 66: the Jacoby rule is *not* in force).
    """

    cube: int = 1
    cube_owner: int | None = None
    on_roll: int = 0
    crawford: bool = False
    game_state: int = GameState.PLAYING
    turn: int = 0
    doubled: bool = False
    resigned: int = 0
    dice: tuple[int, int] = (0, 0)
    match_length: int = 0
    score: tuple[int, int] = field(default=(0, 0))
    extra_bits: int = 0

    def __post_init__(self) -> None:
        _validate(self)

    @property
    def jacoby(self) -> bool:
        """Whether gnubg marks the Jacoby rule as in force (bit 66 clear)."""
        return not (self.extra_bits & JACOBY_OFF_BIT)

    @property
    def key(self) -> bytes:
        """The 9-byte gnubg match key."""
        values = {
            "cube_log": self.cube.bit_length() - 1,
            "owner": _CENTRED if self.cube_owner is None else self.cube_owner,
            "on_roll": self.on_roll,
            "crawford": int(self.crawford),
            "game_state": int(self.game_state),
            "turn": self.turn,
            "doubled": int(self.doubled),
            "resigned": self.resigned,
            "die0": self.dice[0],
            "die1": self.dice[1],
            "match_length": self.match_length,
            "score0": self.score[0],
            "score1": self.score[1],
        }
        value = self.extra_bits << DOCUMENTED_BITS
        for name, start, _width in _FIELDS:
            value |= values[name] << start
        return value.to_bytes(MATCH_KEY_BYTES, "little")

    @property
    def id(self) -> str:
        """The 12-character gnubg match ID."""
        return b64_encode_bits(self.key, MATCH_ID_LENGTH)

    @classmethod
    def from_key(cls, key: bytes, shown: str | None = None) -> MatchState:
        """Decode a 9-byte match key; raises InvalidMatchId naming it."""
        if not isinstance(key, bytes | bytearray):
            raise InvalidMatchId(f"match key {key!r} is not bytes")
        label = shown if shown is not None else key.hex()
        if len(key) != MATCH_KEY_BYTES:
            raise InvalidMatchId(f"match key {label!r} has {len(key)} bytes, expected {MATCH_KEY_BYTES}")
        value = int.from_bytes(key, "little")
        f = {name: (value >> start) & ((1 << width) - 1) for name, start, width in _FIELDS}
        if f["owner"] == 2:
            raise InvalidMatchId(f"match ID {label!r} has cube owner bits 10 (neither player nor centred)")
        try:
            return cls(
                cube=1 << f["cube_log"],
                cube_owner=None if f["owner"] == _CENTRED else f["owner"],
                on_roll=f["on_roll"],
                crawford=bool(f["crawford"]),
                game_state=f["game_state"],
                turn=f["turn"],
                doubled=bool(f["doubled"]),
                resigned=f["resigned"],
                dice=(f["die0"], f["die1"]),
                match_length=f["match_length"],
                score=(f["score0"], f["score1"]),
                extra_bits=value >> DOCUMENTED_BITS,
            )
        except InvalidMatchState as exc:
            raise InvalidMatchId(f"match ID {label!r}: {exc}") from None

    @classmethod
    def from_id(cls, match_id: str) -> MatchState:
        """Decode a 12-character match ID (or ``POSITIONID:MATCHID``); raises InvalidMatchId."""
        text = match_id.rsplit(":", 1)[-1].strip() if isinstance(match_id, str) else match_id
        key = b64_decode_bits(text, MATCH_ID_LENGTH, MATCH_KEY_BYTES, "match ID", InvalidMatchId)
        try:
            return cls.from_key(key, shown=text)
        except InvalidMatchId as exc:
            raise InvalidMatchId(f"{exc}{case_note(text)}") from None

    @classmethod
    def from_xgid(cls, xgid: str | Xgid) -> MatchState:
        """gnubg's match state of an XGID (X is player 1, O player 0, as gnubg reads it); raises InvalidXgid.

        Beavers and the maximum cube are not part of a match state (:class:`engine.xgid.Xgid` keeps them).
        """
        x = parse_xgid(xgid) if isinstance(xgid, str) else xgid
        on_roll = x.turn.gnubg
        jacoby_bits = 0 if x.match_length == 0 and x.jacoby else JACOBY_OFF_BIT  # gnubg: matches are Jacoby-off
        try:
            return cls(
                cube=x.cube,
                cube_owner=None if x.cube_owner is None else x.cube_owner.gnubg,
                on_roll=on_roll,
                crawford=x.crawford,
                turn=1 - on_roll if x.doubled else on_roll,
                doubled=x.doubled,
                dice=x.dice,
                match_length=x.match_length,
                score=(x.score_o, x.score_x),
                extra_bits=jacoby_bits,
            )
        except InvalidMatchState as exc:
            shown = xgid.strip() if isinstance(xgid, str) else x.text
            raise InvalidXgid(f"XGID {shown!r}: {exc}") from None

    def xgid(
        self, board_on_roll: np.ndarray, *, beavers: bool = False, max_cube_exponent: int = DEFAULT_MAX_CUBE_EXPONENT
    ) -> Xgid:
        """The XGID fields of this state and ``board_on_roll`` (seen by ``on_roll``); raises InvalidMatchState if none.

        An XGID has no resignation, finished game or turn apart from the roller's (but for a double offered).
        """
        where = f"match state {self.id!r}"
        if self.game_state != GameState.PLAYING:
            raise InvalidMatchState(f"{where}: game state {GameState(self.game_state).name} has no XGID")
        if self.resigned:
            raise InvalidMatchState(f"{where}: an XGID cannot hold a pending resignation")
        if self.turn != (1 - self.on_roll if self.doubled else self.on_roll):
            raise InvalidMatchState(f"{where}: turn {self.turn} with player {self.on_roll} on roll has no XGID")
        money = self.match_length == 0
        return Xgid.from_board_on_roll(
            board_on_roll,
            XgidPlayer.of_gnubg(self.on_roll),
            cube_exponent=self.cube.bit_length() - 1,
            cube_owner=None if self.cube_owner is None else XgidPlayer.of_gnubg(self.cube_owner),
            dice=(max(self.dice), min(self.dice)),  # as XG writes them (and gnubg keeps them), the higher first
            doubled=self.doubled,
            score_x=self.score[1],
            score_o=self.score[0],
            crawford=self.crawford and not money,
            jacoby=money and self.jacoby,
            beavers=money and beavers,
            match_length=self.match_length,
            max_cube_exponent=max_cube_exponent,
        )

    def with_(self, **changes: object) -> MatchState:
        """A copy with some fields changed (validated)."""
        return replace(self, **changes)  # type: ignore[arg-type]

    def check_playable(self, label: str | None = None) -> MatchState:
        """Return self if a game could be going on in this state; raise InvalidMatchState naming the field.

        The match key can encode states that no game reaches (gnubg's ``set`` commands write
        them too, so the codec keeps them): scores at or past the match length, the Crawford
        flag with neither side 1-away, a cube no side could have doubled to, a double offered
        after the dice were rolled, a game over, dropped or resigned (or a resignation pending).
        Evaluating or playing such a state is refused.
        """
        try:
            return self._check_playable(label)
        except InvalidMatchState as exc:
            note = case_note(label) if label is not None else ""
            if not note:
                raise
            raise InvalidMatchState(f"{exc}{note}") from None

    def _check_playable(self, label: str | None) -> MatchState:
        """:meth:`check_playable` without the note on a mis-cased ID."""
        kind = "XGID" if label is not None and looks_like_xgid(label) else "match ID"
        where = f"{kind} {label!r}" if label is not None else f"match state {self.id!r}"
        n, (s0, s1) = self.match_length, self.score
        if self.cube > MAX_CUBE:
            raise InvalidMatchState(f"{where}: cube {self.cube} is above {MAX_CUBE}, the largest this program plays")
        if self.doubled and 2 * self.cube > MAX_CUBE:
            raise InvalidMatchState(f"{where}: a double of the cube {self.cube}, which is at its largest ({MAX_CUBE})")
        if self.doubled and self.dice != (0, 0):
            raise InvalidMatchState(f"{where}: dice {self.dice} are rolled while a double is pending")
        if self.doubled and self.cube_owner == 1 - self.on_roll:
            raise InvalidMatchState(f"{where}: cube owner {self.cube_owner} is not the player offering the double")
        if self.resigned or self.game_state not in (GameState.PLAYING, GameState.NONE):
            what = (
                "a resignation is pending"
                if self.resigned
                else f"the game is {GameState(self.game_state).name.lower()}"
            )
            raise InvalidMatchState(f"{where}: {what}, not being played")
        if n == 0:
            if self.crawford:
                raise InvalidMatchState(f"{where}: crawford flag set in a money game")
            return self
        if n > MAX_MATCH_LENGTH:
            raise InvalidMatchState(f"{where}: match length {n} is above {MAX_MATCH_LENGTH}, the longest gnubg plays")
        if max(s0, s1) >= n:
            raise InvalidMatchState(f"{where}: score {s0}-{s1} is not below the match length {n}")
        if self.crawford and n - 1 not in (s0, s1):
            raise InvalidMatchState(f"{where}: crawford flag set with neither side 1-away (score {s0}-{s1} to {n})")
        if self.crawford and s0 == s1 == n - 1 and n > 1:
            raise InvalidMatchState(
                f"{where}: crawford flag set at double match point ({s0}-{s1} to {n}): the Crawford game came before"
            )
        if self.crawford and (self.cube > 1 or self.doubled):
            raise InvalidMatchState(f"{where}: cube {self.cube} in the Crawford game, where no one may double")
        if self.cube > 1 and self.cube_owner is None:
            raise InvalidMatchState(f"{where}: centred cube {self.cube} in a match (only 1 can be centred)")
        if self.cube > 1 and self.cube_owner is not None and self.score[1 - self.cube_owner] + self.cube // 2 >= n:
            raise InvalidMatchState(
                f"{where}: cube {self.cube} owned by player {self.cube_owner}: player {1 - self.cube_owner} "
                f"at {self.score[1 - self.cube_owner]} of {n} could not have doubled to it"
            )
        if self.doubled and self.score[self.on_roll] + self.cube >= n:
            raise InvalidMatchState(
                f"{where}: player {self.on_roll} at {self.score[self.on_roll]} of {n} "
                f"cannot double a cube of {self.cube}"
            )
        return self


def _validate(m: MatchState) -> None:
    """Raise InvalidMatchState when a field is outside what the match key can hold."""
    numbers = (m.cube, m.on_roll, m.turn, m.game_state, m.resigned, m.match_length, m.extra_bits)
    pairs = (m.dice, m.score)

    def whole(v: object) -> bool:
        return isinstance(v, Integral) and not isinstance(v, bool)

    if (
        not all(whole(v) for v in numbers)
        or any(not isinstance(p, Sequence) or len(p) != 2 for p in pairs)
        or not all(whole(v) for p in pairs for v in p)
    ):
        raise InvalidMatchState(
            f"match state fields must be whole numbers, dice and score pairs of them: {m.cube=}, {m.on_roll=}, "
            f"{m.turn=}, {m.game_state=}, {m.resigned=}, {m.match_length=}, {m.extra_bits=}, {m.dice=}, {m.score=}"
        )
    if m.cube < 1 or m.cube & (m.cube - 1) or m.cube > 1 << 15:
        raise InvalidMatchState(f"cube value {m.cube} is not a power of two from 1 to 32768")
    if m.cube_owner not in (None, 0, 1):
        raise InvalidMatchState(f"cube owner {m.cube_owner!r} must be None, 0 or 1")
    for name in ("on_roll", "turn"):
        if getattr(m, name) not in (0, 1):
            raise InvalidMatchState(f"{name} {getattr(m, name)!r} must be 0 or 1")
    if not 0 <= int(m.game_state) <= 4:
        raise InvalidMatchState(f"game state {m.game_state} is not 0-4")
    if not 0 <= m.resigned <= 3:
        raise InvalidMatchState(f"resignation {m.resigned} is not 0-3")
    d0, d1 = m.dice
    if not (0 <= d0 <= 6 and 0 <= d1 <= 6) or (d0 == 0) != (d1 == 0):
        raise InvalidMatchState(f"dice {m.dice} must be two values 1-6, or (0, 0) before rolling")
    if not 0 <= m.match_length < 1 << 15:
        raise InvalidMatchState(f"match length {m.match_length} is not 0-32767")
    if any(not 0 <= s < 1 << 15 for s in m.score):
        raise InvalidMatchState(f"score {m.score} is not two values 0-32767")
    if not 0 <= m.extra_bits < 1 << 6:
        raise InvalidMatchState(f"extra bits {m.extra_bits} do not fit in bits 66-71")


#: The state a bare position ID (no match ID) stands for, as gnubg shows it: a money game, the cube centred at 1,
#: the Jacoby rule on, player 1 (X, whose view the position ID gives) on roll, no dice.
BARE_ID_STATE = MatchState(on_roll=1, turn=1)
