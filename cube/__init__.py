"""Doubling-cube theory: Janowski's cube-life model and Higgins' jump model (money), match play.

Pure numpy/scipy.  Probabilities are the five cubeless numbers of the side on roll
(win, win gammon, win backgammon, lose gammon, lose backgammon; cumulative).  Cube states,
actions and responses are the string enums of :mod:`cube.states`: :class:`CubeState`
(``CENTERED``, ``OWNED`` = side on roll owns it, ``UNAVAILABLE`` = opponent owns it),
:class:`CubeAction` and :class:`CubeResponse`.

Modules: :mod:`cube.states`, :mod:`cube.gamestate` (P, W, L), :mod:`cube.janowski`,
:mod:`cube.jump_linear`, :mod:`cube.jump_nonlinear`, :mod:`cube.jump_numerical`,
:mod:`cube.distributions`, :mod:`cube.volatility`, :mod:`cube.points`, :mod:`cube.strategy`;
match play: :mod:`cube.met` (match equity tables), :mod:`cube.match` (MWC and cube decisions at a
score), :mod:`cube.efficiency` (gnubg's cube efficiency by position class), :mod:`cube.match_jump`
(the jump model at a match score), :mod:`cube.match_strategy` (batched match cube strategies).
"""

from cube.distributions import DISTRIBUTIONS, JumpDistribution
from cube.efficiency import CubeEfficiency, PositionClass
from cube.errors import CubeInputError
from cube.gamestate import GameState, cubeless_equity, flip_probabilities, win_loss_values
from cube.janowski import CUBE_STATES, JanowskiModel, gnubg_equity, live_equity
from cube.jump_linear import STATISTICAL_SCALE, JumpLinearModel, implied_cube_life
from cube.jump_nonlinear import JumpNonlinearModel
from cube.jump_numerical import NumericalSolution, solve, solve_cached
from cube.match import MatchCube, MatchCubeDecision, MatchScore, cube_decision, cubeful_mwc, cubeless_mwc
from cube.match_jump import jump_cube_decision, jump_mwc
from cube.match_strategy import GnubgMatchCube, JumpMatchCube, MatchCubeActions, MatchCubeModel
from cube.met import DEFAULT_MET, PUBLISHED_METS, MatchEquityTable, keith_met, published_met
from cube.points import POINT_NAMES, DecisionPoints
from cube.states import CubeAction, CubeResponse, CubeState
from cube.strategy import (
    APPROXIMATIONS,
    CubeDecision,
    CubeDecisions,
    CubeStrategy,
    JanowskiStrategy,
    JumpApproximation,
    JumpStrategy,
    dead,
    janowski,
    janowski_refined,
    jump,
    jump_local,
    live,
)
from cube.volatility import local_volatility, two_roll_weights

__all__ = [
    "APPROXIMATIONS",
    "CUBE_STATES",
    "DEFAULT_MET",
    "DISTRIBUTIONS",
    "PUBLISHED_METS",
    "POINT_NAMES",
    "STATISTICAL_SCALE",
    "CubeAction",
    "CubeDecision",
    "CubeDecisions",
    "CubeEfficiency",
    "CubeInputError",
    "CubeResponse",
    "CubeState",
    "CubeStrategy",
    "DecisionPoints",
    "GameState",
    "GnubgMatchCube",
    "JanowskiModel",
    "JanowskiStrategy",
    "JumpApproximation",
    "JumpDistribution",
    "JumpLinearModel",
    "JumpMatchCube",
    "JumpNonlinearModel",
    "MatchCube",
    "MatchCubeActions",
    "MatchCubeModel",
    "MatchCubeDecision",
    "MatchEquityTable",
    "MatchScore",
    "JumpStrategy",
    "NumericalSolution",
    "PositionClass",
    "cube_decision",
    "cubeful_mwc",
    "cubeless_equity",
    "cubeless_mwc",
    "dead",
    "flip_probabilities",
    "gnubg_equity",
    "implied_cube_life",
    "janowski",
    "janowski_refined",
    "jump",
    "jump_cube_decision",
    "jump_local",
    "jump_mwc",
    "keith_met",
    "live",
    "live_equity",
    "local_volatility",
    "published_met",
    "solve",
    "solve_cached",
    "two_roll_weights",
    "win_loss_values",
]
