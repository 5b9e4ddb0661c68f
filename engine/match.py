"""GNU Backgammon match keys and IDs: cube, turn, dice, scores and game state of a match."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import IntEnum

from engine.errors import InvalidMatchId
from engine.ids import b64_decode_bits, b64_encode_bits

MATCH_KEY_BYTES = 9
MATCH_ID_LENGTH = 12


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
_CENTRED = 3


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
        return not (self.extra_bits & 1)

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
        except InvalidMatchId as exc:
            raise InvalidMatchId(f"match ID {label!r}: {exc}") from None

    @classmethod
    def from_id(cls, match_id: str) -> MatchState:
        """Decode a 12-character match ID (or ``POSITIONID:MATCHID``); raises InvalidMatchId."""
        text = match_id.rsplit(":", 1)[-1].strip() if isinstance(match_id, str) else match_id
        key = b64_decode_bits(text, MATCH_ID_LENGTH, MATCH_KEY_BYTES, "match ID", InvalidMatchId)
        return cls.from_key(key, shown=text)

    def with_(self, **changes: object) -> MatchState:
        """A copy with some fields changed (validated)."""
        return replace(self, **changes)  # type: ignore[arg-type]


def _validate(m: MatchState) -> None:
    """Raise InvalidMatchId when a field is outside what the match key can hold."""
    if m.cube < 1 or m.cube & (m.cube - 1) or m.cube > 1 << 15:
        raise InvalidMatchId(f"cube value {m.cube} is not a power of two from 1 to 32768")
    if m.cube_owner not in (None, 0, 1):
        raise InvalidMatchId(f"cube owner {m.cube_owner!r} must be None, 0 or 1")
    for name in ("on_roll", "turn"):
        if getattr(m, name) not in (0, 1):
            raise InvalidMatchId(f"{name} {getattr(m, name)!r} must be 0 or 1")
    if not 0 <= int(m.game_state) <= 4:
        raise InvalidMatchId(f"game state {m.game_state} is not 0-4")
    if not 0 <= m.resigned <= 3:
        raise InvalidMatchId(f"resignation {m.resigned} is not 0-3")
    d0, d1 = m.dice
    if not (0 <= d0 <= 6 and 0 <= d1 <= 6) or (d0 == 0) != (d1 == 0):
        raise InvalidMatchId(f"dice {m.dice} must be two values 1-6, or (0, 0) before rolling")
    if not 0 <= m.match_length < 1 << 15:
        raise InvalidMatchId(f"match length {m.match_length} is not 0-32767")
    if any(not 0 <= s < 1 << 15 for s in m.score):
        raise InvalidMatchId(f"score {m.score} is not two values 0-32767")
    if not 0 <= m.extra_bits < 1 << 6:
        raise InvalidMatchId(f"extra bits {m.extra_bits} do not fit in bits 66-71")
