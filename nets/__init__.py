"""Neural evaluator: encoding, phase nets, bearoff databases, lookahead, jump volatility.

Nothing here imports torch; the torch nets for training are in :mod:`nets.model`.
"""

from engine.errors import InvalidWeights
from nets.evaluator import Evaluator, Probabilities, load_evaluator
from nets.lookahead import PlyEvaluator, RankedMove, evaluate_plies, rank_moves
from nets.mlp import OUTPUTS, cubeless_equity, flip_probabilities
from nets.volatility import JumpVolatility, jump_volatility

__all__ = [
    "OUTPUTS",
    "Evaluator",
    "JumpVolatility",
    "PlyEvaluator",
    "Probabilities",
    "RankedMove",
    "InvalidWeights",
    "cubeless_equity",
    "evaluate_plies",
    "flip_probabilities",
    "jump_volatility",
    "load_evaluator",
    "rank_moves",
]
