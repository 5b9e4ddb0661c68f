"""The HTTP API (``jumpgammon serve``): evaluate, hint, cube, rollout and health, with a web board at ``/``.

Every position is a gnubg ``POSITIONID[:MATCHID]`` or an XGID; a bare position ID is a money game
in gnubg's default state (cube centred, Jacoby rule on). Every figure is from the view of the side
on roll. The net's 0-ply evaluations of concurrent requests are batched (:mod:`service.batching`);
ranking plays and deeper plies run the project's own functions (:mod:`nets.analysis`,
:mod:`nets.lookahead`) in worker threads whose net calls join the same batches; rollouts run apart.

``create_app`` builds the application in the calling process; :func:`app_from_environment` is the
factory that ``jumpgammon serve --workers N`` names to uvicorn, so that each of its N processes
builds its own (net, batcher) from the :class:`ServeSettings` the command put in ``SETTINGS_ENV``.

Errors are JSON ``{"error": "...", "field": "..."}`` naming the input: 400 for a value the engine
refuses, 422 for a request that does not fit the schema (an unknown field, a value of the wrong
JSON type: ``"plies": "1"`` or ``1.0`` is refused, not converted), 413 for a body over 64 KiB, 404
and 405 for a path or method the API lacks, 503 (field ``server``) while another rollout runs
(with ``Retry-After``) or when the weights file changed since the server started. One rollout runs
at a time; it stops early, answering what it has with ``stopped`` saying why, at the server's time
limit or when its client disconnects. The OpenAPI description is at ``/openapi.json``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from importlib import metadata, resources
from pathlib import Path
from typing import Any

import numpy as np
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt
from starlette.exceptions import HTTPException as StarletteHTTPException

import cube as cube_models
from arena.rollout import RolloutConfig, RolloutResult, RolloutStart, run_rollouts
from cube.efficiency import DEFAULT_CUBE_LIFE
from cube.match import MatchCube, cube_decision, cubeless_mwc
from cube.match_jump import jump_cube_decision
from cube.match_strategy import LINEAR_ALPHA
from cube.met import DEFAULT_MET, PUBLISHED_METS, MatchEquityTable, met_by_name
from cube.states import CubeState
from cube.volatility import DEFAULT_REMOTE_ALPHA
from engine.batch import parse_id_pair
from engine.errors import JumpgammonError
from engine.match import BARE_ID_STATE, MatchState
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
from nets.weights import weights_digest
from service.batching import NetBatcher
from service.guard import NOSNIFF, Guard, clip, loopback_hosts
from weights import DEFAULT_WEIGHTS

#: A bare position ID's state: a money game, player 1 on roll, cube centred, Jacoby rule on (gnubg's default).
MAX_ID_LENGTH = 200
#: Janowski's cube life and the jump model's volatility of the fixed-parameter models of ``/api/cube``.
JANOWSKI_X = DEFAULT_CUBE_LIFE
JUMP_ALPHA = DEFAULT_REMOTE_ALPHA
DEFAULT_MAX_ROLLOUT_TRIALS = 1296
#: The server's time limit on one rollout (seconds): past it the rollout stops after its block and answers.
DEFAULT_MAX_ROLLOUT_SECONDS = 60.0
#: The schema's bound on ``trials``, above every server's: a larger number is refused before it is echoed.
MAX_TRIALS = 1_000_000
#: Trials per lockstep block of a service rollout, by depth: a block is the unit after which a rollout can stop
#: (the client gone, the time spent), so it is smaller than the rollout code's 648; the block size does not change
#: the result, since a trial's dice depend on its index only. At 0 ply a smaller block costs speed (648 trials
#: took about 1.2 times as long in blocks of 324, 1.7 times in blocks of 144, on the busy 2-core machine); at
#: 1 ply blocks of 12 and 36 took the same time.
ROLLOUT_BLOCK_ROWS = {0: 324, 1: 36}
#: How often a running rollout's request asks whether its client is still connected (seconds).
DISCONNECT_POLL_SECONDS = 0.25
#: The largest request body (bytes); every request of the API fits in well under 1 KiB.
MAX_BODY_BYTES = 64 * 1024
#: The environment variable through which ``jumpgammon serve`` hands its settings to each server process.
SETTINGS_ENV = "JUMPGAMMON_SERVE_SETTINGS"


logger = logging.getLogger(__name__)


class ApiInputError(ValueError):
    """A request value the engine refuses; ``field`` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class ServiceUnavailable(RuntimeError):
    """The server cannot answer now (503, field ``server``); ``retry_after``: seconds to wait, None: do not retry."""

    def __init__(self, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class Strict(BaseModel):
    """A request body: an unknown field is refused (a misspelt ``ply`` must not give a 0-ply answer)."""

    model_config = ConfigDict(extra="forbid")


class PositionRequest(Strict):
    """A position and how deep to look."""

    position: str = Field(
        ...,
        max_length=MAX_ID_LENGTH,
        description="gnubg POSITIONID[:MATCHID] or an XGID (a bare position ID is a money game, Jacoby on)",
        examples=["4HPwATDgc/ABMA:cAkZAAAAAAAA", "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10"],
    )
    plies: StrictInt = Field(0, ge=0, le=2, description="lookahead depth, 0-2")
    met: str = Field(
        DEFAULT_MET, max_length=100, description=f"match equity table at a match score: {', '.join(PUBLISHED_METS)}"
    )


class HintRequest(PositionRequest):
    """A position and a roll: every legal play ranked."""

    # The items are strict (no true, 1.0 or "1"), the pair is not: a JSON array arrives as a list, which a
    # strict tuple would refuse, since FastAPI validates the decoded body in pydantic's Python mode.
    dice: tuple[StrictInt, StrictInt] | None = Field(None, description="the roll (default: the ID's dice)")
    max_moves: StrictInt = Field(20, ge=1, le=200, description="how many of the best plays to return")


class RolloutRequest(Strict):
    """A rollout of bounded trials (at a match score too, where the rollout code plays one)."""

    position: str = Field(..., max_length=MAX_ID_LENGTH, description="gnubg POSITIONID[:MATCHID] or an XGID")
    trials: StrictInt = Field(
        144, ge=1, le=MAX_TRIALS, description="trials (at most the server's bound, 1296 by default)"
    )
    plies: StrictInt = Field(0, ge=0, le=1, description="depth of the players' moves, 0-1")
    cubeful: StrictBool = Field(False, description="play the cube (gnubg's model on the net's probabilities)")
    seed: StrictInt = Field(0, ge=0, le=2**31 - 1)


#: Each endpoint's request model, for naming the fields it takes when a request sends another.
REQUEST_MODELS: dict[str, type[Strict]] = {
    "/api/evaluate": PositionRequest,
    "/api/cube": PositionRequest,
    "/api/hint": HintRequest,
    "/api/rollout": RolloutRequest,
}


def _check_dice(dice: tuple[int, int]) -> tuple[int, int]:
    if not all(1 <= d <= 6 for d in dice):
        raise ApiInputError("dice", f"dice {clip(str(list(dice)), 40)} are not two values 1-6")
    return max(dice), min(dice)


def read_position(text: str) -> tuple[Position, MatchState]:
    """The position (side on roll's view) and match state of an ID or XGID; raises ApiInputError on ``position``."""
    try:
        position, match = parse_id_pair(text)
    except (JumpgammonError, ValueError) as exc:
        raise ApiInputError("position", str(exc)) from None
    if position.is_over():
        raise ApiInputError("position", f"{text!r}: the game is over, a side has no checkers left")
    return position, match if match is not None else BARE_ID_STATE


def read_met(name: str, match: MatchState) -> MatchEquityTable:
    """The published table named ``name``, covering the match; raises ApiInputError on ``met``.

    Only the published names: ``met_by_name`` would also read any path ending in ``.xml``, which would
    let a client ask whether a file exists on the server.
    """
    if not any(name.lower() == known.lower() for known in PUBLISHED_METS):
        known = ", ".join(PUBLISHED_METS)
        raise ApiInputError("met", f"unknown match equity table {clip(name, 40)!r}: this server knows {known}")
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
    """The API's state: the net, its batcher, the rollout bounds and the rollout running now."""

    def __init__(
        self,
        evaluator: Evaluator,
        batching: bool,
        max_rollout_trials: int,
        net_threads: int = 1,
        weights: str | None = None,
        max_rollout_seconds: float = DEFAULT_MAX_ROLLOUT_SECONDS,
    ) -> None:
        if not (math.isfinite(max_rollout_seconds) and max_rollout_seconds > 0):
            raise ValueError(f"max_rollout_seconds {max_rollout_seconds!r}: give a positive number of seconds")
        self.evaluator = evaluator
        self.weights = weights  # the file of ``evaluator`` (None: the shipped net), for the rollouts' players
        self.weights_file = Path(weights) if weights is not None else DEFAULT_WEIGHTS
        # The rollouts load their players from the file again (arena.rollout.build_players): the digest taken
        # now, beside the evaluator's loading, tells a rollout whether that file still holds the served net.
        self.weights_digest = weights_digest(self.weights_file)
        self.batcher = NetBatcher(evaluator.evaluate_boards, batching=batching, net_threads=net_threads)
        self.max_rollout_trials = max_rollout_trials
        self.max_rollout_seconds = max_rollout_seconds
        self.rollout_started: float | None = None  # time.monotonic() of the rollout running now, None: none
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
            state, jacoby = cube_state_of(match), bool(match.jacoby)
            moves = await self.batcher.call(moves_json, position, dice, req.plies, state, jacoby)
        shown = moves[: req.max_moves]
        for m in shown:  # each play's resulting position is its ID's, the opponent on roll
            m["xgid"] = after_play(Position.from_id(m["position_id"]), match)
        out = describe(position, match)
        out.update(dice=list(dice), plies=req.plies, legal_plays=len(moves), moves=shown)
        return out

    async def rollout(
        self, req: RolloutRequest, disconnected: Callable[[], Awaitable[bool]] | None = None
    ) -> dict[str, Any]:
        """The rollout's JSON, with ``trials_requested`` and ``stopped`` (why it ended early, None: every trial).

        One rollout runs at a time: another request meanwhile gets ServiceUnavailable at once, not a place
        in a queue. The rollout stops after its current block at the server's time limit, or when
        ``disconnected()`` (asked every ``DISCONNECT_POLL_SECONDS``) says the client has gone.
        """
        read_position(req.position)  # the same refusals as the other endpoints (a finished game among them)
        try:
            start = RolloutStart.parse(req.position)
        except (JumpgammonError, ValueError) as exc:
            raise ApiInputError("position", str(exc)) from None
        if req.trials > self.max_rollout_trials:
            bound = self.max_rollout_trials
            raise ApiInputError("trials", f"trials {req.trials} is above this server's bound of {bound}")
        if self.rollout_started is not None:
            left = self.max_rollout_seconds - (time.monotonic() - self.rollout_started)
            raise ServiceUnavailable(
                "a rollout is already running on this server (one at a time): retry later", max(1, math.ceil(left))
            )
        config = RolloutConfig(
            trials=req.trials,
            plies=req.plies,
            cubeful=req.cubeful,
            seed=req.seed,
            weights=self.weights,
            block_rows=ROLLOUT_BLOCK_ROWS[req.plies],
        )
        gone = threading.Event()
        started = time.monotonic()
        why: list[str] = []

        def stop(_: list[RolloutResult]) -> bool:  # asked in the rollout's thread after each block
            if gone.is_set():
                why.append("the client disconnected")
            elif time.monotonic() - started >= self.max_rollout_seconds:
                why.append(f"time limit of {self.max_rollout_seconds:g} s reached")
            return bool(why)

        def play() -> list[RolloutResult]:
            self.check_weights()  # here, just before run_rollouts loads the file, to leave the least time between
            return run_rollouts([start], config, progress=False, stop=stop)

        future = asyncio.get_running_loop().run_in_executor(None, play)
        self.rollout_started = started
        # The slot is freed when the thread ends, not when this request does: a request cancelled meanwhile
        # must not let a second rollout start beside the first.
        future.add_done_callback(self._rollout_done)
        try:
            while not (await asyncio.wait({future}, timeout=DISCONNECT_POLL_SECONDS))[0]:
                if disconnected is not None and not gone.is_set() and await disconnected():
                    gone.set()
            results = await future
        except asyncio.CancelledError:
            gone.set()
            raise
        except (JumpgammonError, ValueError) as exc:
            raise ApiInputError("position", str(exc)) from None
        out = results[0].to_json()
        out.update(trials_requested=req.trials, stopped=why[0] if why and out["trials"] < req.trials else None)
        return out

    def _rollout_done(self, future: asyncio.Future[list[RolloutResult]]) -> None:
        self.rollout_started = None
        if not future.cancelled():
            future.exception()  # retrieved, so that a rollout whose request was cancelled logs no warning

    def check_weights(self) -> None:
        """Nothing when the weights file still holds the net loaded at the start; raises ServiceUnavailable."""
        try:
            same = weights_digest(self.weights_file) == self.weights_digest
        except OSError:
            same = False
        if not same:
            raise ServiceUnavailable(
                f"the weights file {str(self.weights_file)!r} changed since this server started, and a rollout "
                "would play another net than the one that evaluates: restart the server"
            )

    def health(self) -> dict[str, Any]:
        """Liveness and the batcher's counts."""
        stats = self.batcher.stats.to_json()
        status = {
            "status": "ok",
            "version": self.version,
            "weights_sha256": self.weights_digest,
            "pid": os.getpid(),
            "batching": self.batcher.batching,
        }
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


def _http_error(request: Request, exc: StarletteHTTPException) -> tuple[str, str]:
    """The field and message of an error Starlette raises itself: an unknown path, a wrong method, a bad body."""
    path = clip(request.url.path)
    if exc.status_code == 404:
        return "path", f"no endpoint at {path!r} (the API is described at /openapi.json)"
    if exc.status_code == 405:
        allowed = (exc.headers or {}).get("Allow", "")
        return "method", f"{clip(request.method, 20)} is not allowed at {path!r}" + (
            f" (allowed: {allowed})" if allowed else ""
        )
    message = " ".join(str(exc.detail).split())
    if exc.status_code == 400:
        message += " (send a JSON object, UTF-8, with Content-Type: application/json)"
    return "body", message


def create_app(
    evaluator: Evaluator,
    *,
    batching: bool = True,
    max_rollout_trials: int = DEFAULT_MAX_ROLLOUT_TRIALS,
    net_threads: int = 1,
    weights: str | None = None,
    max_rollout_seconds: float = DEFAULT_MAX_ROLLOUT_SECONDS,
    allowed_hosts: Sequence[str] | None = None,
) -> FastAPI:
    """The FastAPI application over ``evaluator`` (loaded from ``weights``, None: the shipped net).

    ``batching`` off evaluates each request alone; rollouts play with the same weights, for at most
    ``max_rollout_trials`` trials and about ``max_rollout_seconds``. With ``allowed_hosts`` a request
    whose Host header names another host is refused (:mod:`service.guard`).
    """
    service = Service(evaluator, batching, max_rollout_trials, net_threads, weights, max_rollout_seconds)
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

    @app.exception_handler(ServiceUnavailable)
    async def _unavailable(_: Request, exc: ServiceUnavailable) -> JSONResponse:
        headers = {} if exc.retry_after is None else {"Retry-After": str(exc.retry_after)}
        return JSONResponse({"error": f"field 'server': {exc}", "field": "server"}, status_code=503, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {"loc": ("body",), "msg": "invalid request"}
        whole_body = str(first.get("type", "")).startswith("json")  # not JSON at all: its location is a character
        field = "body" if whole_body else clip(_field_of(tuple(first.get("loc", ("body",)))))
        message = " ".join(str(first.get("msg", "invalid value")).split())
        model = REQUEST_MODELS.get(request.url.path)
        if first.get("type") == "extra_forbidden" and model is not None:
            message = f"unknown field; {request.url.path} takes {', '.join(model.model_fields)}"
        if field == "body":
            message += " (send a JSON object with Content-Type: application/json)"
        return JSONResponse({"error": f"field {field!r}: {message}", "field": field}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        field, message = _http_error(request, exc)
        body = {"error": f"field {field!r}: {message}", "field": field}
        return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(Exception)
    async def _internal(request: Request, exc: Exception) -> JSONResponse:  # the server answers and lives on
        # The exception's text may hold paths or values of the server's: it goes to the log, not to the client.
        logger.error("internal error answering %s %s", request.method, request.url.path, exc_info=exc)
        body = {"error": "field 'server': internal error (the server's log has the details)", "field": "server"}
        # This answer comes from Starlette's outermost middleware, outside the guard: it adds nosniff itself.
        return JSONResponse(body, status_code=500, headers={NOSNIFF[0].decode(): NOSNIFF[1].decode()})

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

    @app.post(
        "/api/rollout",
        summary="a bounded rollout, one at a time (503 with Retry-After while another runs)",
        responses={503: {"description": "another rollout is running, or the weights file changed"}},
    )
    async def rollout(req: RolloutRequest, request: Request) -> dict[str, Any]:
        return await service.rollout(req, request.is_disconnected)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def board() -> HTMLResponse:
        return HTMLResponse(resources.files("service").joinpath("static", "index.html").read_text(encoding="utf-8"))

    app.add_middleware(Guard, max_body_bytes=MAX_BODY_BYTES, allowed_hosts=allowed_hosts)
    return app


@dataclass(frozen=True)
class ServeSettings:
    """What one server process is built from: its weights file (None: the shipped net), create_app's options,
    and the address it listens on (a loopback address turns on the Host check; None: no check)."""

    weights: str | None = None
    batching: bool = True
    max_rollout_trials: int = DEFAULT_MAX_ROLLOUT_TRIALS
    net_threads: int = 1
    max_rollout_seconds: float = DEFAULT_MAX_ROLLOUT_SECONDS
    host: str | None = None
    # Host names a loopback server answers besides its loopback names (a name in /etc/hosts, a proxy's)
    allowed_hosts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "allowed_hosts", tuple(self.allowed_hosts))  # JSON gives a list

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
        max_rollout_seconds=settings.max_rollout_seconds,
        allowed_hosts=loopback_hosts(settings.host, settings.allowed_hosts),
    )


def app_from_environment() -> FastAPI:
    """The application of the settings in this process's environment (``SETTINGS_ENV``): uvicorn's app factory."""
    return app_from_settings(ServeSettings.from_environ(os.environ))
