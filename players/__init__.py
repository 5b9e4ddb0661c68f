"""Players: one batched interface for checker play and cube decisions (see :mod:`players.base`)."""

from players.base import Player
from players.cube import CubeDecider, CubeSpec, parse_cube_spec
from players.net import NetPlayer
from players.pubeval import PubevalPlayer
from players.random_player import RandomPlayer
from players.specs import PLAYER_SPECS, make_player

__all__ = [
    "PLAYER_SPECS",
    "CubeDecider",
    "CubeSpec",
    "NetPlayer",
    "Player",
    "PubevalPlayer",
    "RandomPlayer",
    "make_player",
    "parse_cube_spec",
]
