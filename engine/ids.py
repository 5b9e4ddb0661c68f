"""GNU Backgammon position keys/IDs and the base64 helpers shared with match IDs.

GNU Backgammon 1.07 writes the key with the side *not* on roll first, then the side on roll
(each: its points 1..24 from its own view, then its bar; a run of 1 bits per checker and a 0
separator). The manual's prose says the reverse; the program is the authority.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Sequence

import numpy as np

from engine.errors import InvalidPositionId

POSITION_KEY_BYTES = 10
POSITION_ID_LENGTH = 14
_BASE64_RE = re.compile(r"^[A-Za-z0-9+/]*$")


def b64_decode_bits(text: str, n_chars: int, n_bytes: int, what: str, error: type[ValueError]) -> bytes:
    """Decode an unpadded gnubg base64 string of ``n_chars`` into ``n_bytes``; raise ``error``."""
    if not isinstance(text, str):
        raise error(f"{what} must be a string, got {type(text).__name__}: {text!r}")
    if len(text) != n_chars:
        raise error(f"{what} {text!r} has {len(text)} characters, expected {n_chars}")
    if not _BASE64_RE.match(text):
        raise error(f"{what} {text!r} contains characters outside the base64 alphabet")
    padded = text + "=" * (-len(text) % 4)
    try:
        raw = base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError) as exc:  # pragma: no cover - regex guards this
        raise error(f"{what} {text!r} is not valid base64") from exc
    raw = raw[:n_bytes]
    if b64_encode_bits(raw, n_chars) != text:
        raise error(f"{what} {text!r} has non-zero padding bits, so no program wrote it{case_note(text)}")
    return raw


def case_note(text: str) -> str:
    """For an ID that does not decode: a note that IDs are case-sensitive when it has no capital letter."""
    letters = [c for c in text if c.isalpha()]
    if letters and all(c.islower() for c in letters):
        return "; IDs are case-sensitive and this one has no capital letters: copy it exactly as printed"
    return ""


def b64_encode_bits(raw: bytes, n_chars: int) -> str:
    """Encode bytes as gnubg does: standard base64 without the ``=`` padding."""
    return base64.b64encode(raw).decode("ascii")[:n_chars]


def side_counts(board: np.ndarray) -> tuple[list[int], list[int]]:
    """Checker counts (points 1..24 then bar, each side's own view): (not on roll, on roll)."""
    theirs = [max(0, -int(board[25 - p])) for p in range(1, 25)] + [-int(board[0])]
    mine = [max(0, int(board[p])) for p in range(1, 25)] + [int(board[25])]
    return theirs, mine


def key_from_board(board: np.ndarray) -> bytes:
    """The 10-byte gnubg position key of a 26-slot board (side on roll's view)."""
    theirs, mine = side_counts(board)
    value = 0
    pos = 0
    for count in theirs + mine:
        value |= ((1 << count) - 1) << pos
        pos += count + 1
    return value.to_bytes(POSITION_KEY_BYTES, "little")


def board_from_key(key: bytes, shown: str | None = None) -> np.ndarray:
    """Decode a 10-byte position key into a 26-slot board; raise InvalidPositionId if illegal."""
    if not isinstance(key, bytes | bytearray):
        raise InvalidPositionId(f"position key {key!r} is not bytes")
    label = shown if shown is not None else key.hex()
    what = "position ID" if shown is not None else "position key"
    if len(key) != POSITION_KEY_BYTES:
        raise InvalidPositionId(f"{what} {label!r} has {len(key)} bytes, expected 10")
    # The 80 bits, least significant first: runs of 1s (checkers) between 0s (separators).
    runs = format(int.from_bytes(key, "little"), "080b")[::-1].split("0")
    if len(runs) <= 50:
        raise InvalidPositionId(f"{what} {label!r} needs more than 80 bits (too many checkers)")
    if any(runs[50:]):
        raise InvalidPositionId(f"{what} {label!r} has checker bits after the 50th separator")
    counts = [len(run) for run in runs[:50]]
    theirs, mine = counts[:25], counts[25:]
    for side, name in ((theirs, "the side not on roll"), (mine, "the side on roll")):
        if sum(side) > 15:
            raise InvalidPositionId(f"{what} {label!r} gives {name} {sum(side)} checkers (at most 15)")
    if sum(theirs) == 0 and sum(mine) == 0:
        raise InvalidPositionId(f"{what} {label!r} has no checkers for either side (no game is in this position)")
    clash = board_from_side_counts(theirs, mine)
    if isinstance(clash, int):
        raise InvalidPositionId(f"{what} {label!r} puts both sides on point {clash} of the side on roll")
    return clash


def board_from_side_counts(theirs: Sequence[int], mine: Sequence[int]) -> np.ndarray | int:
    """26-slot board from per-side counts (points 1..24 then bar, each side's own view).

    Returns the point (side on roll's numbering) where both sides stand instead, if any.
    """
    board = np.zeros(26, np.int8)
    for p in range(1, 25):
        if mine[p - 1] and theirs[24 - p]:
            return p
        board[p] = mine[p - 1] - theirs[24 - p]
    board[25] = mine[24]
    board[0] = -theirs[24]
    return board


def position_id_from_board(board: np.ndarray) -> str:
    """The 14-character gnubg position ID of a board (side on roll's view)."""
    return b64_encode_bits(key_from_board(board), POSITION_ID_LENGTH)


def board_from_position_id(position_id: str) -> np.ndarray:
    """Decode a 14-character gnubg position ID; raise InvalidPositionId naming it if invalid."""
    text = position_id.strip() if isinstance(position_id, str) else position_id
    key = b64_decode_bits(text, POSITION_ID_LENGTH, POSITION_KEY_BYTES, "position ID", InvalidPositionId)
    try:
        return board_from_key(key, shown=text)
    except InvalidPositionId as exc:
        raise InvalidPositionId(f"{exc}{case_note(text)}") from None
