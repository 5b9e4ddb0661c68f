"""The arena: money games between players in lockstep batches (cubeless or cubeful), tournaments, rollouts."""

from arena import ledger
from arena.games import BlockResult, Lockstep, Rules, play_block
from arena.rollout import RolloutConfig, RolloutResult, RolloutStart, run_rollouts
from arena.tournament import PlayerSpec, TournamentConfig, TournamentResult, run_tournament, save_games

__all__ = [
    "BlockResult",
    "Lockstep",
    "PlayerSpec",
    "RolloutConfig",
    "RolloutResult",
    "RolloutStart",
    "Rules",
    "TournamentConfig",
    "TournamentResult",
    "ledger",
    "play_block",
    "run_rollouts",
    "run_tournament",
    "save_games",
]
