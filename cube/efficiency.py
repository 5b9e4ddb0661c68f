"""Cube efficiency x by position class, as GNU Backgammon sets it (seed 001, "The cube efficiency").

gnubg's 0-ply cubeful equity mixes the dead and the fully live cube, ``(1 - x) dead + x live``,
with Janowski's cube-life index x taken from the class of the position:

========================  ============================================================
contact, crashed          0.68
race                      linear in the pips of the side on roll: 0.6 at 40 pips, 0.7 at
                          120 (``0.00125 pips + 0.55``), clipped to [0.6, 0.7]
one-sided bearoff         0.6
two-sided bearoff         money play needs none (the database holds cubeful equities); in
                          match play gnubg takes the x that makes Janowski's money formula
                          give the database's cubeful money equity (:func:`effective_cube_life`),
                          clipped to [0, 0.6]
finished game             0 (nothing left to double)
========================  ============================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from cube.errors import CubeInputError, check_cube_life

__all__ = ["DEFAULT_CUBE_LIFE", "NET_CLASSES", "CubeEfficiency", "PositionClass", "effective_cube_life"]

#: gnubg's cube life in contact (and crashed) positions: the Janowski x used wherever no other is given.
DEFAULT_CUBE_LIFE = 0.68

#: Below this gap between the live and the dead money equity the effective x is not solved for.
EFFECTIVE_X_MIN_GAP = 1e-4


class PositionClass(StrEnum):
    """gnubg's position classes: they set the cube efficiency, route the phase nets and group the reports."""

    OVER = "over"
    BEAROFF_TWO_SIDED = "bearoff two-sided"
    BEAROFF_ONE_SIDED = "bearoff one-sided"
    RACE = "race"
    CRASHED = "crashed"
    CONTACT = "contact"

    @property
    def gnubg_code(self) -> int:
        """gnubg 1.07's ``positionclass`` code (``gnubg.classifypos``), as data files store the class."""
        return _GNUBG_CODES[self]

    @property
    def gnubg_name(self) -> str:
        """The short name the gnubg fixture generators write (``bearoff1``, ``bearoff2``, ``contact``...)."""
        return _GNUBG_NAMES[self]

    @classmethod
    def from_gnubg_code(cls, code: int) -> PositionClass:
        """The class of a gnubg ``positionclass`` code; ValueError for the classes gnubg has and we do not."""
        for kind, value in _GNUBG_CODES.items():
            if value == int(code):
                return kind
        raise ValueError(f"gnubg position class code {code!r} is not one of {sorted(_GNUBG_CODES.values())}")

    @classmethod
    def from_gnubg_name(cls, name: str) -> PositionClass:
        """The class of a fixture's short name (see :attr:`gnubg_name`)."""
        for kind, value in _GNUBG_NAMES.items():
            if value == name:
                return kind
        raise ValueError(f"gnubg position class {name!r} is not one of {sorted(_GNUBG_NAMES.values())}")


_GNUBG_CODES = {
    PositionClass.OVER: 0,
    PositionClass.BEAROFF_TWO_SIDED: 4,
    PositionClass.BEAROFF_ONE_SIDED: 6,
    PositionClass.RACE: 8,
    PositionClass.CRASHED: 9,
    PositionClass.CONTACT: 10,
}
_GNUBG_NAMES = {
    PositionClass.OVER: "over",
    PositionClass.BEAROFF_TWO_SIDED: "bearoff2",
    PositionClass.BEAROFF_ONE_SIDED: "bearoff1",
    PositionClass.RACE: "race",
    PositionClass.CRASHED: "crashed",
    PositionClass.CONTACT: "contact",
}
#: The classes the phase nets judge (the bear-offs have databases), in gnubg's report order.
NET_CLASSES = (PositionClass.CONTACT, PositionClass.CRASHED, PositionClass.RACE)


@dataclass(frozen=True)
class CubeEfficiency:
    """gnubg's cube-efficiency settings (its defaults); :meth:`x` gives the index for a position."""

    contact: float = DEFAULT_CUBE_LIFE
    crashed: float = DEFAULT_CUBE_LIFE
    bearoff_one_sided: float = 0.6
    #: Match play only: the cap of the effective x of two-sided bearoffs.
    bearoff_two_sided: float = 0.6
    race_factor: float = 0.00125
    race_coefficient: float = 0.55
    race_min: float = 0.6
    race_max: float = 0.7

    def __post_init__(self) -> None:
        for name in ("contact", "crashed", "bearoff_one_sided", "bearoff_two_sided", "race_min", "race_max"):
            check_cube_life(getattr(self, name), name)
        if self.race_min > self.race_max:
            raise CubeInputError(f"race_min {self.race_min} is above race_max {self.race_max}")

    def x(self, position_class: PositionClass | str, pips: int | None = None) -> float:
        """The cube-life index for a position of this class; races need the side on roll's ``pips``.

        For a two-sided bearoff this is only the cap; :func:`effective_cube_life` gives gnubg's value.
        """
        kind = PositionClass(position_class)
        if kind is PositionClass.OVER:
            return 0.0
        if kind is PositionClass.RACE:
            if pips is None or pips < 0:
                raise CubeInputError(f"a race needs the side on roll's pip count, got {pips!r}")
            return min(max(self.race_factor * pips + self.race_coefficient, self.race_min), self.race_max)
        return {
            PositionClass.CONTACT: self.contact,
            PositionClass.CRASHED: self.crashed,
            PositionClass.BEAROFF_ONE_SIDED: self.bearoff_one_sided,
            PositionClass.BEAROFF_TWO_SIDED: self.bearoff_two_sided,
        }[kind]


def effective_cube_life(dead_money: float, live_money: float, exact_money: float, x_max: float) -> float:
    """gnubg's x for a two-sided bearoff in match play, from money equities of one cube position.

    ``dead_money``: the cubeless money equity; ``live_money``: Janowski's fully live cubeful
    equity; ``exact_money``: the database's cubeful money equity. Returns the x with
    ``dead + x (live - dead) = exact``, clipped to [0, ``x_max``] (``x_max`` itself when live and
    dead are too close to tell).
    """
    gap = live_money - dead_money
    if abs(gap) <= EFFECTIVE_X_MIN_GAP:
        return x_max
    return min(max((exact_money - dead_money) / gap, 0.0), x_max)
