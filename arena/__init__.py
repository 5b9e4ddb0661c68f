"""The arena: money games between players in lockstep batches (cubeless or cubeful), and tournaments."""

from arena.games import BlockResult, Rules, play_block
from arena.tournament import PlayerSpec, TournamentConfig, TournamentResult, run_tournament, save_games

__all__ = [
    "BlockResult",
    "PlayerSpec",
    "Rules",
    "TournamentConfig",
    "TournamentResult",
    "play_block",
    "run_tournament",
    "save_games",
]
