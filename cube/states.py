"""Typed cube states, cube actions and responses to a double (money game).

They are :class:`enum.StrEnum` members, so each equals (and hashes like) its string value:
numpy string arrays, dict keys and JSON output read exactly as the plain strings did.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["CubeAction", "CubeResponse", "CubeState"]


class CubeState(StrEnum):
    """Who holds the cube, from the view of the side on roll."""

    #: Nobody owns the cube; either side may double.
    CENTERED = "centered"
    #: The side on roll owns the cube and may redouble.
    OWNED = "owned"
    #: The opponent owns the cube; the side on roll cannot double.
    UNAVAILABLE = "unavailable"

    @property
    def opponent(self) -> CubeState:
        """The same cube seen by the other side (owned and unavailable swap; centred stays)."""
        swapped = {CubeState.OWNED: CubeState.UNAVAILABLE, CubeState.UNAVAILABLE: CubeState.OWNED}
        return swapped.get(self, CubeState.CENTERED)


class CubeAction(StrEnum):
    """The side on roll's cube action before rolling."""

    #: Play on without doubling.
    NO_DOUBLE = "no double"
    #: Double (or redouble).
    DOUBLE = "double"
    #: Play on for the gammon: the opponent would pass, but playing on is worth more.
    TOO_GOOD = "too good"


class CubeResponse(StrEnum):
    """The opponent's answer to a double, from the view of the side being doubled."""

    #: Accept the doubled cube.
    TAKE = "take"
    #: Decline and concede the game at the current cube value.
    PASS = "pass"
    #: Accept and at once redouble, keeping the cube.
    BEAVER = "beaver"
