"""Errors of the engine; every one subclasses ValueError and names the bad input."""

from __future__ import annotations


class EngineError(ValueError):
    """Base class of every bad-input error raised by :mod:`engine`."""


class InvalidPositionId(EngineError):
    """A gnubg position ID or key that does not describe a legal position."""


class InvalidMatchId(EngineError):
    """A gnubg match ID or key that cannot be decoded."""


class InvalidPosition(EngineError):
    """A board array that breaks the rules (too many checkers, both sides on a point, ...)."""


class IllegalMove(EngineError):
    """A move string that cannot be parsed, or describes a play the rules do not allow."""


class InvalidFibsBoard(EngineError):
    """A FIBS ``board:`` string that cannot be parsed."""
