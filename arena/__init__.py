"""The arena: money games between players in lockstep batches (cubeless or cubeful), and tournaments."""

from arena import ledger
from arena.games import BlockResult, Rules, play_block
from arena.tournament import PlayerSpec, TournamentConfig, TournamentResult, run_tournament, save_games

__all__ = [
    "BlockResult",
    "PlayerSpec",
    "Rules",
    "TournamentConfig",
    "TournamentResult",
    "ledger",
    "play_block",
    "run_tournament",
    "save_games",
]
