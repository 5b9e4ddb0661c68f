"""The Universal Backgammon Interface (UBGI): its words, its move format, and a player driving any UBGI engine.

UBGI (draft 0.01, github.com/oysteijo/Universal-Backgammon-Interface) is a line protocol on an
engine's stdin and stdout. The user interface sends ``ubgi``; the engine answers ``id name ...``,
``id author ...``, ``id version ...`` and ``readyok``. Then each position line (an XGID, or a FIBS
``board:`` line) is answered with the best action: a move (``8/5 6/5``; points from the mover's
view, ``bar``/``25`` and ``off``/``0``, every single-die hop written out, no ``*`` for hits, no
``(2)`` for repeats; the pairs separated by ``/``, ``-`` or a space), a blank line when no play
is legal, ``double`` or ``roll`` before the dice are rolled, ``take`` or ``drop`` to a double.
``sorry`` answers what the engine cannot do; ``stop`` and ``quit`` end a search and the engine.

Beyond the draft, as UCI engines and wildbg's UBGI engine do: ``isready`` (answered ``readyok``),
``setoption name NAME value VALUE``, ``newgame``, ``option name ...`` lines in the handshake, and
``beaver`` as the answer to a double where the position's rules allow beavers.

wildbg's UBGI engine speaks a UCI-like dialect instead (:class:`Dialect`): its handshake ends with
``ubgiok`` (then ``isready`` gets ``readyok``), and a move is asked with ``position gnubgid ID``,
``dice A B`` and ``go``, answered by ``info ...`` lines and ``bestmove MOVE`` (``pass`` for none)
or ``bestmoveid ID`` (the position after the move, the opponent on roll); errors are ``error ...``
lines. It asks no cube questions. :class:`UbgiEngine` tells the dialect from the handshake.

:class:`UbgiPlayer` (spec ``ubgi:COMMAND``) is a tournament player whose moves and cube decisions
come from the engine ``COMMAND`` starts: each question goes as an XGID (money play, or the match
score of the question), one line each, all the lines of a batch sent before the answers are read.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import subprocess
import threading
import weakref
from collections.abc import Sequence
from enum import StrEnum
from typing import IO

import numpy as np

from cube.match import MatchCube
from cube.states import CubeAction, CubeResponse, CubeState
from engine.errors import IllegalMove, InvalidMoveText, InvalidSpec
from engine.fibs import parse_external_reply
from engine.match import JACOBY_OFF_BIT, MatchState
from engine.notation import BAR, OFF, Move
from engine.position import Position
from players.base import CubeContext, Player
from players.processes import stop_process

SPEC_PREFIX = "ubgi:"
#: Seconds an engine may take to start and answer the handshake, and to answer one line.
STARTUP_TIMEOUT = 120.0
REPLY_TIMEOUT = 120.0


class UbgiWord(StrEnum):
    """The fixed words of the protocol, in both directions."""

    UBGI = "ubgi"
    ISREADY = "isready"
    READYOK = "readyok"
    UBGIOK = "ubgiok"
    SORRY = "sorry"
    STOP = "stop"
    QUIT = "quit"
    NEWGAME = "newgame"
    SETOPTION = "setoption"
    DOUBLE = "double"
    ROLL = "roll"
    TAKE = "take"
    DROP = "drop"
    BEAVER = "beaver"


#: The answers to a double and the responses they mean.
RESPONSES: dict[UbgiWord, CubeResponse] = {
    UbgiWord.TAKE: CubeResponse.TAKE,
    UbgiWord.DROP: CubeResponse.PASS,
    UbgiWord.BEAVER: CubeResponse.BEAVER,
}


class Dialect(StrEnum):
    """How an engine is asked for a move: the draft's position lines, or the UCI-like ``position``/``go``."""

    DRAFT = "draft"  # the handshake ends with readyok; a position line is answered with the action
    UCI = "uci"  # the handshake ends with ubgiok; position gnubgid, dice, go, answered with bestmove


class UbgiError(RuntimeError):
    """An engine that cannot be started, stops answering, or answers outside the protocol."""


def _point_word(point: int) -> str:
    return "bar" if point == BAR else "off" if point == OFF else str(point)


def format_move(move: Move) -> str:
    """A play in UBGI's format: every single-die hop as ``from/to`` (``bar``, ``off``), no hit marks; "" for none."""
    return " ".join(f"{_point_word(a)}/{_point_word(b)}" for a, b in move.hops)


_PAIR_SEPARATORS = re.compile(r"[/-]")
_POINT_TOKEN = re.compile(r"^(?:bar|off|\d{1,2})$")


def parse_move(text: str, position: Position, dice: tuple[int, int]) -> Position:
    """The child (opponent's view) of ``position`` (side on roll's view) that a UBGI move plays with ``dice``.

    Accepts ``8/5 6/5``, ``8-5 6-5`` and ``8 5 6 5``, ``bar``/``25`` and ``off``/``0``; a blank
    line plays nothing (legal only when no play is). Raises InvalidMoveText or IllegalMove naming it.
    """
    tokens = text.split()
    if tokens and not any(_PAIR_SEPARATORS.search(t) for t in tokens):
        if len(tokens) % 2 or not all(_POINT_TOKEN.match(t) for t in tokens):
            raise InvalidMoveText(f"UBGI move {text!r} is not pairs of points (e.g. 8/5 6/5 or 8 5 6 5)")
        tokens = [f"{tokens[k]}/{tokens[k + 1]}" for k in range(0, len(tokens), 2)]
    if any("*" in t or "(" in t for t in tokens):
        raise InvalidMoveText(f"UBGI move {text!r} marks hits or repeats, which UBGI writes out")
    try:
        return parse_external_reply(" ".join(tokens), position, dice)
    except (IllegalMove, InvalidMoveText) as exc:
        detail = str(exc).replace("gnubg reply", "move")
        raise type(exc)(f"UBGI move {text!r} with {dice[0]}-{dice[1]} in {position.id}: {detail}") from None


def spec_command(spec: str) -> list[str]:
    """The command line of a ``ubgi:COMMAND`` spec, split as a shell would; raises InvalidSpec."""
    body = spec.strip()[len(SPEC_PREFIX) :]
    try:
        argv = shlex.split(body)
    except ValueError as exc:
        raise InvalidSpec(f"player spec {spec!r}: cannot split the command ({exc})") from None
    if not argv:
        raise InvalidSpec(f"player spec {spec!r} names no command (ubgi:COMMAND, e.g. 'ubgi:jumpgammon ubgi')")
    return argv


def _reap(proc: subprocess.Popen[str]) -> None:
    """End an engine process this module started: ``quit``, then terminate, then kill."""
    if proc.poll() is not None:
        return
    with contextlib.suppress(OSError, ValueError):
        assert proc.stdin is not None
        proc.stdin.write("quit\n")
        proc.stdin.flush()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        stop_process(proc)


class UbgiEngine:
    """One UBGI engine process: the handshake, then position lines answered one line each.

    ``identity`` holds the handshake's ``id`` fields (name, author, version). The process is
    ended when this object is closed or collected, or when the interpreter exits.
    """

    def __init__(self, argv: Sequence[str], label: str | None = None, startup_timeout: float = STARTUP_TIMEOUT) -> None:
        self.label = label or " ".join(argv)
        try:
            self.proc: subprocess.Popen[str] = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        except OSError as exc:
            raise UbgiError(f"UBGI engine {self.label!r} cannot be started: {exc.strerror or exc}") from None
        self._finalizer = weakref.finalize(self, _reap, self.proc)
        self.identity: dict[str, str] = {}
        self.options: list[str] = []
        self.dialect = Dialect.DRAFT
        self._handshake(startup_timeout)

    def _readline(self, timeout: float) -> str:
        """The engine's next line (without the newline); raises UbgiError if it ends or takes too long."""
        out: IO[str] | None = self.proc.stdout
        assert out is not None
        box: list[str] = []
        reader = threading.Thread(target=lambda: box.append(out.readline()), daemon=True)
        reader.start()
        reader.join(timeout)
        if reader.is_alive():
            self.close()
            raise UbgiError(f"UBGI engine {self.label!r} gave no answer in {timeout:g} s")
        if not box or not box[0]:
            raise UbgiError(f"UBGI engine {self.label!r} ended (exit status {self.proc.poll()})")
        return box[0].rstrip("\r\n")

    def send(self, lines: Sequence[str]) -> None:
        """Write lines to the engine; raises UbgiError if it has gone."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write("".join(f"{line}\n" for line in lines))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            status = self.proc.poll()
            raise UbgiError(f"UBGI engine {self.label!r} is no longer reading (exit status {status})") from None

    def _handshake(self, timeout: float) -> None:
        self.send([UbgiWord.UBGI])
        while True:
            line = self._readline(timeout).strip()
            if line.startswith("id "):
                key, _, value = line[3:].partition(" ")
                self.identity[key] = value
            elif line.startswith("option "):
                self.options.append(line)
            elif line == UbgiWord.READYOK:
                return
            elif line == UbgiWord.UBGIOK:
                self.dialect = Dialect.UCI
                self.send([UbgiWord.ISREADY])
            elif line == UbgiWord.SORRY:
                raise UbgiError(f"UBGI engine {self.label!r} answered sorry to ubgi")

    def set_option(self, name: str, value: str) -> None:
        """``setoption name NAME value VALUE``, confirmed by ``isready``; raises UbgiError if refused."""
        self.send([f"setoption name {name} value {value}", UbgiWord.ISREADY])
        line = self._readline(REPLY_TIMEOUT).strip()
        if line != UbgiWord.READYOK:
            raise UbgiError(f"UBGI engine {self.label!r} refused option {name}={value!r} ({line!r})")
        return

    def ask(self, lines: Sequence[str]) -> list[str]:
        """One answer line per position line, the lines sent together; raises UbgiError on ``sorry``."""
        self.send(lines)
        answers = [self._readline(REPLY_TIMEOUT).strip() for _ in lines]
        for line, answer in zip(lines, answers, strict=True):
            if answer == UbgiWord.SORRY:
                raise UbgiError(f"UBGI engine {self.label!r} answered sorry to {line!r}")
        return answers

    def ask_moves(self, questions: Sequence[tuple[Position, tuple[int, int]]]) -> list[Position]:
        """The engine's child (opponent's view) of each (position, dice), asked in the engine's dialect.

        Raises UbgiError for an error answer, IllegalMove or InvalidMoveText for a move that is not legal.
        """
        if self.dialect is Dialect.DRAFT:
            states = [money_state(CubeState.CENTERED, False, dice=d) for _, d in questions]
            lines = [p.to_xgid(s) for (p, _), s in zip(questions, states, strict=True)]
            answers = self.ask(lines)
            return [parse_move(a, p, d) for a, (p, d) in zip(answers, questions, strict=True)]
        lines = [line for p, d in questions for line in (f"position gnubgid {p.id}", f"dice {d[0]} {d[1]}", "go")]
        self.send(lines)
        return [self._best_move(p, d) for p, d in questions]

    def _best_move(self, position: Position, dice: tuple[int, int]) -> Position:
        """Read the UCI-like dialect's answer to one ``go``: ``info`` lines, then ``bestmove`` or ``bestmoveid``."""
        while True:
            line = self._readline(REPLY_TIMEOUT).strip()
            word, _, rest = line.partition(" ")
            if word == "bestmove":
                return parse_move("" if rest.strip() == "pass" else rest, position, dice)
            if word == "bestmoveid":
                child = Position.from_id(rest.strip())
                if child not in position.children(dice):
                    raise IllegalMove(f"UBGI engine {self.label!r}: {line!r} is no play of {dice} in {position.id}")
                return child
            if word == "error" or line == UbgiWord.SORRY:
                raise UbgiError(f"UBGI engine {self.label!r} answered {line!r} to go in {position.id} with {dice}")

    def close(self) -> None:
        """End the engine process (``quit``, then terminate); safe to call twice."""
        self._finalizer()


def _xgid(board: np.ndarray, match: MatchState, beavers: bool = False) -> str:
    """The XGID of a board seen by ``match.on_roll``."""
    return Position(board).to_xgid(match, beavers=beavers)


def money_state(
    cube_state: CubeState | str, jacoby: bool, *, dice: tuple[int, int] = (0, 0), doubled: bool = False
) -> MatchState:
    """A money-game state with player 1 on roll (the doubler while ``doubled``) at a cube state of its own view.

    The cube is 1 when centred and 2 when the side on roll owns it (equities are per unit cube).
    """
    state = CubeState(cube_state)
    owner = None if state is CubeState.CENTERED else 1 if state is CubeState.OWNED else 0
    return MatchState(
        cube=1 if owner is None else 2,
        cube_owner=owner,
        on_roll=1,
        turn=0 if doubled else 1,
        doubled=doubled,
        dice=dice,
        extra_bits=0 if jacoby else JACOBY_OFF_BIT,
    )


def match_state_of(cube: MatchCube, *, doubled: bool = False) -> MatchState:
    """A match state with player 1 on roll at ``cube``'s score (the shortest match giving it) and cube."""
    s = cube.score
    length = max(s.away, s.opp_away)
    owner = None if cube.state is CubeState.CENTERED else 1 if cube.state is CubeState.OWNED else 0
    return MatchState(
        cube=cube.value,
        cube_owner=owner,
        on_roll=1,
        turn=0 if doubled else 1,
        crawford=s.crawford,
        doubled=doubled,
        match_length=length,
        score=(length - s.opp_away, length - s.away),
        extra_bits=JACOBY_OFF_BIT,
    )


class UbgiPlayer(Player):
    """A tournament player whose moves and (with ``cube``) cube decisions come from a UBGI engine.

    Moves are asked in money play with the cube centred (the player interface carries no score to
    checker play); with ``cube`` the engine is asked whether to double and whether to take, in money
    play at the game's cube state and rules or at the match score. Without it the player never
    doubles and always takes.
    """

    def __init__(self, engine: UbgiEngine, name: str, cube: bool) -> None:
        super().__init__(name)
        self.engine = engine
        self.cube = cube

    def choose_moves(self, boards: np.ndarray, dice: np.ndarray) -> np.ndarray:
        """The engine's child (opponent's view) of each (board, dice) pair."""
        boards = np.ascontiguousarray(boards, dtype=np.int8)
        out = np.empty_like(boards)
        todo: list[int] = []
        questions: list[tuple[Position, tuple[int, int]]] = []
        for i, (board, roll) in enumerate(zip(boards, np.asarray(dice), strict=True)):
            position = Position(board)
            if position.is_over():
                out[i] = position.flip().array
                continue
            todo.append(i)
            questions.append((position, (int(max(roll)), int(min(roll)))))
        children = self.engine.ask_moves(questions) if questions else []
        for i, child in zip(todo, children, strict=True):
            out[i] = child.array
        return out

    def _cube_words(self, lines: list[str], allowed: frozenset[str], question: str) -> list[str]:
        answers = self.engine.ask(lines)
        for line, answer in zip(lines, answers, strict=True):
            if answer not in allowed:
                raise UbgiError(f"UBGI engine {self.engine.label!r} answered {answer!r} to the {question} {line!r}")
        return answers

    def double_actions(self, boards: np.ndarray, context: CubeContext) -> np.ndarray:
        """The engine's ``double`` or ``roll`` per board (side on roll, before rolling); never without ``cube``.

        Asked in money play at the game's cube state and rules, or at the position's match cube.
        """
        if not self.cube or not len(boards):
            return super().double_actions(boards, context)
        if context.cubes is not None:
            lines = [_xgid(b, match_state_of(c)) for b, c in zip(boards, context.cubes, strict=True)]
        else:
            lines = [
                _xgid(b, money_state(s, context.jacoby), context.beavers)
                for b, s in zip(boards, context.states, strict=True)
            ]
        words = self._cube_words(lines, frozenset({UbgiWord.DOUBLE, UbgiWord.ROLL}), "double question")
        return np.array([CubeAction.DOUBLE if w == UbgiWord.DOUBLE else CubeAction.NO_DOUBLE for w in words])

    def double_responses(self, boards: np.ndarray, doubler: CubeContext) -> np.ndarray:
        """The engine's ``take``, ``drop`` or ``beaver`` per board seen by the doubled side; take without ``cube``."""
        if not self.cube or not len(boards):
            return super().double_responses(boards, doubler)
        flipped = [-np.asarray(b)[::-1] for b in boards]
        if doubler.cubes is not None:
            lines = [_xgid(b, match_state_of(c, doubled=True)) for b, c in zip(flipped, doubler.cubes, strict=True)]
        else:
            lines = [
                _xgid(b, money_state(s, doubler.jacoby, doubled=True), doubler.beavers)
                for b, s in zip(flipped, doubler.states, strict=True)
            ]
        words = self._cube_words(lines, frozenset(RESPONSES), "double")
        return np.array([RESPONSES[UbgiWord(w)] for w in words])


def make_ubgi_player(spec: str, cube: str) -> UbgiPlayer:
    """The player of a ``ubgi:COMMAND`` spec; ``cube`` is ``none`` or ``gnubg`` (the engine's own cube decisions).

    Raises InvalidSpec naming the spec when the command cannot be started or does not speak UBGI.
    """
    argv = spec_command(spec)
    if cube.strip() not in ("none", "gnubg"):
        raise InvalidSpec(f"player {spec!r} decides the cube itself: its cube spec is none or gnubg, not {cube!r}")
    try:
        engine = UbgiEngine(argv, label=" ".join(argv))
    except UbgiError as exc:
        raise InvalidSpec(f"player spec {spec!r}: {exc}") from None
    own = cube.strip() == "gnubg"
    if own and engine.dialect is Dialect.UCI:
        engine.close()
        raise InvalidSpec(
            f"player spec {spec!r}: the engine speaks the position/go dialect, in which this player asks no cube "
            "questions: give it the cube spec none"
        )
    return UbgiPlayer(engine, spec.strip() + (" [engine's cube]" if own else ""), own)
