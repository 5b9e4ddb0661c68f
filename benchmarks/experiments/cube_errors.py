"""Cube error rates against cubeful rollouts: each cube model's money cube errors, classified as gnubg's analysis does.

A data set is a folder of numbered shards and a manifest (as ``jumpgammon label`` keeps one).
Shard ``i`` is a function of the settings, ``(seed, i)`` and the net alone:

1. **Pool.** ``pool_games`` 0-ply self-play money games of the net (seed ``[seed, i]``), their
   cube played by gnubg's model on the net's 0-ply probabilities (:func:`cubeful_walk`): every
   position met before a roll (the opening roll's excepted) while the game is still on and the
   side on roll may double (the cube centred, or its own) is a decision at that cube state. The
   checkers move by cubeless equity, so a cubeful game follows its cubeless game's moves until a
   pass ends it: the pool holds the decisions of cubeful games, as often as they meet them.
2. **Strata** (:class:`Reason`, disjoint; a position in several goes to the first of ``disagree``,
   ``close``, ``plausible``): ``disagree``, where the draw models (:data:`DRAW_MODELS`, as
   :func:`draw_player` asks them) differ on the double or the take; ``close``, where gnubg's model
   on the net's 0-ply probabilities is within ``close_margin`` of switching (|ND - min(DT, DP)| or
   |DT - DP|); ``plausible``, the rest with cubeless P(win) in ``pwin_window``. Each stratum's quota
   of the shard's ``per_shard`` decisions is drawn uniformly from it (a stratum short of its quota
   passes the rest on), and its pool count per game is kept: the rate of such decisions per game,
   which turns errors per decision into errors per game. Positions outside every stratum (all models
   agree, far from gnubg's thresholds, P(win) outside the window) are not drawn: their errors are
   taken as 0.
3. **Rollout.** Every decision's no double and double/take branches by
   :func:`arena.rollout_cube.run_cube_decisions`: 0 ply, luck-adjusted, the later cube actions
   by ``rollout_cube`` (gnubg's model by default), shared dice (the shard's own seed). Rounds of
   ``round_trials`` trials continue (same dice, ``previous``) the decisions whose ND or DT SE is
   still above ``until_se``, up to ``trials_cap``.

Scoring (:func:`score`) asks each model spec's tournament player (the shipped net at 0 ply,
:func:`players.specs.make_player`) its action and, from the responder's side, its answer to a
double, and compares them with the rollout (gnubg's rule, :func:`cube.actions.decide`); models
are also compared pairwise on the same decisions. Every figure is from the doubler's (side on
roll's) view, in points per initial cube.
"""

from __future__ import annotations

import enum
import json
import math
import queue
import sys
import time
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from arena.rollout import RolloutConfig, RolloutStart, TrialOutcomes
from arena.rollout_cube import CubeDecisionRollout, run_cube_decisions
from arena.workers import connect_ray, worker_pool
from benchmarks.experiments.plots import pyplot, save_png
from benchmarks.experiments.provenance import RESULT_FILE, committed_result, nothing_played
from cube.actions import decide, proper_action
from cube.states import CubeAction, CubeResponse, CubeState
from engine.batch import flip_boards, phases
from engine.errors import InvalidSpec, JumpgammonError
from engine.match import JACOBY_OFF_BIT, MatchState
from engine.position import GamePhase, Position
from engine.selfplay import SelfPlay
from nets.cube_advice import money_cube_decisions
from nets.evaluator import Evaluator, load_evaluator
from nets.lookahead import best_children
from nets.weights import arrays_to_npz, read_npz_arrays, remove_stale_temporaries, sha256_hex, write_atomic
from players.base import CubeContext, Player
from players.cube import CubeDecider, parse_cube_spec
from players.specs import make_player, net_spec
from players.strategic import StrategyPlayer
from training.rollout_labels import check_out_folder, rollout_seed
from weights import DEFAULT_WEIGHTS

FORMAT = "jumpgammon-cube-decisions"
VERSION = 2  # 2: the pool is cubeful games' decisions (1: cubeless games' positions, a random cube)
MANIFEST = "manifest.json"
SHARD_FORMAT = "decisions_{:05d}.npz"
#: A shard's rollouts so far, written after each round (git-ignored) and removed once the shard is written,
#: so that a stopped run loses at most a round of each shard it was making.
PARTIAL_FORMAT = "partial_{:05d}.npz"
#: The trials of the decisions a shard left above the SE target at the cap (git-ignored, in the partial's format),
#: kept so that a later, higher cap can carry them on from there instead of from the first trial.
CAPPED_FORMAT = "capped_{:05d}.npz"
_OUTCOME_FIELDS = tuple(TrialOutcomes.__dataclass_fields__)
#: The models scored by default (the brief's: Janowski's fitted x, the best constant jump, jump-local, jump-net, gnubg).
DEFAULT_MODELS = ("janowski:0.730", "jump:0.079:numerical", "jump-local", "jump-net", "gnubg")
#: Trials a branch at most, unless told otherwise (4 x 1,296: whole cycles of the stratified first two rolls).
#: 64 rounds of 324: enough for SE <= 0.01 on both branches of every decision of the full run so far (the
#: largest SE at 5,184 trials, the cap it began with, was 0.018, which needs about 16,800).
DEFAULT_TRIALS_CAP = 20736
#: The models whose disagreement marks a ``disagree`` decision (part of the data set's identity).
DRAW_MODELS = DEFAULT_MODELS
#: Games a self-play pool plays in lockstep.
POOL_PARALLEL = 64


class Reason(enum.IntEnum):
    """Why a decision was drawn: its stratum (stored per row)."""

    CLOSE = 0  # gnubg's model on the net's probabilities is near switching
    DISAGREE = 1  # the draw models differ on the double or the take
    PLAUSIBLE = 2  # cubeless P(win) in the window, neither of the above

    @property
    def label(self) -> str:
        """The reason's name in settings and counts."""
        return self.name.lower()


class ErrorKind(enum.StrEnum):
    """gnubg's classes of cube errors; ``none`` for a decision that costs nothing."""

    NONE = "none"
    MISSED_DOUBLE = "missed double"
    WRONG_DOUBLE = "wrong double"  # doubling when no double or too good is right
    WRONG_TAKE = "wrong take"
    WRONG_PASS = "wrong pass"


@dataclass(frozen=True)
class Shares:
    """Shares of a shard's decisions by :class:`Reason` (they sum to 1)."""

    close: float = 0.5
    disagree: float = 0.3
    plausible: float = 0.2

    def __post_init__(self) -> None:
        values = asdict(self)
        if any(not 0 <= v <= 1 for v in values.values()) or not math.isclose(sum(values.values()), 1.0, abs_tol=1e-9):
            raise InvalidSpec(f"stratum shares {values}: each from 0 to 1, summing to 1")

    def quotas(self, rows: int) -> list[int]:
        """Rows per reason (in :class:`Reason` order) for ``rows`` (largest remainders, reason order on ties)."""
        exact = [getattr(self, r.label) * rows for r in Reason]
        quota = [math.floor(v) for v in exact]
        for k in sorted(range(len(exact)), key=lambda k: quota[k] - exact[k])[: rows - sum(quota)]:
            quota[k] += 1
        return quota


@dataclass(frozen=True)
class CubeErrorsConfig:
    """Settings of a cube-decision data set; all but ``out``, ``decisions`` and ``block_rows`` must match on resume."""

    out: Path
    decisions: int = 2000  # rounded up to whole shards
    per_shard: int = 20
    weights: Path | None = None  # None: the shipped net
    seed: int = 1
    pool_games: int = 40
    close_margin: float = 0.08
    pwin_window: tuple[float, float] = (0.55, 0.98)
    shares: Shares = field(default_factory=Shares)
    rollout_cube: str = "gnubg"
    until_se: float = 0.01
    trials_cap: int = DEFAULT_TRIALS_CAP
    round_trials: int = 324
    # None: one lockstep block a round (2 x round_trials x per_shard rows). The trials do not depend on it (the
    # rollout's dice and batches are per trial); one block a round leaves no long tail of short blocks and
    # shares repeated early boards, about 10% less CPU than the rollout's default blocks.
    block_rows: int | None = None

    def __post_init__(self) -> None:
        for name, low in (("decisions", 1), ("per_shard", 1), ("pool_games", 1), ("trials_cap", 2)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise InvalidSpec(f"{name.replace('_', ' ')} {value!r}: give an integer of at least {low}")
        if not (isinstance(self.round_trials, int) and self.round_trials >= 2):
            raise InvalidSpec(f"round trials {self.round_trials!r}: give an integer of at least 2")
        if not (math.isfinite(self.until_se) and self.until_se > 0):
            raise InvalidSpec(f"until se {self.until_se!r}: give a positive number")
        p_low, p_high = self.pwin_window
        if not 0 <= p_low < p_high <= 1:
            raise InvalidSpec(f"P(win) window {self.pwin_window!r}: give 0 <= low < high <= 1")
        self.rollout_config(0)  # a bad rollout cube spec fails here, naming it

    @property
    def shards(self) -> int:
        """Shards holding at least ``decisions`` decisions."""
        return -(-self.decisions // self.per_shard)

    @property
    def weights_file(self) -> Path:
        """The net's weights file."""
        return self.weights if self.weights is not None else DEFAULT_WEIGHTS

    def rollout_config(self, index: int) -> RolloutConfig:
        """Shard ``index``'s rollout: cubeful money at 0 ply, luck-adjusted, own seed, ``trials_cap`` trials at most."""
        return RolloutConfig(
            trials=self.trials_cap,
            plies=0,
            cubeful=True,
            cube=self.rollout_cube,
            seed=rollout_seed(self.seed, index),
            weights=None if self.weights is None else str(self.weights),
            block_rows=self.block_rows if self.block_rows is not None else 2 * self.round_trials * self.per_shard,
        )

    def identity(self, weights_digest: str) -> dict[str, Any]:
        """The settings that define the data (the manifest's record), with the net's SHA-256."""
        return {
            "weights": "shipped" if self.weights is None else str(self.weights),
            "weights_sha256": weights_digest,
            "per_shard": self.per_shard,
            "pool": {
                "games": self.pool_games,
                "plies": 0,
                "cube": "gnubg's model on the net's 0-ply probabilities; a pass ends the game",
                "decisions": "every position before a roll (not the opening) whose side on roll may double",
                "close_margin": self.close_margin,
                "pwin_window": list(self.pwin_window),
                "draw_models": list(DRAW_MODELS),
                "precedence": "disagree, close, plausible",
            },
            "shares": asdict(self.shares),
            "rollout": {
                "cube": self.rollout_cube,
                "plies": 0,
                "variance_reduction": True,
                "luck": "gnubg's 0-ply cubeful equity (x 0.68) times the cube",
                "luck_screen": self.rollout_config(0).luck_screen,
                "until_se": self.until_se,
                "trials_cap": self.trials_cap,
                "round_trials": self.round_trials,
                "seed": self.seed,
                "seed_rule": "shard i rolls out with seed rollout_seed(seed, i) (training.rollout_labels)",
                "rules": "money, Jacoby off, beavers off",
            },
        }


# --------------------------------------------------------------------------------------------
# Models' decisions
# --------------------------------------------------------------------------------------------


def split_models(text: str) -> tuple[str, ...]:
    """Cube specs from a comma-separated list; a bare number belongs to the spec before it (``janowski:X1,X2``).

    Raises InvalidSpec naming the list when it is empty or starts with a number.
    """
    specs: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        try:
            float(piece)
            number = True
        except ValueError:
            number = False
        if number and specs:
            specs[-1] += "," + piece
        elif piece and not number:
            specs.append(piece)
        else:
            raise InvalidSpec(f"--models {text!r}: expected comma-separated cube specs")
    return tuple(specs)


def model_player(spec: str, weights: Path | None, evaluators: dict[str, Evaluator], plies: int = 0) -> Player:
    """The tournament player of cube ``spec`` (the net at ``plies``); raises InvalidSpec naming the spec."""
    if parse_cube_spec(spec).cubeless:
        raise InvalidSpec(f"cube spec {spec!r} never doubles: nothing to score")
    return make_player(net_spec(plies, weights), spec, evaluators)


def draw_player(spec: str, weights: Path | None, evaluators: dict[str, Evaluator]) -> Player:
    """:func:`model_player` as the draw asks it: a jump model decides even where the two-roll lookahead shows the
    game decided or nearly (its two-roll search, :mod:`cube.two_roll`, came after the run began; the draw is part
    of the run's settings, so every shard's decisions stay what its seed drew). Scoring uses the models as they
    play."""
    player = model_player(spec, weights, evaluators)
    if isinstance(player, StrategyPlayer) and isinstance(player.decider, CubeDecider):
        player.decider.two_roll_search = False
    else:  # only the CubeDecider's local strategies have the rule to switch off
        strategy = parse_cube_spec(spec).strategy
        assert strategy is None or not strategy.needs_local_volatility, spec
    return player


# Decisions asked of a player at a time: a local-volatility model's 441-roll lookahead holds some 9,000 positions a
# decision, so asking all 2,000 at once needed some 12 GB.
DECISIONS_AT_A_TIME = 200


def model_decisions(player: Player, boards: np.ndarray, owned: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(doubles, takes) bool (n,): whether ``player`` doubles each board (side on roll, centred or its own cube),
    and whether, doubled there, it takes (asked from the responder's side, as a tournament asks it)."""
    doubles, takes = np.zeros(len(boards), dtype=bool), np.zeros(len(boards), dtype=bool)
    for start in range(0, len(boards), DECISIONS_AT_A_TIME):
        part = slice(start, start + DECISIONS_AT_A_TIME)
        context = CubeContext.money(np.where(owned[part], CubeState.OWNED, CubeState.CENTERED))
        actions = np.asarray(player.double_actions(boards[part], context))
        answers = np.asarray(player.double_responses(flip_boards(boards[part]), context))
        doubles[part] = actions == CubeAction.DOUBLE
        takes[part] = (answers == CubeResponse.TAKE) | (answers == CubeResponse.BEAVER)  # beavers off: a take
    return doubles, takes


# --------------------------------------------------------------------------------------------
# Pool and drawing
# --------------------------------------------------------------------------------------------


@dataclass
class Pool:
    """A shard's candidate decisions (side on roll's view, before rolling) and their strata."""

    boards: np.ndarray  # int8 (n, 26)
    owned: np.ndarray  # bool (n,): the side on roll owns the cube (else centred)
    games: np.ndarray  # int64 (n,)
    reasons: np.ndarray  # int8 (n,): Reason, -1 outside every stratum
    cube: np.ndarray  # int64 (n,): the cube's value there in its game (1 centred, 2, 4, ... owned)
    pwin: np.ndarray  # (n,) cubeless P(win), 0 ply
    model: np.ndarray  # (n, 3) gnubg's model ND, DT, DP on the net's probabilities
    games_played: int


def self_play_positions(ev: Evaluator, games: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Boards (side on roll, before rolling; not opening rolls) of ``games`` cubeless 0-ply games, and their games."""
    play = SelfPlay(rng, POOL_PARALLEL, games)
    boards: list[np.ndarray] = []
    numbers: list[np.ndarray] = []
    for turn in play:
        keep = ~turn.opening
        boards.append(turn.boards[keep].copy())
        numbers.append(turn.games[keep].copy())
        turn.move(lambda b, d: best_children(ev, b, d))
    return np.concatenate(boards), np.concatenate(numbers)


def cubeful_walk(boards: np.ndarray, games: np.ndarray, probs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which positions of cubeless games a cubeful game meets as a cube decision, and at which cube state.

    ``boards`` (side on roll, before rolling), their ``games`` and 0-ply ``probs`` come in play
    order (each game's positions in turn, the sides alternating). The cube of each game is played
    by gnubg's model: a double taken passes the cube, doubled, to the taker, a pass ends the game.
    Returns (decision, owned, cube): bool (n,) masks of the positions met with the cube centred or
    the side on roll's own, and of those where it owns it, and the cube's value at each decision
    (int64, 0 elsewhere): what one initial cube of an error there is worth in points.
    """
    decisions = {
        state: money_cube_decisions(boards, probs, np.full(len(boards), state), jacoby=False, beavers=False)
        for state in (CubeState.CENTERED, CubeState.OWNED)
    }
    decision = np.zeros(len(boards), bool)
    owned = np.zeros(len(boards), bool)
    cube = np.zeros(len(boards), np.int64)
    value: dict[int, int] = {}  # per game: the cube's value
    holder: dict[int, int | None] = {}  # per game: None centred, 0 the side on roll owns it, 1 its opponent
    ended: set[int] = set()
    for k, game in enumerate(games.tolist()):
        if game in ended:
            continue
        who = holder.get(game)
        if who == 1:  # the opponent's cube: no decision; the cube is the next roller's
            holder[game] = 0
            continue
        state = CubeState.CENTERED if who is None else CubeState.OWNED
        decision[k], owned[k], cube[k] = True, who == 0, value.get(game, 1)
        d = decisions[state]
        if str(d.action[k]) == CubeAction.DOUBLE:
            if str(d.response[k]) == CubeResponse.PASS:
                ended.add(game)
                continue
            holder[game] = 0  # the taker owns the cube and rolls next
            value[game] = 2 * int(cube[k])
        else:
            holder[game] = None if who is None else 1  # the roller keeps its cube, seen from the next roller
    return decision, owned, cube


def build_pool(ev: Evaluator, cfg: CubeErrorsConfig, players: Sequence[Player], rng: np.random.Generator) -> Pool:
    """Shard pool: every cube decision of ``cfg.pool_games`` cubeful self-play games at its cube state, with its
    stratum."""
    boards, games = self_play_positions(ev, cfg.pool_games, rng)
    live = phases(boards) != GamePhase.OVER
    boards, games = boards[live], games[live]
    met, owned_all, cube_all = cubeful_walk(boards, games, ev.evaluate_boards(boards))
    boards, games, owned, cube = boards[met], games[met], owned_all[met], cube_all[met]
    probs = ev.evaluate_boards(boards)
    states = np.where(owned, CubeState.OWNED, CubeState.CENTERED)
    g = money_cube_decisions(boards, probs, states, jacoby=False, beavers=False)
    nd, dt, dp = (np.asarray(x, np.float64) for x in (g.no_double, g.double_take, g.double_pass))
    close = np.minimum(np.abs(nd - np.minimum(dt, dp)), np.abs(dt - dp)) <= cfg.close_margin
    decisions = [model_decisions(p, boards, owned) for p in players]
    doubles = np.array([d for d, _ in decisions])
    takes = np.array([t for _, t in decisions])
    disagree = (doubles.any(axis=0) & ~doubles.all(axis=0)) | (takes.any(axis=0) & ~takes.all(axis=0))
    pwin = np.asarray(probs[:, 0], np.float64)
    plausible = (pwin >= cfg.pwin_window[0]) & (pwin <= cfg.pwin_window[1])
    reasons = np.full(len(boards), -1, np.int8)
    reasons[plausible] = Reason.PLAUSIBLE
    reasons[close] = Reason.CLOSE
    reasons[disagree] = Reason.DISAGREE  # first: where the models part, their errors differ
    return Pool(boards, owned, games, reasons, cube, pwin, np.stack([nd, dt, dp], axis=1), cfg.pool_games)


def draw(pool: Pool, shares: Shares, rows: int, rng: np.random.Generator) -> np.ndarray:
    """Pool indices of ``rows`` decisions (fewer if the strata hold fewer): each stratum's quota drawn uniformly,
    a stratum's shortfall taken from the others (in :class:`Reason` order)."""
    members = [rng.permutation(np.flatnonzero(pool.reasons == r)) for r in Reason]
    taken = [min(q, len(m)) for q, m in zip(shares.quotas(rows), members, strict=True)]
    left = rows - sum(taken)
    for k, m in enumerate(members):  # a shortfall goes to the strata with room, in Reason order
        extra = min(left, len(m) - taken[k])
        taken[k] += extra
        left -= extra
    return np.concatenate([m[:t] for m, t in zip(members, taken, strict=True)])


# --------------------------------------------------------------------------------------------
# Rollouts
# --------------------------------------------------------------------------------------------


def gnubg_id(board: np.ndarray, owned: bool) -> str:
    """``POSITIONID:MATCHID`` of a money decision (side on roll, before rolling; cube 1 centred or 2 its own)."""
    match = MatchState(cube=2 if owned else 1, cube_owner=0 if owned else None, on_roll=0, extra_bits=JACOBY_OFF_BIT)
    return f"{Position.from_board(board).id}:{match.id}"


def _renumbered(outcomes: TrialOutcomes, position: int) -> TrialOutcomes:
    return replace(outcomes, position=np.full(len(outcomes.position), position, dtype=outcomes.position.dtype))


def _save_partial(
    path: Path, boards: np.ndarray, final: dict[int, CubeDecisionRollout], done: int, cpu_seconds: float
) -> None:
    """Write the rollouts of a shard so far: every decision's trials of both branches, and the rounds' CPU."""
    outcomes = TrialOutcomes.concatenate(
        [
            _renumbered(o, 2 * i + b)
            for i in range(len(boards))
            for b, o in enumerate((final[i].no_double.outcomes, final[i].double_take.outcomes))
        ]
    )
    arrays: dict[str, Any] = {f"outcomes_{name}": getattr(outcomes, name) for name in _OUTCOME_FIELDS}
    arrays.update(boards=boards, done=np.array([done]), cpu_seconds=np.array([cpu_seconds]))
    write_atomic(path, arrays_to_npz(arrays))


def _load_partial(
    path: Path, starts: Sequence[RolloutStart], boards: np.ndarray, config: RolloutConfig
) -> tuple[dict[int, CubeDecisionRollout], int, float] | None:
    """The decisions, trials played a round and CPU seconds a :func:`_save_partial` left for these starts;
    None without one (or for other starts)."""
    if not path.is_file():
        return None
    names = ("boards", "done", "cpu_seconds", *(f"outcomes_{name}" for name in _OUTCOME_FIELDS))
    saved = read_npz_arrays(path, names, "partial cube-decision shard")
    if not np.array_equal(saved["boards"], boards):
        return None
    outcomes = TrialOutcomes(**{name: saved[f"outcomes_{name}"] for name in _OUTCOME_FIELDS})
    final = {}
    for i, start in enumerate(starts):
        mine = outcomes.select(np.flatnonzero(outcomes.position // 2 == i))
        previous = replace(mine, position=mine.position - 2 * i)
        trials = len(mine.trial) // 2
        (final[i],), _ = run_cube_decisions([start], replace(config, trials=trials), progress=False, previous=previous)
    return final, int(saved["done"][0]), float(saved["cpu_seconds"][0])


def roll_out_decisions(
    starts: Sequence[RolloutStart], cfg: CubeErrorsConfig, config: RolloutConfig, partial: Path | None = None
) -> tuple[list[CubeDecisionRollout], float]:
    """Each start's cube decision rolled out in rounds of ``cfg.round_trials``: a decision goes on (same dice)
    while its ND or DT SE exceeds ``cfg.until_se`` and ``config.trials`` (the cap) is not reached; also the
    CPU seconds of the rounds. With ``partial`` (a file) the rounds so far are written there after each
    round, and a run continues from what it holds: the same decisions as a run without a stop."""
    final: dict[int, CubeDecisionRollout] = {}
    active = list(range(len(starts)))
    done = 0
    cpu_before = 0.0
    boards = np.array([s.position.array for s in starts], np.int8).reshape(len(starts), -1)
    if partial is not None and (loaded := _load_partial(partial, starts, boards, config)) is not None:
        final, done, cpu_before = loaded
        active = [] if done >= config.trials else [i for i in active if _goes_on(final[i], done, cfg)]
    started = time.process_time()
    while active:
        target = min(config.trials, done + cfg.round_trials)
        previous = None
        if done:
            previous = TrialOutcomes.concatenate(
                [
                    _renumbered(o, 2 * j + b)
                    for j, i in enumerate(active)
                    for b, o in enumerate((final[i].no_double.outcomes, final[i].double_take.outcomes))
                ]
            )
        rolled, _ = run_cube_decisions(
            [starts[i] for i in active], replace(config, trials=target), progress=False, previous=previous
        )
        for i, d in zip(active, rolled, strict=True):
            final[i] = d
        done = target
        if partial is not None:
            _save_partial(partial, boards, final, done, cpu_before + time.process_time() - started)
        if done >= config.trials:
            break
        active = [i for i in active if _goes_on(final[i], done, cfg)]
    return [final[i] for i in range(len(starts))], cpu_before + time.process_time() - started


def _goes_on(decision: CubeDecisionRollout, done: int, cfg: CubeErrorsConfig) -> bool:
    """True when a decision rolled out to ``done`` trials needs another round: an SE above the target."""
    return decision.trials == done and any(f.se is None or f.se > cfg.until_se for f in decision.figures[:2])


@dataclass
class DecisionShard:
    """One shard: drawn money cube decisions (doubler's view, points per initial cube), their rollouts and pool."""

    boards: np.ndarray  # int8 (n, 26)
    owned: np.ndarray  # bool (n,)
    reasons: np.ndarray  # int8 (n,)
    games: np.ndarray  # int64 (n,): the pool game each came from
    pwin: np.ndarray  # (n,)
    model: np.ndarray  # (n, 3): gnubg's model ND, DT, DP on the net's probabilities
    nd: np.ndarray  # (n,) rollout no double
    nd_se: np.ndarray
    dt: np.ndarray  # (n,) rollout double/take (per initial cube)
    dt_se: np.ndarray
    margin: np.ndarray  # (n,) min(DT, DP) - ND
    margin_se: np.ndarray  # its paired SE
    gammons: np.ndarray  # bool (n,): the rollout saw gammons (gnubg's "too good" needs them)
    trials: np.ndarray  # int64 (n,) trials per branch
    pool_counts: np.ndarray  # int64 (3,): pool decisions per Reason
    pool_games: np.ndarray  # int64 (1,)
    pool_positions: np.ndarray  # int64 (1,): pool decisions in all (strata or not)
    cpu_seconds: np.ndarray  # (2,): process CPU seconds drawing and rolling out
    # int64 (n,): the cube's value at the decision in its pool game; 0 where a shard did not record it (the
    # pilot's data format, and shards written before it: tools/cube_errors/add_cube_values.py adds it)
    cube: np.ndarray

    ROWS = (
        "boards", "owned", "reasons", "games", "pwin", "model", "nd", "nd_se", "dt", "dt_se", "margin",
        "margin_se", "gammons", "trials", "cube",
    )  # fmt: skip
    SUMS = ("pool_counts", "pool_games", "pool_positions", "cpu_seconds")
    ARRAYS = ROWS + SUMS

    def __len__(self) -> int:
        return len(self.boards)

    def to_bytes(self) -> bytes:
        """The shard as .npz bytes."""
        return arrays_to_npz({name: getattr(self, name) for name in self.ARRAYS})

    @classmethod
    def read(cls, path: Path) -> DecisionShard:
        """Read a shard (its cube values 0 where it has none); raises JumpgammonError naming the file if it is not
        one."""
        names = tuple(n for n in cls.ARRAYS if n != "cube")
        arrays = read_npz_arrays(path, names, "cube-decision shard")
        arrays["cube"] = cls.recorded_cubes(path, len(arrays["boards"]))
        shard = cls(**arrays)
        if shard.boards.ndim != 2 or any(len(getattr(shard, n)) != len(shard) for n in cls.ROWS[1:]):
            raise JumpgammonError(f"{path}: shard arrays of inconsistent lengths")
        return shard

    @staticmethod
    def recorded_cubes(path: Path, rows: int) -> np.ndarray:
        """The shard file's cube values, or zeros (unknown) when it has none; JumpgammonError naming a damaged file."""
        try:
            with np.load(path, allow_pickle=False) as z:
                return np.asarray(z["cube"], np.int64) if "cube" in z.files else np.zeros(rows, np.int64)
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as exc:
            raise JumpgammonError(f"{path}: not a cube-decision shard ({exc})") from None

    @property
    def cubes_known(self) -> bool:
        """Whether every decision's cube value is recorded (points, not only per-cube figures, then follow)."""
        return bool(len(self)) and bool((self.cube > 0).all())

    @staticmethod
    def concatenate(shards: Sequence[DecisionShard]) -> DecisionShard:
        """The shards as one (rows in order; pool counts summed, CPU seconds summed)."""
        rows = {n: np.concatenate([getattr(s, n) for s in shards]) for n in DecisionShard.ROWS}
        sums = {n: np.sum([getattr(s, n) for s in shards], axis=0) for n in DecisionShard.SUMS}
        return DecisionShard(**rows, **sums)


def draw_decisions(cfg: CubeErrorsConfig, index: int) -> tuple[Pool, np.ndarray]:
    """Shard ``index``'s pool and the pool indices of its decisions: a function of the settings, ``(seed, index)``
    and the net."""
    evaluators: dict[str, Evaluator] = {}
    ev = load_evaluator(cfg.weights_file)
    players = [draw_player(s, cfg.weights, evaluators) for s in DRAW_MODELS]
    rng = np.random.default_rng([cfg.seed, index])
    pool = build_pool(ev, cfg, players, rng)
    return pool, draw(pool, cfg.shares, cfg.per_shard, rng)


def with_cube_values(cfg: CubeErrorsConfig, index: int) -> DecisionShard:
    """Shard ``index`` of ``cfg.out`` with each decision's cube value, drawn again where the file has none; raises
    JumpgammonError naming the file when its decisions are not the ones these settings draw."""
    path = shard_path(cfg.out, index)
    shard = DecisionShard.read(path)
    if shard.cubes_known:
        return shard
    pool, chosen = draw_decisions(cfg, index)
    for name in ("boards", "owned", "games", "reasons"):
        if not np.array_equal(getattr(pool, name)[chosen], getattr(shard, name)):
            raise JumpgammonError(f"{path}: its decisions ({name}) are not what shard {index} of these settings draws")
    return replace(shard, cube=pool.cube[chosen])


def make_shard(cfg: CubeErrorsConfig, index: int) -> DecisionShard:
    """Shard ``index``: a function of the settings, ``(seed, index)`` and the net."""
    started = time.process_time()
    pool, chosen = draw_decisions(cfg, index)
    drawn = time.process_time()
    starts = [RolloutStart.parse(gnubg_id(pool.boards[i], bool(pool.owned[i]))) for i in chosen]
    partial = partial_path(cfg.out, index)
    remove_stale_temporaries(partial)
    rolled, rollout_cpu = roll_out_decisions(starts, cfg, cfg.rollout_config(index), partial) if starts else ([], 0.0)
    capped = [i for i, d in enumerate(rolled) if _goes_on(d, cfg.trials_cap, cfg)]
    if capped:
        boards = np.array([starts[i].position.array for i in capped], np.int8)
        kept = dict(enumerate(rolled[i] for i in capped))
        _save_partial(capped_path(cfg.out, index), boards, kept, cfg.trials_cap, 0.0)
    figures = [d.figures for d in rolled]
    margins = [d.margin for d in rolled]
    return DecisionShard(
        boards=pool.boards[chosen],
        owned=pool.owned[chosen],
        reasons=pool.reasons[chosen],
        games=pool.games[chosen],
        pwin=pool.pwin[chosen],
        model=pool.model[chosen],
        nd=np.array([f[0].value for f in figures], np.float64),
        nd_se=np.array([f[0].se for f in figures], np.float64),
        dt=np.array([f[1].value for f in figures], np.float64),
        dt_se=np.array([f[1].se for f in figures], np.float64),
        margin=np.array([m.value for m in margins], np.float64),
        margin_se=np.array([m.se for m in margins], np.float64),
        gammons=np.array([bool(d.no_double.raw.probabilities[1] > 0.0) for d in rolled], bool),
        trials=np.array([d.trials for d in rolled], np.int64),
        pool_counts=np.array([(pool.reasons == r).sum() for r in Reason], np.int64),
        pool_games=np.array([pool.games_played], np.int64),
        pool_positions=np.array([len(pool.boards)], np.int64),
        cpu_seconds=np.array([drawn - started, rollout_cpu]),
        cube=pool.cube[chosen],
    )


# --------------------------------------------------------------------------------------------
# The data set: folder, manifest, where shards are made
# --------------------------------------------------------------------------------------------


def shard_path(out: Path, index: int) -> Path:
    """The file of shard ``index``."""
    return out / SHARD_FORMAT.format(index)


def partial_path(out: Path, index: int) -> Path:
    """The file of shard ``index``'s rollouts so far, while it is being made."""
    return out / PARTIAL_FORMAT.format(index)


def capped_path(out: Path, index: int) -> Path:
    """The file of the trials of shard ``index``'s decisions that stopped at the cap above the SE target."""
    return out / CAPPED_FORMAT.format(index)


def _worker_shard(cfg: CubeErrorsConfig, index: int, *_: int) -> tuple[int, DecisionShard]:
    return index, make_shard(cfg, index)


def capped_rows(shard: DecisionShard, cap: int, until_se: float) -> np.ndarray:
    """The rows of ``shard`` whose rollout stopped at ``cap`` trials with an SE above ``until_se``."""
    return np.flatnonzero((shard.trials == cap) & (np.maximum(shard.nd_se, shard.dt_se) > until_se))


def top_up_shard(cfg: CubeErrorsConfig, index: int, old_cap: int) -> DecisionShard:
    """Shard ``index`` with its decisions left at ``old_cap`` above the SE target carried on to ``cfg.trials_cap``:
    what rolling the shard out at that cap gives (the same dice, rounds and stops), since ``old_cap`` is a
    whole number of rounds. It carries on from the kept trials (``capped_NNNNN.npz``) where they match."""
    shard = DecisionShard.read(shard_path(cfg.out, index))
    rows = capped_rows(shard, old_cap, cfg.until_se)
    if not len(rows):
        return shard
    starts = [RolloutStart.parse(gnubg_id(shard.boards[i], bool(shard.owned[i]))) for i in rows]
    kept = capped_path(cfg.out, index)
    rolled, cpu = roll_out_decisions(starts, cfg, cfg.rollout_config(index), kept)
    still = [j for j, d in enumerate(rolled) if _goes_on(d, cfg.trials_cap, cfg)]
    if still:  # the kept trials of those still above the target, for a cap higher again
        boards = np.array([starts[j].position.array for j in still], np.int8)
        _save_partial(kept, boards, {k: rolled[j] for k, j in enumerate(still)}, cfg.trials_cap, 0.0)
    else:
        kept.unlink(missing_ok=True)
    arrays = {name: getattr(shard, name).copy() for name in DecisionShard.ARRAYS}
    for i, d in zip(rows, rolled, strict=True):
        nd, dt, _ = d.figures
        for name, figure in (("nd", nd), ("dt", dt), ("margin", d.margin)):
            arrays[name][i] = figure.value
            arrays[f"{name}_se"][i] = np.nan if figure.se is None else figure.se  # as a shard stores a missing SE
        arrays["gammons"][i] = bool(d.no_double.raw.probabilities[1] > 0.0)
        arrays["trials"][i] = d.trials
    arrays["cpu_seconds"][1] += cpu
    return DecisionShard(**arrays)


def _worker_top_up(cfg: CubeErrorsConfig, index: int, old_cap: int) -> tuple[int, DecisionShard]:
    return index, top_up_shard(cfg, index, old_cap)


def _made_shards(
    cfg: CubeErrorsConfig,
    todo: list[int],
    workers: int,
    ray_address: str | None,
    work: Callable[..., tuple[int, DecisionShard]] = _worker_shard,
    extra: tuple[int, ...] = (),
) -> Iterator[tuple[int, DecisionShard]]:
    """Each shard of ``todo`` as ``work(cfg, index, *extra)`` finishes it: here, in worker processes or as Ray
    tasks."""
    if ray_address is not None:
        ray = connect_ray(ray_address)
        task = ray.remote(work)
        width = max(workers, int(ray.cluster_resources().get("CPU", 1)))
        waiting = list(reversed(todo))
        pending: list[Any] = []
        while pending or waiting:
            while waiting and len(pending) < width:
                pending.append(task.remote(cfg, waiting.pop(), *extra))
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    elif workers > 1 and len(todo) > 1:
        results: queue.SimpleQueue[tuple[int, DecisionShard] | BaseException] = queue.SimpleQueue()
        with worker_pool(min(workers, len(todo))) as pool:
            for index in todo:
                pool.apply_async(work, (cfg, index, *extra), callback=results.put, error_callback=results.put)
            for _ in todo:
                item = results.get()
                if isinstance(item, BaseException):
                    raise item
                yield item
    else:
        for index in todo:
            yield work(cfg, index, *extra)


def raised_cap(saved: dict[str, Any], identity: dict[str, Any]) -> int | None:
    """The saved trials cap when two identities differ in that alone and the new one is higher; else None."""
    old, new = json.loads(json.dumps(saved)), json.loads(json.dumps(identity))
    old_cap, new_cap = old.get("rollout", {}).pop("trials_cap", None), new.get("rollout", {}).pop("trials_cap", None)
    if old != new or not isinstance(old_cap, int) or not isinstance(new_cap, int) or old_cap >= new_cap:
        return None
    return old_cap


def _top_up(cfg: CubeErrorsConfig, old_cap: int, workers: int, ray_address: str | None, progress: bool) -> int:
    """Carry every shard's decisions left at ``old_cap`` on to ``cfg.trials_cap``; returns the shards rewritten."""
    if old_cap % cfg.round_trials:
        raise JumpgammonError(
            f"{cfg.out}: its cap of {old_cap} trials is not a whole number of {cfg.round_trials}-trial rounds, "
            "so a higher cap cannot carry its decisions on as a run at that cap would"
        )
    todo = [
        index
        for index in range(cfg.shards)
        if shard_path(cfg.out, index).is_file()
        and len(capped_rows(DecisionShard.read(shard_path(cfg.out, index)), old_cap, cfg.until_se))
    ]
    bar = tqdm(total=len(todo), unit="shard", desc="capped decisions on", disable=not progress, file=sys.stderr)
    try:
        for index, shard in _made_shards(cfg, todo, workers, ray_address, _worker_top_up, (old_cap,)):
            write_atomic(shard_path(cfg.out, index), shard.to_bytes())
            bar.update(1)
    finally:
        bar.close()
    return len(todo)


def _read_manifest(path: Path) -> dict[str, Any]:
    try:
        saved = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise JumpgammonError(f"{path}: not a cube-decision manifest ({exc})") from None
    if not isinstance(saved, dict) or saved.get("format") != FORMAT or not isinstance(saved.get("identity"), dict):
        raise JumpgammonError(f"{path}: not a cube-decision manifest (format {FORMAT!r} expected)")
    return saved


def config_of_manifest(path: Path, out: Path) -> CubeErrorsConfig:
    """The settings a manifest records, for the folder ``out``; raises JumpgammonError naming the file when they do
    not make the same identity (a manifest of other code or hand-edited)."""
    saved = _read_manifest(path)["identity"]
    try:
        pool, rollout = saved["pool"], saved["rollout"]
        cfg = CubeErrorsConfig(
            out=out,
            per_shard=saved["per_shard"],
            weights=None if saved["weights"] == "shipped" else Path(saved["weights"]),
            seed=rollout["seed"],
            pool_games=pool["games"],
            close_margin=pool["close_margin"],
            pwin_window=tuple(pool["pwin_window"]),
            shares=Shares(**saved["shares"]),
            rollout_cube=rollout["cube"],
            until_se=rollout["until_se"],
            trials_cap=rollout["trials_cap"],
            round_trials=rollout["round_trials"],
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise JumpgammonError(f"{path}: not a cube-decision manifest ({exc})") from None
    if cfg.identity(saved["weights_sha256"]) != saved:
        raise JumpgammonError(f"{path}: its settings are not ones this code makes")
    return cfg


def _write_manifest(path: Path, identity: dict[str, Any], shards: int, done: int) -> None:
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "perspective": "the doubler (side on roll, before rolling); points per initial cube",
        "identity": identity,
        "shards_target": shards,
        "shards_done": done,
    }
    write_atomic(path, (json.dumps(manifest, indent=1) + "\n").encode())


def collect(cfg: CubeErrorsConfig, workers: int = 1, ray_address: str | None = None, progress: bool = True) -> int:
    """Write shards ``0 .. cfg.shards - 1`` into ``cfg.out`` (those there are kept); returns the shards made now.

    The manifest records the settings and the net's digest; a folder of other settings is refused, except a
    higher ``trials_cap``: the decisions its shards left at the old cap above the SE target are first carried
    on to the new one (:func:`top_up_shard`).
    """
    check_out_folder(cfg.out)
    if workers < 1:
        raise InvalidSpec(f"workers {workers!r}: give at least 1")
    load_evaluator(cfg.weights_file)  # a file that is not a net fails here
    identity = cfg.identity(sha256_hex(cfg.weights_file))
    manifest = cfg.out / MANIFEST
    if manifest.is_file():
        saved = _read_manifest(manifest)["identity"]
        saved["weights"] = identity["weights"]  # the same net under another path: the digest decides
        if saved != identity:
            old_cap = raised_cap(saved, identity)
            if old_cap is None:
                diff = sorted(k for k in set(saved) | set(identity) if saved.get(k) != identity.get(k))
                raise JumpgammonError(f"{cfg.out}: its decisions were drawn with other settings ({', '.join(diff)})")
            # A higher cap: the shards there become what that cap gives, before the manifest says so.
            _top_up(cfg, old_cap, workers, ray_address, progress)
    cfg.out.mkdir(parents=True, exist_ok=True)
    todo = []
    for index in range(cfg.shards):
        path = shard_path(cfg.out, index)
        remove_stale_temporaries(path)
        if not path.is_file():
            todo.append(index)
    done = cfg.shards - len(todo)
    _write_manifest(manifest, identity, cfg.shards, done)
    bar = tqdm(total=cfg.shards, initial=done, unit="shard", disable=not progress, file=sys.stderr)
    made = 0
    try:
        for index, shard in _made_shards(cfg, todo, workers, ray_address):
            write_atomic(shard_path(cfg.out, index), shard.to_bytes())
            partial_path(cfg.out, index).unlink(missing_ok=True)
            made += 1
            _write_manifest(manifest, identity, cfg.shards, done + made)
            bar.update(1)
    finally:
        bar.close()
    return made


def read_shards(out: Path, shards: int | None = None) -> DecisionShard | None:
    """Shards ``0 .. shards - 1`` of a folder as one (all there with None); None when it holds none."""
    paths = sorted(out.glob("decisions_*.npz"))
    if shards is not None:
        paths = [p for p in paths if p.name < SHARD_FORMAT.format(shards)]
    if not paths:
        return None
    return DecisionShard.concatenate([DecisionShard.read(p) for p in paths])


# --------------------------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Judged:
    """One model's errors at one decision (doubler's view, points per initial cube; 0: right)."""

    double_error: float
    double_kind: ErrorKind
    take_error: float
    take_kind: ErrorKind


def judge(nd: float, dt: float, doubles: bool, takes: bool) -> Judged:
    """The cost of a doubler's choice ``doubles`` and of a responder's ``takes`` against the rolled-out ND and DT
    (DP = +1), as gnubg's analysis counts them: the double judged with the proper response, against gnubg's
    optimal equity, the better of ND and min(DT, DP) (so also where, without gammons, gnubg names the action
    double/pass while ND is above the cash: a double costs ND - DP there)."""
    optimal = max(nd, min(dt, 1.0))
    chosen = min(dt, 1.0) if doubles else nd
    double_error = max(optimal - chosen, 0.0)
    double_kind = ErrorKind.NONE
    if double_error > 0.0:
        double_kind = ErrorKind.WRONG_DOUBLE if doubles else ErrorKind.MISSED_DOUBLE
    proper_takes = dt < 1.0
    take_error = abs(1.0 - dt) if takes != proper_takes else 0.0
    take_kind = ErrorKind.NONE
    if take_error > 0.0:
        take_kind = ErrorKind.WRONG_TAKE if takes else ErrorKind.WRONG_PASS
    return Judged(double_error, double_kind, take_error, take_kind)


def _mean_se(values: np.ndarray) -> tuple[float, float | None]:
    if len(values) == 0:
        return float("nan"), None
    se = float(values.std(ddof=1) / math.sqrt(len(values))) if len(values) > 1 else None
    return float(values.mean()), se


def _milli(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else round(1000 * value, 2)


def _errors(
    data: DecisionShard, doubles: np.ndarray, takes: np.ndarray
) -> tuple[list[Judged], np.ndarray, np.ndarray, np.ndarray]:
    """Each decision judged (:func:`judge`), whether a double is offered there (the rollout's proper action
    doubles or the model does), the double errors and the take errors where offered (0 elsewhere)."""
    n = len(data)
    judged = [judge(float(data.nd[i]), float(data.dt[i]), bool(doubles[i]), bool(takes[i])) for i in range(n)]
    proper_doubles = [decide(data.nd[i], data.dt[i], 1.0, gammons=bool(data.gammons[i])).action for i in range(n)]
    offered = (np.array(proper_doubles) == CubeAction.DOUBLE) | doubles
    double_err = np.array([j.double_error for j in judged])
    take_err = np.where(offered, [j.take_error for j in judged], 0.0)
    return judged, offered, double_err, take_err


def score_model(data: DecisionShard, doubles: np.ndarray, takes: np.ndarray) -> dict[str, Any]:
    """One model's errors over the decisions of ``data`` (its ``doubles`` and ``takes`` per decision).

    A take counts where a double is offered: the rollout's proper action doubles or the model itself
    doubles. Toss-ups (a margin within 2 SEs of zero) count at their point estimate; ``excluding_tossups``
    repeats the figures without them (per 500 games: toss-ups cost nothing). Per 500 games weighs each stratum's
    mean error by its pool rate.
    """
    n = len(data)
    judged, offered, double_err, take_err = _errors(data, doubles, takes)
    total = double_err + take_err
    take_margin_se = data.dt_se
    double_toss = np.abs(data.margin) < 2 * data.margin_se
    take_toss = offered & (np.abs(1.0 - data.dt) < 2 * data.dt_se)
    toss = double_toss | take_toss
    # the rollout's noise in the errors: a wrong choice costs its margin, known to the margin's SE
    noise = np.where(double_err > 0, data.margin_se, 0.0) ** 2 + np.where(take_err > 0, take_margin_se, 0.0) ** 2
    kinds = [j.double_kind for j in judged] + [j.take_kind for j, o in zip(judged, offered, strict=True) if o]

    everything = np.ones(n, bool)

    def figures(mask: np.ndarray, per_games: bool = True) -> dict[str, Any]:
        m, se = _mean_se(total[mask])
        d, d_se = _mean_se(double_err[mask])
        t, t_se = _mean_se(take_err[mask])
        count = int(mask.sum())
        kept = np.where(mask, total, 0.0)
        return {
            "decisions": count,
            "mp_per_decision": _milli(m),
            "se": _milli(se),
            "rollout_se": _milli(math.sqrt(noise[mask].sum()) / count) if count else None,
            "double_mp_per_decision": _milli(d),
            "double_se": _milli(d_se),
            "take_mp_per_decision": _milli(t),
            "take_se": _milli(t_se),
            # per game, the decisions outside ``mask`` count as costing nothing (they are met in play all the same)
            "per_500_games": _per_games(data, kept, everything, in_points=True) if per_games else None,
            "per_500_games_per_cube": _per_games(data, kept, everything, in_points=False) if per_games else None,
        }

    counts = {k.value: kinds.count(k) for k in ErrorKind if k is not ErrorKind.NONE}
    by_kind = {  # the mp a decision each kind costs: they sum to mp_per_decision
        ErrorKind.MISSED_DOUBLE.value: np.where(doubles, 0.0, double_err),
        ErrorKind.WRONG_DOUBLE.value: np.where(doubles, double_err, 0.0),
        ErrorKind.WRONG_TAKE.value: np.where(takes, take_err, 0.0),
        ErrorKind.WRONG_PASS.value: np.where(takes, 0.0, take_err),
    }
    tossup_counts = {
        "double": int(double_toss.sum()),
        "take": int(take_toss.sum()),
        "wrong_at_tossups": int(((double_err > 0) & double_toss).sum() + ((take_err > 0) & take_toss).sum()),
    }
    return {
        **figures(np.ones(n, bool)),
        "takes_offered": int(offered.sum()),
        "errors": counts,
        "mp_by_kind": {kind: _milli(float(cost.mean())) if n else None for kind, cost in by_kind.items()},
        "tossups": tossup_counts,
        "excluding_tossups": figures(~toss),
        "by_reason": {r.label: figures(data.reasons == r, False) for r in Reason if (data.reasons == r).any()},
        "by_cube": {state: figures(mask, False) for state, mask in _cube_states(data).items() if mask.any()},
    }


def _cube_states(data: DecisionShard) -> dict[str, np.ndarray]:
    """The decisions on a centred cube (first doubles) and on the roller's own (redoubles), as masks."""
    return {str(CubeState.CENTERED): ~data.owned, str(CubeState.OWNED): data.owned.astype(bool)}


def _per_games(data: DecisionShard, total: np.ndarray, mask: np.ndarray, in_points: bool) -> dict[str, Any] | None:
    """Per 500 games: each stratum's mean error (rows in ``mask``) times its decisions per game, summed; in points
    (each error times the cube's value at its decision) with ``in_points``, else per cube at each decision.

    None where a stratum met in play was not drawn, or, in points, where a cube value is not recorded. The SE
    adds the strata's rates' own noise to their means', the counts taken as Poisson (decisions of a game are
    not independent, so that part is a little low).
    """
    if in_points and not data.cubes_known:
        return None
    errors = total * data.cube if in_points else total
    games = int(data.pool_games.sum())
    value = variance = 0.0
    for r in Reason:
        rate = data.pool_counts[r] / games
        rows = errors[mask & (data.reasons == r)]
        if rate == 0:
            continue
        if len(rows) == 0:
            return None  # a stratum met in play but not drawn: no estimate
        m, se = _mean_se(rows)
        value += rate * m
        variance += (rate * (se or 0.0)) ** 2 + (m * math.sqrt(data.pool_counts[r]) / games) ** 2
    return {"points": round(500 * value, 4), "se": round(500 * math.sqrt(variance), 4)}


NOISE_SIMULATIONS = 64  # redraws of every decision's rollout for the noise floor (its own SE is far smaller)


def branch_correlations(data: DecisionShard) -> np.ndarray:
    """Each decision's correlation (n,) of its ND and DT estimates (shared dice), from the paired SE of DT - ND.

    Where the taker would pass the margin's SE is ND's own, which says nothing of the correlation: those
    decisions take the median of the others (0 if there are none).
    """
    cov = (data.nd_se**2 + data.dt_se**2 - data.margin_se**2) / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.clip(cov / (data.nd_se * data.dt_se), -1.0, 1.0)
    known = (data.dt < 1.0) & np.isfinite(rho)
    fallback = float(np.median(rho[known])) if known.any() else 0.0
    return np.where(known, rho, fallback)


def noise_floor(data: DecisionShard, simulations: int = NOISE_SIMULATIONS, seed: int = 0) -> dict[str, Any]:
    """The mp a decision the rollouts' noise alone charges a model that takes every proper action.

    The rolled-out ND and DT stand in for the truth; each simulation redraws them from a normal of their SEs
    and correlation (:func:`branch_correlations`) and scores the truth's actions against the redraw as the
    models are scored. A model's rate holds about this much noise where it agrees with the rollout near a
    border (the floor is an estimate at the rolled-out values, not at the unknown true ones).
    """
    n = len(data)
    doubles = (data.dt >= data.nd) & (data.nd <= 1.0)  # gnubg's optimal action doubles: DT and DP both at least ND
    takes = data.dt < 1.0
    rho = branch_correlations(data)
    rng = np.random.default_rng(seed)
    means = np.empty(simulations)
    for k in range(simulations):
        z_nd, z_other = rng.standard_normal((2, n))
        z_dt = rho * z_nd + np.sqrt(1.0 - rho**2) * z_other
        redrawn = replace(data, nd=data.nd + data.nd_se * z_nd, dt=data.dt + data.dt_se * z_dt)
        _, _, double_err, take_err = _errors(redrawn, doubles, takes)
        means[k] = float((double_err + take_err).mean())
    return {
        "mp_per_decision": _milli(float(means.mean())),
        "simulation_se": _milli(float(means.std(ddof=1) / math.sqrt(simulations))) if simulations > 1 else None,
        "simulations": simulations,
        "rule": "the rolled-out actions scored against ND and DT redrawn from normals of their SEs and correlation",
    }


def decision_errors(data: DecisionShard, doubles: np.ndarray, takes: np.ndarray) -> np.ndarray:
    """Each decision's cost (double error plus take error where a double is offered), in points per cube."""
    _, _, double_err, take_err = _errors(data, doubles, takes)
    return double_err + take_err


def score(data: DecisionShard, models: Sequence[str], weights: Path | None, plies: int = 0) -> dict[str, Any]:
    """Every model's errors over ``data`` (:func:`score_model`), keyed by its spec; also the decisions' own table.

    The models decide from the net at ``plies``; above 0, each model's ``minus_at_0_ply`` is its paired
    difference from itself at 0 ply (the share of its error the net's 0-ply probabilities cause).
    """
    evaluators: dict[str, Evaluator] = {}
    out: dict[str, Any] = {}
    decisions: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    totals: dict[str, np.ndarray] = {}
    for spec in models:
        player = model_player(spec, weights, evaluators, plies)
        decisions[spec] = model_decisions(player, data.boards, data.owned)
        out[spec] = score_model(data, *decisions[spec])
        totals[spec] = decision_errors(data, *decisions[spec])
        if plies:
            player_at_0 = model_player(spec, weights, evaluators)
            at_0 = decision_errors(data, *model_decisions(player_at_0, data.boards, data.owned))
            diff, diff_se = _mean_se(totals[spec] - at_0)
            out[spec]["minus_at_0_ply"] = {"mp_per_decision": _milli(diff), "se": _milli(diff_se)}
    everything = np.ones(len(data), bool)
    for spec in models:  # paired on the same decisions: the rollouts' noise and the sample's mostly cancel
        paired = {}
        for other in models:
            if other != spec:
                diff, diff_se = _mean_se(totals[spec] - totals[other])
                by_cube = {}
                for state, mask in _cube_states(data).items():
                    if mask.any():
                        d, d_se = _mean_se(totals[spec][mask] - totals[other][mask])
                        by_cube[state] = {"mp_per_decision": _milli(d), "se": _milli(d_se)}
                paired[other] = {
                    "mp_per_decision": _milli(diff),
                    "se": _milli(diff_se),
                    "per_500_games": _per_games(data, totals[spec] - totals[other], everything, in_points=True),
                    "per_500_games_per_cube": _per_games(
                        data, totals[spec] - totals[other], everything, in_points=False
                    ),
                    "by_cube": by_cube,
                }
        out[spec]["minus"] = paired
    return {"models": out, "noise_floor": noise_floor(data), "decisions": _decision_rows(data, decisions)}


def _decision_rows(data: DecisionShard, decisions: dict[str, tuple[np.ndarray, np.ndarray]]) -> list[dict[str, Any]]:
    rows = []
    for i in range(len(data)):
        proper = decide(data.nd[i], data.dt[i], 1.0, gammons=bool(data.gammons[i]))
        state = CubeState.OWNED if data.owned[i] else CubeState.CENTERED
        rows.append(
            {
                "id": gnubg_id(data.boards[i], bool(data.owned[i])),
                "cube": str(state),
                "reason": Reason(int(data.reasons[i])).label,
                "nd": round(float(data.nd[i]), 4),
                "nd_se": round(float(data.nd_se[i]), 4),
                "dt": round(float(data.dt[i]), 4),
                "dt_se": round(float(data.dt_se[i]), 4),
                "margin_se": round(float(data.margin_se[i]), 4),
                "trials": int(data.trials[i]),
                "proper": str(proper_action(proper.action, proper.response, state, optional=proper.optional)),
                "models": {s: [bool(d[i]), bool(t[i])] for s, (d, t) in decisions.items()},
            }
        )
    return rows


def summary(data: DecisionShard, cfg: CubeErrorsConfig) -> dict[str, Any]:
    """The data set's counts, trials, SEs and compute (process CPU seconds per decision)."""
    games = int(data.pool_games.sum())
    cpu = data.cpu_seconds.astype(float)
    n = len(data)
    per_trial = float(cpu[1]) / float(data.trials.sum())
    # trials a decision needs for both SEs at the target (SE falls as 1/sqrt(trials)), a round at least
    needed = np.maximum(data.trials * (np.maximum(data.nd_se, data.dt_se) / cfg.until_se) ** 2, cfg.round_trials)
    capped = np.minimum(needed, cfg.trials_cap)
    return {
        "decisions": n,
        "by_reason": {r.label: int((data.reasons == r).sum()) for r in Reason},
        "owned": int(data.owned.sum()),
        "pool": {
            "games": games,
            "decisions_per_game": {r.label: round(float(data.pool_counts[r]) / games, 3) for r in Reason},
            "positions_per_game": round(float(data.pool_positions.sum()) / games, 2),
        },
        "trials_per_branch": {"mean": round(float(data.trials.mean()), 1), "max": int(data.trials.max())},
        "se": {
            "nd_mean": round(float(data.nd_se.mean()), 4),
            "dt_mean": round(float(data.dt_se.mean()), 4),
            "margin_mean": round(float(data.margin_se.mean()), 4),
            "at_target": int(((data.nd_se <= cfg.until_se) & (data.dt_se <= cfg.until_se)).sum()),
        },
        "cpu_seconds": {
            "drawing": round(float(cpu[0]), 1),
            "rollouts": round(float(cpu[1]), 1),
            "per_decision": round(float(cpu.sum()) / n, 2),
            "rollout_per_decision_trial": round(per_trial, 5),
        },
        "projected": {
            "until_se": cfg.until_se,
            "trials_per_branch_mean": round(float(needed.mean()), 0),
            "trials_per_branch_median": round(float(np.median(needed)), 0),
            "cpu_seconds_per_decision": round(float(cpu[0]) / n + per_trial * float(needed.mean()), 1),
            "core_hours_for_2000": round(2000 * (float(cpu[0]) / n + per_trial * float(needed.mean())) / 3600, 1),
            "trials_cap": cfg.trials_cap,
            "trials_per_branch_mean_capped": round(float(capped.mean()), 0),
            "core_hours_for_2000_capped": round(
                2000 * (float(cpu[0]) / n + per_trial * float(capped.mean())) / 3600, 1
            ),
            "rule": "each decision's trials times (max(ND SE, DT SE) / until_se)^2, at the measured CPU s a trial",
        },
    }


def run_cube_errors(
    cfg: CubeErrorsConfig,
    models: Sequence[str],
    workers: int = 1,
    ray_address: str | None = None,
    play: bool = True,
    progress: bool = True,
    model_plies: int = 0,
) -> dict[str, Any]:
    """Draw and roll out the missing shards (unless ``play`` is False), score ``models``; the result (JSON-ready).

    A run writes ``result.json`` to ``cfg.out``; a report (``play`` False) writes nothing and reads the
    shards there, else the committed ``result.json``. Raises ValueError for a folder with neither. A report
    may score the models on the net at ``model_plies`` (the rollouts stay at 0 ply); a run scores them at 0.
    """
    if model_plies and play:
        raise ValueError(
            f"--model-plies {model_plies} applies to a report (--report): a run's result.json scores the models "
            "at 0 ply, the depth the decisions were drawn at"
        )
    for spec in models:
        model_player(spec, cfg.weights, {}, model_plies)  # a bad spec fails before any work
    if play:
        collect(cfg, workers, ray_address, progress)
    data = read_shards(cfg.out, cfg.shards if play else None)
    if data is None:
        if not play and not model_plies and (committed := committed_result(cfg.out)) is not None:
            return committed
        raise nothing_played(cfg.out)
    manifest = cfg.out / MANIFEST
    identity = (
        _read_manifest(manifest)["identity"] if manifest.is_file() else cfg.identity(sha256_hex(cfg.weights_file))
    )
    result = {
        "experiment": "cube-errors",
        "perspective": (
            "the doubler (side on roll); milli-points per cube at the decision; per 500 games in points (each error "
            "times its cube) and per cube"
        ),
        "identity": identity,
        "summary": summary(data, cfg),
        "model_plies": model_plies,
        **score(data, models, cfg.weights, model_plies),
    }
    if play:
        write_atomic(cfg.out / RESULT_FILE, (json.dumps(result, indent=1) + "\n").encode())
        plot_cube_errors(result, cfg.out / PLOT_FILE)
    return result


PLOT_FILE = "plot.png"
_KIND_COLOURS = {
    ErrorKind.MISSED_DOUBLE: "tab:blue",
    ErrorKind.WRONG_DOUBLE: "tab:orange",
    ErrorKind.WRONG_TAKE: "tab:green",
    ErrorKind.WRONG_PASS: "tab:red",
}
_REASON_COLOURS = {Reason.CLOSE: "tab:blue", Reason.DISAGREE: "tab:red", Reason.PLAUSIBLE: "tab:grey"}


def plot_cube_errors(result: dict[str, Any], path: Path) -> bool:
    """Two panels to ``path`` from a result: where the decisions lie (the double's and the take's rolled-out gains,
    by stratum: the quadrants are the proper actions) and each model's mp a decision split by kind of error (SE on
    the total); False without matplotlib."""
    plt = pyplot()
    if plt is None:
        return False
    fig, (where, bars) = plt.subplots(1, 2, figsize=(12, 5), gridspec_kw={"width_ratios": [1, 1.15]})
    rows = result["decisions"]
    for reason, colour in _REASON_COLOURS.items():
        mine = [r for r in rows if r["reason"] == reason.label]
        if mine:
            where.scatter(
                [min(r["dt"], 1.0) - r["nd"] for r in mine],
                [1.0 - r["dt"] for r in mine],
                s=12,
                alpha=0.7,
                color=colour,
                label=f"{reason.label} ({len(mine)})",
            )
    where.axvline(0.0, color="k", lw=0.8)
    where.axhline(0.0, color="k", lw=0.8)
    for x, y, text in (
        (0.98, 0.98, "double, take"),
        (0.98, 0.02, "double, pass"),
        (0.02, 0.98, "no double"),
        (0.02, 0.02, "too good"),
    ):
        where.text(
            x,
            y,
            text,
            transform=where.transAxes,
            ha="right" if x > 0.5 else "left",
            va="top" if y > 0.5 else "bottom",
            fontsize=9,
        )
    where.set_xlabel("the double's gain: min(DT, DP) - ND, rolled out")
    where.set_ylabel("the take's gain: DP - DT, rolled out")
    where.set_title(f"where the {len(rows):,} decisions lie (per initial cube)")
    where.legend(loc="lower left", bbox_to_anchor=(0.25, 0.0), fontsize=8, title="stratum", title_fontsize=8)
    models = list(result["models"])
    for k, spec in enumerate(models):
        m = result["models"][spec]
        left = 0.0
        for kind, colour in _KIND_COLOURS.items():
            width = m["mp_by_kind"][kind.value] or 0.0
            bars.barh(k, width, left=left, color=colour, label=kind.value if k == 0 else None)
            left += width
        bars.errorbar(m["mp_per_decision"], k, xerr=m["se"] or 0.0, color="k", capsize=3, lw=1)
    bars.set_yticks(range(len(models)), models)
    bars.invert_yaxis()
    bars.set_xlabel("milli-points a decision (bar: SE of the total)")
    bars.set_title("each model's cube errors against the rollouts")
    # Room on the right for the legend, so that it covers no bar's SE.
    widest = max(m["mp_per_decision"] + (m["se"] or 0.0) for m in result["models"].values())
    bars.set_xlim(0.0, 1.4 * widest if widest > 0 else 1.0)
    bars.legend(loc="upper right", fontsize=8)
    save_png(plt, fig, path)
    return True
