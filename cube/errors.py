"""Input validation shared by the cube package.

Every bad-input error raised by :mod:`cube` is a :class:`CubeInputError`, a subclass of
:class:`ValueError` whose message names the offending value.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from cube.states import CubeState

FloatArray = NDArray[np.float64]

_EPS = 1e-9


class CubeInputError(ValueError):
    """A cube-theory input (probability, W, L, cube-life index, volatility...) is invalid."""


def as_float_array(value: ArrayLike, name: str) -> FloatArray:
    """Return ``value`` as a float64 array; raise :class:`CubeInputError` if it is not finite."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise CubeInputError(f"{name} must be numeric, got {value!r}") from exc
    finite = np.isfinite(arr)
    if not np.all(finite):  # the first offending value, not the repr of a whole array
        raise CubeInputError(f"{name} must be finite, got {_first_bad(arr, ~finite)!r}")
    return arr


def _first_bad(arr: FloatArray, bad: NDArray[np.bool_]) -> float:
    return float(arr[bad].flat[0]) if arr.ndim else float(arr)


def _check_unit_interval(value: ArrayLike, name: str, label: str) -> FloatArray:
    """Return ``value`` as an array clipped to [0, 1] after checking it lies there (to rounding)."""
    arr = as_float_array(value, name)
    bad = (arr < -_EPS) | (arr > 1.0 + _EPS)
    if np.any(bad):
        raise CubeInputError(f"{label} = {_first_bad(arr, bad)!r} is outside [0, 1]")
    return np.clip(arr, 0.0, 1.0)


def check_probability(value: ArrayLike, name: str = "P") -> FloatArray:
    """Return ``value`` as an array after checking every element lies in [0, 1]."""
    return _check_unit_interval(value, name, name)


def check_win_value(value: ArrayLike, name: str) -> FloatArray:
    """Return W or L as an array after checking 1 <= value <= 3 (single game .. backgammon)."""
    arr = as_float_array(value, name)
    bad = arr < 1.0 - _EPS
    if np.any(bad):
        raise CubeInputError(f"{name} = {_first_bad(arr, bad)!r} < 1 (a won game is worth >= 1)")
    bad = arr > 3.0 + _EPS
    if np.any(bad):
        raise CubeInputError(f"{name} = {_first_bad(arr, bad)!r} > 3 (a backgammon is worth 3)")
    return np.clip(arr, 1.0, 3.0)


def check_cube_life(value: ArrayLike, name: str = "x") -> FloatArray:
    """Return a Janowski cube-life index as an array after checking it lies in [0, 1]."""
    return _check_unit_interval(value, name, f"cube-life index {name}")


def check_volatility(value: ArrayLike, name: str = "alpha") -> FloatArray:
    """Return a jump volatility as an array after checking 0 < alpha < 0.5."""
    arr = as_float_array(value, name)
    bad = arr <= 0.0
    if np.any(bad):
        raise CubeInputError(f"jump volatility {name} = {_first_bad(arr, bad)!r} <= 0")
    bad = arr >= 0.5
    if np.any(bad):
        raise CubeInputError(f"jump volatility {name} = {_first_bad(arr, bad)!r} >= 0.5 (jumps must be small)")
    return arr


def check_choice(value: str, name: str, choices: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of ``choices``; raise :class:`CubeInputError` otherwise."""
    if value not in choices:
        raise CubeInputError(f"{name} = {value!r} is not one of {', '.join(choices)}")
    return value


def check_cube_state(value: CubeState | str, name: str = "cube_state") -> CubeState:
    """Return ``value`` as a :class:`CubeState`; raise :class:`CubeInputError` if it names none."""
    return CubeState(check_choice(value, name, tuple(CubeState)))
