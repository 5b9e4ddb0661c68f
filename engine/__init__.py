"""Backgammon rules: positions from the side on roll, move generation, gnubg IDs, play."""

from engine.batch import children_batch, parse_id_pair
from engine.display import board_text
from engine.errors import (
    AmbiguousMove,
    IllegalMove,
    InvalidDice,
    InvalidFibsBoard,
    InvalidMatchId,
    InvalidMatchState,
    InvalidMoveText,
    InvalidPosition,
    InvalidPositionId,
    InvalidSpec,
    InvalidText,
    InvalidWeights,
    InvalidXgid,
    JumpgammonError,
    NotSupported,
    RunawayGame,
)
from engine.fibs import FibsBoard
from engine.game import Dice, result_multiplier, result_multipliers
from engine.match import GameState, MatchState
from engine.notation import Move
from engine.position import GamePhase, Position, check_dice, phase_of
from engine.xgid import Xgid, XgidPlayer, parse_xgid

__all__ = [
    "Dice",
    "AmbiguousMove",
    "InvalidDice",
    "InvalidMatchState",
    "InvalidMoveText",
    "InvalidSpec",
    "InvalidText",
    "InvalidWeights",
    "InvalidXgid",
    "JumpgammonError",
    "NotSupported",
    "RunawayGame",
    "FibsBoard",
    "GamePhase",
    "GameState",
    "IllegalMove",
    "InvalidFibsBoard",
    "InvalidMatchId",
    "InvalidPosition",
    "InvalidPositionId",
    "MatchState",
    "Move",
    "Position",
    "board_text",
    "check_dice",
    "children_batch",
    "parse_id_pair",
    "phase_of",
    "result_multiplier",
    "result_multipliers",
    "Xgid",
    "XgidPlayer",
    "parse_xgid",
]
