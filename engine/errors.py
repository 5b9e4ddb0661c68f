"""The project's bad-input errors: one small hierarchy under ValueError, as python-chess has.

Every message names the input that was refused. The kinds:

- :class:`InvalidText`: a string that is not a move, ID, board or spec at all
  (:class:`InvalidPositionId` and its :class:`InvalidXgid`, :class:`InvalidMatchId`, :class:`InvalidFibsBoard`,
  :class:`InvalidMoveText`, :class:`InvalidSpec`);
- :class:`IllegalMove`: a well-formed move that is not legal in the position;
- :class:`AmbiguousMove`: a well-formed move that several legal plays fit;
- :class:`InvalidDice`: dice that are not two values 1-6;
- :class:`InvalidPosition`: a board that breaks the rules or that no game can reach;
- :class:`InvalidMatchState`: a cube, score or turn that GNU Backgammon would not produce;
- :class:`InvalidWeights`: a weights file that is not in the format or does not fit this code;
- :class:`RunawayGame`: a game that passed :data:`engine.game.MAX_PLIES` moves (a player that cannot finish);
- :class:`NotSupported`: a valid input this program does not handle yet (match play in rollouts).

The cube-theory package keeps its own :class:`cube.errors.CubeInputError` (also a ValueError)
so that it stays free of the engine's imports.
"""

from __future__ import annotations


class JumpgammonError(ValueError):
    """Base class of every bad-input error raised by the engine, the nets and the players."""


class InvalidText(JumpgammonError):
    """A string that cannot be read as what it should be (move, ID, board, spec)."""


class InvalidPositionId(InvalidText):
    """A gnubg position ID or key that does not describe a legal position."""


class InvalidXgid(InvalidPositionId):
    """An XG position string (XGID) that cannot be decoded, or whose fields no game can be in."""


class InvalidMatchId(InvalidText):
    """A gnubg match ID or key that cannot be decoded."""


class InvalidFibsBoard(InvalidText):
    """A FIBS ``board:`` string that cannot be parsed."""


class InvalidMoveText(InvalidText):
    """A move string that is not in gnubg notation (``24/18 13/11``, ``bar/22*``, ``6/off``)."""


class InvalidSpec(InvalidText):
    """A player, cube-strategy or option spec that names nothing this program knows."""


class IllegalMove(JumpgammonError):
    """A well-formed move that the rules do not allow in the position with the dice."""


class AmbiguousMove(JumpgammonError):
    """A well-formed move text that more than one legal play fits."""


class InvalidDice(JumpgammonError):
    """Dice that are not two integers 1-6."""


class InvalidPosition(JumpgammonError):
    """A board array that breaks the rules (too many checkers, both sides on a point, none left...)."""


class InvalidMatchState(JumpgammonError):
    """A match or cube state that GNU Backgammon would not produce (score past the length, ...)."""


class InvalidWeights(JumpgammonError):
    """A weights file that is not in this format, is damaged, or does not fit this code."""


class RunawayGame(JumpgammonError):
    """A game that passed :data:`engine.game.MAX_PLIES` moves: a player (a net) that cannot finish a game."""


class NotSupported(JumpgammonError):
    """A valid input that this program does not handle yet (in a rollout: a pending double, a score beyond the MET)."""


def raised_by_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` is a KeyboardInterrupt or was raised while handling one (its cause or context chain).

    numba, for one, wraps an interrupt that lands in its dispatcher as ``SystemError(... returned a
    result with an exception set)`` caused by the KeyboardInterrupt.
    """
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        if isinstance(link, KeyboardInterrupt):
            return True
        seen.add(id(link))
        link = link.__cause__ or link.__context__
    return False
