"""The HTTP API (``jumpgammon serve``): evaluate, hint, cube, rollout and health, with a web board at ``/``.

Every position is a gnubg ``POSITIONID[:MATCHID]`` or an XGID; a bare position ID is a money game
in gnubg's default state (cube centred, Jacoby rule on). Every figure is from the view of the side
on roll. The net's 0-ply evaluations of concurrent requests are batched (:mod:`service.batching`);
ranking plays and deeper plies run the project's own functions (:mod:`nets.analysis`,
:mod:`nets.lookahead`) in worker threads whose net calls join the same batches; rollouts run apart.

``create_app`` builds the application in the calling process; :func:`app_from_environment` is the
factory that ``jumpgammon serve --workers N`` names to uvicorn, so that each of its N processes
builds its own (net, batcher) from the :class:`ServeSettings` the command put in ``SETTINGS_ENV``.

Errors are JSON ``{"error": "...", "field": "..."}`` with status 400 (a value the engine refuses)
or 422 (a request that does not fit the schema); the field is named in both. The OpenAPI
description is at ``/openapi.json``.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from importlib import metadata, resources
from typing import Any

import numpy as np
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, Field

import cube as cube_models
from arena.rollout import RolloutConfig, RolloutStart, run_rollouts
from cube.efficiency import DEFAULT_CUBE_LIFE
from cube.match import MatchCube, cube_decision, cubeless_mwc
from cube.match_jump import jump_cube_decision
from cube.match_strategy import LINEAR_ALPHA
from cube.met import DEFAULT_MET, MatchEquityTable, met_by_name
from cube.states import CubeState
from cube.volatility import DEFAULT_REMOTE_ALPHA
from engine.batch import parse_id_pair
from engine.errors import JumpgammonError
from engine.match import MatchState
from engine.position import Position
from nets.analysis import (
    ROLLED_NOTE,
    cube_state_of,
    match_cube_label,
    match_cube_of,
    moves_json,
    moves_mwc_json,
    probabilities_json,
)
from nets.cube_advice import CubeAdvice, match_cube_advice, money_cube_advice
from nets.evaluator import Evaluator, load_evaluator
from nets.lookahead import evaluate_plies
from nets.mlp import cubeless_equity
from service.batching import NetBatcher

#: A bare position ID's state: a money game, player 1 on roll, cube centred, Jacoby rule on (gnubg's default).
BARE = MatchState(on_roll=1, turn=1)
MAX_ID_LENGTH = 200
#: Janowski's cube life and the jump model's volatility of the fixed-parameter models of ``/api/cube``.
JANOWSKI_X = DEFAULT_CUBE_LIFE
JUMP_ALPHA = DEFAULT_REMOTE_ALPHA
DEFAULT_MAX_ROLLOUT_TRIALS = 1296
#: The environment variable through which ``jumpgammon serve`` hands its settings to each server process.
SETTINGS_ENV = "JUMPGAMMON_SERVE_SETTINGS"


class ApiInputError(ValueError):
    """A request value the engine refuses; ``field`` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class PositionRequest(BaseModel):
    """A position and how deep to look."""

    position: str = Field(
        ...,
        max_length=MAX_ID_LENGTH,
        description="gnubg POSITIONID[:MATCHID] or an XGID (a bare position ID is a money game, Jacoby on)",
        examples=["4HPwATDgc/ABMA:cAkZAAAAAAAA", "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10"],
    )
    plies: int = Field(0, ge=0, le=2, description="lookahead depth, 0-2")
    met: str = Field(DEFAULT_MET, max_length=100, description="match equity table at a match score")


class HintRequest(PositionRequest):
    """A position and a roll: every legal play ranked."""

    dice: tuple[int, int] | None = Field(None, description="the roll (default: the ID's dice)")
    max_moves: int = Field(20, ge=1, le=200, description="how many of the best plays to return")


class RolloutRequest(BaseModel):
    """A rollout of bounded trials (at a match score too, where the rollout code plays one)."""

    position: str = Field(..., max_length=MAX_ID_LENGTH, description="gnubg POSITIONID[:MATCHID] or an XGID")
    trials: int = Field(144, ge=1, description="trials (at most the server's bound, 1296 by default)")
    plies: int = Field(0, ge=0, le=1, description="depth of the players' moves, 0-1")
    cubeful: bool = Field(False, description="play the cube (gnubg's model on the net's probabilities)")
    seed: int = Field(0, ge=0, le=2**31 - 1)


def _check_dice(dice: tuple[int, int]) -> tuple[int, int]:
    if not all(1 <= d <= 6 for d in dice):
        raise ApiInputError("dice", f"dice {list(dice)} are not two values 1-6")
    return max(dice), min(dice)


def read_position(text: str) -> tuple[Position, MatchState]:
    """The position (side on roll's view) and match state of an ID or XGID; raises ApiInputError on ``position``."""
    try:
        position, match = parse_id_pair(text)
    except (JumpgammonError, ValueError) as exc:
        raise ApiInputError("position", str(exc)) from None
    if position.is_over():
        raise ApiInputError("position", f"{text!r}: the game is over, a side has no checkers left")
    return position, match if match is not None else BARE


def read_met(name: str, match: MatchState) -> MatchEquityTable:
    """The named table, covering the match; raises ApiInputError on ``met``."""
    try:
        met = met_by_name(name)
        if match.match_length:
            met.truncated(match.match_length)
    except (JumpgammonError, ValueError, OSError) as exc:
        raise ApiInputError("met", str(exc)) from None
    return met


def _r(value: float | None) -> float | None:
    return None if value is None or np.isnan(value) else round(float(value), 6)


def advice_json(a: CubeAdvice) -> dict[str, Any]:
    """gnubg's cube decision (:mod:`nets.cube_advice`): action, the three equities, and at a score the MWCs."""
    d: dict[str, Any] = {
        "label": a.label,
        "position_class": str(a.life.position_class),
        "action": str(a.action),
        "doubles": a.action.doubles,
        "takes": a.action.takes,
        "no_double": _r(a.no_double),
        "double_take": _r(a.double_take),
        "double_pass": _r(a.double_pass),
        "equity": _r(a.equity),
    }
    if a.mwc is not None:
        d["mwc"] = {k: _r(v) for k, v in zip(("no_double", "double_take", "double_pass"), a.mwc, strict=True)}
        d["cubeful_mwc"] = _r(a.cubeful_mwc)
    return d


def describe(position: Position, match: MatchState) -> dict[str, Any]:
    """The IDs, the board (side on roll's view), pips, dice and match fields of a position."""
    own, opp = position.pips
    return {
        "position_id": position.id,
        "match_id": match.id,
        "xgid": position.to_xgid(match),
        "board": list(position.board),
        "pips": [own, opp],
        "off": list(position.off),
        "on_roll": match.on_roll,
        "dice": sorted(match.dice, reverse=True),  # the higher die first, as hint gives them
        "cube_value": match.cube,
        "cube_state": str(cube_state_of(match)),
        "match_length": match.match_length,
        "score": [match.score[match.on_roll], match.score[1 - match.on_roll]],
        "crawford": match.crawford,
        "doubled": match.doubled,
    }


def after_play(child: Position, match: MatchState) -> str:
    """The XGID after a play: the opponent on roll (``child`` is its view), no dice."""
    other = 1 - match.on_roll
    return child.to_xgid(match.with_(on_roll=other, turn=other, dice=(0, 0), doubled=False))


class Service:
    """The API's state: the net, its batcher, the rollout bound."""

    def __init__(
        self,
        evaluator: Evaluator,
        batching: bool,
        max_rollout_trials: int,
        net_threads: int = 1,
        weights: str | None = None,
    ) -> None:
        self.evaluator = evaluator
        self.weights = weights  # the file of ``evaluator`` (None: the shipped net), for the rollouts' players
        self.batcher = NetBatcher(evaluator.evaluate_boards, batching=batching, net_threads=net_threads)
        self.max_rollout_trials = max_rollout_trials
        self.rollouts = asyncio.Semaphore(1)
        self.version = _version()  # read once: the package metadata takes milliseconds to read

    async def probabilities(self, position: Position, plies: int) -> np.ndarray:
        """The net's probabilities for the side on roll at ``plies`` (0-ply batched with other requests)."""
        if plies == 0:
            return (await self.batcher.probabilities(position.array[None]))[0]
        return (await self.batcher.call(evaluate_plies, position.array[None], plies))[0]

    def gnubg_advice(
        self, position: Position, match: MatchState, probs: np.ndarray, met: MatchEquityTable
    ) -> CubeAdvice:
        """gnubg's cube model on ``probs`` at the position's cube, rules and score (:mod:`nets.cube_advice`)."""
        if match.match_length:
            return match_cube_advice(position.array, probs, met, match_cube_of(match, met))
        return money_cube_advice(position.array, probs, cube_state_of(match), jacoby=match.jacoby, beavers=False)

    async def evaluate(self, req: PositionRequest) -> dict[str, Any]:
        """Probabilities, cubeless and cubeful equity (gnubg's cube model), money or at the match score."""
        position, match = read_position(req.position)
        met = read_met(req.met, match)
        probs = await self.probabilities(position, req.plies)
        advice = self.gnubg_advice(position, match, probs, met)
        out = describe(position, match)
        out.update(
            plies=req.plies,
            probabilities=probabilities_json(probs),
            cubeless_equity=_r(float(cubeless_equity(probs))),
            cubeful_equity=_r(advice.equity),
            cube=advice_json(advice),
        )
        if match.dice != (0, 0):
            out["cube"]["note"] = ROLLED_NOTE
        if match.match_length:
            cube_now = match_cube_of(match, met)
            cubeless = _r(float(cubeless_mwc(probs, met, cube_now)))
            out.update(met=met.name, cubeless_mwc=cubeless, cubeful_mwc=_r(advice.cubeful_mwc))
        return out

    async def cube(self, req: PositionRequest) -> dict[str, Any]:
        """The cube decision under each model from the same probabilities: gnubg's, Janowski's, the jump model's."""
        position, match = read_position(req.position)
        met = read_met(req.met, match)
        probs = await self.probabilities(position, req.plies)
        state = cube_state_of(match)
        models: dict[str, Any] = {"gnubg": advice_json(self.gnubg_advice(position, match, probs, met))}
        if match.match_length:
            cube_now: MatchCube = match_cube_of(match, met)
            for name, d in (
                (f"janowski(x={JANOWSKI_X})", cube_decision(probs, met, cube_now, JANOWSKI_X)),
                (f"jump(alpha={LINEAR_ALPHA})", jump_cube_decision(probs, met, cube_now, LINEAR_ALPHA)),
            ):
                models[name] = {
                    "action": match_cube_label(d, cube_now),
                    "doubles": bool(d.available and d.action == "double"),
                    "mwc": {k: _r(v) for k, v in vars(d.mwc).items()},
                    "equity": {k: _r(v) for k, v in vars(d.equity).items()},
                }
        else:
            strategies = {
                f"janowski(x={JANOWSKI_X})": cube_models.janowski(JANOWSKI_X, capped=True),
                f"jump(alpha={JUMP_ALPHA})": cube_models.jump(JUMP_ALPHA, "linear"),
            }
            for name, strategy in strategies.items():
                money = strategy.decision(probs, state, jacoby=match.jacoby, beavers=False)
                models[name] = {
                    "action": str(money.action),
                    "response": str(money.response),
                    "doubles": bool(money.double) and state is not CubeState.UNAVAILABLE,
                    "no_double": _r(money.no_double),
                    "double_take": _r(money.double_take),
                    "double_pass": _r(money.double_pass),
                    "equity": _r(money.equity),
                }
        out = describe(position, match)
        out.update(plies=req.plies, probabilities=probabilities_json(probs), models=models)
        if match.dice != (0, 0):
            out["note"] = ROLLED_NOTE
        return out

    async def hint(self, req: HintRequest) -> dict[str, Any]:
        """Every legal play of the roll ranked best first for the mover (money: cubeless equity; match: cubeful MWC)."""
        position, match = read_position(req.position)
        met = read_met(req.met, match)
        dice = req.dice if req.dice is not None else match.dice
        if dice == (0, 0):
            raise ApiInputError("dice", f"{req.position!r} has no dice rolled: give dice")
        dice = _check_dice(dice)
        if match.match_length:
            cube_now = match_cube_of(match, met)
            moves = await self.batcher.call(moves_mwc_json, position, dice, req.plies, met, cube_now)
        else:
            moves = await self.batcher.call(moves_json, position, dice, req.plies)
        shown = moves[: req.max_moves]
        for m in shown:  # each play's resulting position is its ID's, the opponent on roll
            m["xgid"] = after_play(Position.from_id(m["position_id"]), match)
        out = describe(position, match)
        out.update(dice=list(dice), plies=req.plies, legal_plays=len(moves), moves=shown)
        return out

    async def rollout(self, req: RolloutRequest) -> dict[str, Any]:
        """A rollout of at most the server's trials, one at a time (others wait for it)."""
        try:
            start = RolloutStart.parse(req.position)
        except (JumpgammonError, ValueError) as exc:
            raise ApiInputError("position", str(exc)) from None
        if req.trials > self.max_rollout_trials:
            bound = self.max_rollout_trials
            raise ApiInputError("trials", f"trials {req.trials} is above this server's bound of {bound}")
        config = RolloutConfig(
            trials=req.trials, plies=req.plies, cubeful=req.cubeful, seed=req.seed, weights=self.weights
        )
        async with self.rollouts:
            try:
                results = await asyncio.get_running_loop().run_in_executor(
                    None, lambda: run_rollouts([start], config, progress=False)
                )
            except (JumpgammonError, ValueError) as exc:
                raise ApiInputError("position", str(exc)) from None
        return results[0].to_json()

    def health(self) -> dict[str, Any]:
        """Liveness and the batcher's counts."""
        stats = self.batcher.stats.to_json()
        status = {"status": "ok", "version": self.version, "pid": os.getpid(), "batching": self.batcher.batching}
        return {**status, **stats}


def _version() -> str:
    try:
        return metadata.version("jumpgammon")
    except metadata.PackageNotFoundError:  # pragma: no cover - a checkout run without installing
        return "unknown"


def _field_of(loc: tuple[Any, ...]) -> str:
    """The request field a pydantic error location names (``body`` for a body that is not JSON)."""
    parts = [str(p) for p in loc if p != "body"]
    return ".".join(parts) if parts else "body"


def create_app(
    evaluator: Evaluator,
    *,
    batching: bool = True,
    max_rollout_trials: int = DEFAULT_MAX_ROLLOUT_TRIALS,
    net_threads: int = 1,
    weights: str | None = None,
) -> FastAPI:
    """The FastAPI application over ``evaluator`` (loaded from ``weights``, None: the shipped net).

    ``batching`` off evaluates each request alone; rollouts play with the same weights.
    """
    service = Service(evaluator, batching, max_rollout_trials, net_threads, weights)
    app = FastAPI(
        title="jumpgammon",
        version=_version(),
        description=__doc__,
        docs_url=None,  # the interactive docs load scripts from a CDN; /openapi.json describes everything
        redoc_url=None,
    )
    app.state.service = service

    @app.exception_handler(ApiInputError)
    async def _refused(_: Request, exc: ApiInputError) -> JSONResponse:
        return JSONResponse({"error": f"field {exc.field!r}: {exc}", "field": exc.field}, status_code=400)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {"loc": ("body",), "msg": "invalid request"}
        whole_body = str(first.get("type", "")).startswith("json")  # not JSON at all: its location is a character
        field = "body" if whole_body else _field_of(tuple(first.get("loc", ("body",))))
        message = " ".join(str(first.get("msg", "invalid value")).split())
        if field == "body":
            message += " (send a JSON object with Content-Type: application/json)"
        return JSONResponse({"error": f"field {field!r}: {message}", "field": field}, status_code=422)

    @app.exception_handler(Exception)
    async def _internal(_: Request, exc: Exception) -> JSONResponse:  # the server answers and lives on
        return JSONResponse({"error": f"internal error: {type(exc).__name__}: {exc}", "field": None}, status_code=500)

    @app.get("/health", summary="liveness and the batcher's counts")
    async def health() -> dict[str, Any]:
        return service.health()

    @app.post("/api/evaluate", summary="probabilities, cubeless and cubeful equity (money or match)")
    async def evaluate(req: PositionRequest) -> dict[str, Any]:
        return await service.evaluate(req)

    @app.post("/api/hint", summary="every legal play of a roll, ranked")
    async def hint(req: HintRequest) -> dict[str, Any]:
        return await service.hint(req)

    @app.post("/api/cube", summary="the cube decision under each model")
    async def cube(req: PositionRequest) -> dict[str, Any]:
        return await service.cube(req)

    @app.post("/api/rollout", summary="a bounded rollout")
    async def rollout(req: RolloutRequest) -> dict[str, Any]:
        return await service.rollout(req)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def board() -> HTMLResponse:
        return HTMLResponse(resources.files("service").joinpath("static", "index.html").read_text(encoding="utf-8"))

    return app


@dataclass(frozen=True)
class ServeSettings:
    """What one server process is built from: its weights file (None: the shipped net) and create_app's options."""

    weights: str | None = None
    batching: bool = True
    max_rollout_trials: int = DEFAULT_MAX_ROLLOUT_TRIALS
    net_threads: int = 1

    def to_environ(self) -> dict[str, str]:
        """The settings as the one environment variable ``SETTINGS_ENV`` (JSON) that :meth:`from_environ` reads."""
        return {SETTINGS_ENV: json.dumps(asdict(self))}

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> ServeSettings:
        """The settings in ``environ`` (defaults where ``SETTINGS_ENV`` is unset); raises ValueError if malformed."""
        text = environ.get(SETTINGS_ENV)
        if text is None:
            return cls()
        try:
            return cls(**json.loads(text))
        except (TypeError, json.JSONDecodeError) as exc:
            raise ValueError(f"{SETTINGS_ENV}={text!r} does not hold serve settings: {exc}") from None


def app_from_settings(settings: ServeSettings) -> FastAPI:
    """The application of ``settings``, its net loaded in this process."""
    return create_app(
        load_evaluator(settings.weights),
        batching=settings.batching,
        max_rollout_trials=settings.max_rollout_trials,
        net_threads=settings.net_threads,
        weights=settings.weights,
    )


def app_from_environment() -> FastAPI:
    """The application of the settings in this process's environment (``SETTINGS_ENV``): uvicorn's app factory."""
    return app_from_settings(ServeSettings.from_environ(os.environ))
