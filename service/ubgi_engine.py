"""``jumpgammon ubgi``: this engine speaking the Universal Backgammon Interface on stdin and stdout.

The protocol and its words are in :mod:`players.ubgi`. Each line is answered as the draft says
(nothing is initialised before ``ubgi``; the nets load then, or at the first position):

- ``ubgi``: ``id name``, ``id author``, ``id version``, the ``option`` lines, ``readyok``;
- ``isready``: ``readyok``; ``newgame``, ``ubginewgame``, ``stop``: nothing (the engine keeps no
  game state and answers each position at once); ``quit`` (or the end of input): exit;
- ``setoption name NAME value VALUE``: nothing, or ``sorry`` for an unknown option or value;
- a position, as an XGID (``XGID=`` optional) or a FIBS ``board:`` line, at any match score: with
  dice, the best move (a blank line when none is legal); without dice (``00``), ``double`` or
  ``roll``; with a double offered (XGID dice ``D``), ``take``, ``drop`` or, where the XGID's rules
  allow beavers, ``beaver``;
- wildbg's dialect too: ``position gnubgid ID`` (or ``xgid X``, ``fibs board:...``) and ``dice A B``
  set a position (nothing answers), ``go`` answers ``bestmove MOVE`` (``pass`` for no play),
  ``go role cube`` ``bestmove double`` (roll, take, drop, beaver);
- anything else, or a position that cannot be read or played: ``sorry``, with the reason as one
  line on stderr. No input ends the engine but ``quit`` and the end of input. A refused position or
  ``dice`` line (either dialect) forgets the position set before it, so a later ``go`` answers ``sorry``
  rather than for the old position.

Checker play is the net's at the ``Plies`` option, by cubeless money equity, as ``net@PLY``
players play in tournaments. Cube decisions with ``CubeModel gnubg`` (the default) are GNU
Backgammon's cube model on the net's probabilities at the same depth, from
:mod:`nets.cube_advice` (money: :func:`~nets.cube_advice.money_cube_advice`, with the Jacoby rule
and beavers the position gives; at a match score: :func:`~nets.cube_advice.match_cube_advice`
with the ``MET`` table); ``CubeModel none`` never doubles and always takes.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from enum import StrEnum
from importlib import metadata
from pathlib import Path
from typing import TextIO

import numba
import numpy as np

from cube.met import DEFAULT_MET, PUBLISHED_METS, MatchEquityTable, met_by_name
from cube.states import CubeState
from engine.batch import parse_id_pair
from engine.errors import JumpgammonError, NotSupported
from engine.fibs import FibsBoard
from engine.match import JACOBY_OFF_BIT, MatchState
from engine.position import Position, check_dice
from engine.xgid import looks_like_xgid, parse_xgid
from nets.analysis import cube_state_of, match_cube_of
from nets.cube_advice import CubeAdvice, match_cube_advice, money_cube_advice
from nets.evaluator import Evaluator, load_evaluator
from nets.lookahead import best_children_plies, evaluate_plies
from players.ubgi import UbgiWord, format_move

NAME = "jumpgammon"
AUTHOR = "the jumpgammon authors"
MAX_PLIES = 2


def _version() -> str:
    """This package's version, as installed."""
    try:
        return metadata.version("jumpgammon")
    except metadata.PackageNotFoundError:  # pragma: no cover - run from a checkout without installing
        return "unknown"


class CubeModel(StrEnum):
    """How the engine decides the cube."""

    GNUBG = "gnubg"  # GNU Backgammon's model on the net's probabilities (nets.cube_advice)
    NONE = "none"  # never doubles, always takes


@dataclass
class EngineOptions:
    """The engine's options (``setoption``); ``jacoby`` and ``beavers`` apply to FIBS boards and gnubg IDs where the
    ID does not say (a bare position ID's Jacoby rule; beavers in money play), XGIDs carry their own."""

    plies: int = 0
    cube_model: CubeModel = CubeModel.GNUBG
    weights: Path | None = None
    met: str = DEFAULT_MET
    jacoby: bool = False
    beavers: bool = False


@dataclass(frozen=True)
class Question:
    """A position line read: the board seen by the player on roll (the doubler with a double offered), the state."""

    position: Position
    match: MatchState
    beavers: bool


def read_position_line(line: str, options: EngineOptions) -> Question:
    """The question a position line asks; raises a JumpgammonError naming the line."""
    text = line.strip()
    if text.startswith("board:"):
        board = FibsBoard.parse(text)
        if board.was_doubled or not (board.player_may_double or board.opponent_may_double):
            raise NotSupported(f"FIBS board {text!r} holds a pending double: send it as an XGID with dice D")
        match = board.match_state(jacoby=options.jacoby).check_playable()
        return Question(board.position(), match, options.beavers and match.match_length == 0)
    if not looks_like_xgid(text):
        raise NotSupported(f"{text!r} is not a UBGI command, an XGID or a FIBS board")
    xgid = parse_xgid(text)
    match = MatchState.from_xgid(xgid).check_playable(text)
    return Question(Position.from_xgid(xgid), match, xgid.beavers)


class Engine:
    """The engine's state between lines: its options, its net (loaded on ``ubgi`` or at the first position)."""

    def __init__(self, options: EngineOptions | None = None) -> None:
        self.options = options if options is not None else EngineOptions()
        self._evaluator: Evaluator | None = None
        self._met: MatchEquityTable | None = None
        self._set_up: Question | None = None  # the position of wildbg's dialect (position ... / dice ...)

    @property
    def evaluator(self) -> Evaluator:
        """The net of the ``Weights`` option, loaded once."""
        if self._evaluator is None:
            self._evaluator = load_evaluator(self.options.weights)
        return self._evaluator

    @property
    def met(self) -> MatchEquityTable:
        """The match equity table of the ``MET`` option."""
        if self._met is None:
            self._met = met_by_name(self.options.met)
        return self._met

    def handshake(self) -> list[str]:
        """The answer to ``ubgi``: identification, options, ``readyok``; loads the net."""
        _ = self.evaluator
        o = self.options
        mets = " ".join(f"var {name}" for name in PUBLISHED_METS)
        return [
            f"id name {NAME}",
            f"id author {AUTHOR}",
            f"id version {_version()}",
            f"option name Plies type spin default {o.plies} min 0 max {MAX_PLIES}",
            f"option name CubeModel type combo default {o.cube_model} " + " ".join(f"var {m}" for m in CubeModel),
            f"option name Weights type string default {o.weights if o.weights is not None else '<shipped>'}",
            f"option name MET type combo default {o.met} {mets}",
            f"option name Jacoby type check default {str(o.jacoby).lower()}",
            f"option name Beavers type check default {str(o.beavers).lower()}",
            UbgiWord.READYOK,
        ]

    def set_option(self, text: str) -> None:
        """Apply ``setoption name NAME value VALUE``; raises NotSupported naming the option or the value."""
        body = text.strip()[len(UbgiWord.SETOPTION) :].strip()
        if not body.startswith("name "):
            raise NotSupported(f"{text.strip()!r} is not 'setoption name NAME value VALUE'")
        name, sep, value = body[len("name ") :].partition(" value ")
        name, value = name.strip().lower(), value.strip()
        if not sep or not value:
            raise NotSupported(f"{text.strip()!r} gives no value")
        o = self.options
        if name == "plies":
            if value not in {str(p) for p in range(MAX_PLIES + 1)}:
                raise NotSupported(f"option Plies {value!r} is not 0 to {MAX_PLIES}")
            self.options = replace(o, plies=int(value))
        elif name == "cubemodel":
            if value not in set(CubeModel):
                raise NotSupported(f"option CubeModel {value!r} is not one of {', '.join(CubeModel)}")
            self.options = replace(o, cube_model=CubeModel(value))
        elif name == "weights":
            weights = None if value == "<shipped>" else Path(value)
            evaluator = load_evaluator(weights)  # refuses a bad file before anything changes
            self.options, self._evaluator = replace(o, weights=weights), evaluator
        elif name == "met":
            table = met_by_name(value)
            self.options, self._met = replace(o, met=value), table
        elif name in ("jacoby", "beavers"):
            if value not in ("true", "false"):
                raise NotSupported(f"option {name} {value!r} is not true or false")
            flag = value == "true"
            self.options = replace(o, jacoby=flag) if name == "jacoby" else replace(o, beavers=flag)
        else:
            raise NotSupported(f"unknown option {name!r} (Plies, CubeModel, Weights, MET, Jacoby, Beavers)")

    def probabilities(self, position: Position) -> np.ndarray:
        """The net's five probabilities for the side on roll at the ``Plies`` depth."""
        return evaluate_plies(self.evaluator, position.array[None], self.options.plies)[0]

    def advice(self, position: Position, match: MatchState, beavers: bool) -> CubeAdvice:
        """gnubg's cube model on the net's probabilities for the side on roll (money or at the match score)."""
        probs = self.probabilities(position)
        if match.match_length > 0:
            return match_cube_advice(position.array, probs, self.met, match_cube_of(match, self.met))
        return money_cube_advice(position.array, probs, cube_state_of(match), jacoby=match.jacoby, beavers=beavers)

    def best_action(self, q: Question) -> str:
        """The answer to a position: a move ("" for none), ``double``/``roll`` or ``take``/``drop``/``beaver``."""
        if q.position.is_over():
            raise NotSupported(f"{q.position.id}: the game is over, a side has no checkers left")
        if q.match.doubled:
            if self.options.cube_model is CubeModel.NONE:
                return UbgiWord.TAKE
            action = self.advice(q.position, q.match, q.beavers).action
            if not action.takes:
                return UbgiWord.DROP
            return UbgiWord.BEAVER if q.beavers and "beaver" in action.value else UbgiWord.TAKE
        if q.match.dice == (0, 0):
            if self.options.cube_model is CubeModel.NONE or cube_state_of(q.match) is CubeState.UNAVAILABLE:
                return UbgiWord.ROLL
            return UbgiWord.DOUBLE if self.advice(q.position, q.match, q.beavers).action.doubles else UbgiWord.ROLL
        dice = q.match.dice
        chosen = best_children_plies(self.evaluator, q.position.array[None], np.array([dice]), self.options.plies)[0]
        for move, child in q.position.plays(dice):
            if np.array_equal(child.array, chosen):
                return format_move(move)
        raise AssertionError(f"the chosen child of {q.position.id} with {dice} is not a legal play")  # pragma: no cover

    def answer(self, line: str) -> list[str]:
        """The lines that answer one input line (raises JumpgammonError/ValueError for ``sorry``)."""
        text = line.strip()
        word = text.split(" ", 1)[0] if text else ""
        if word == UbgiWord.UBGI and text == word:
            return self.handshake()
        if text == UbgiWord.ISREADY:
            return [UbgiWord.READYOK]
        if text in (UbgiWord.NEWGAME, "ubginewgame") or not text:
            self._set_up = None
            return []
        if text == UbgiWord.STOP:
            return []
        if word == UbgiWord.SETOPTION:
            self.set_option(text)
            return []
        try:
            if word in ("position", "dice", "go"):
                return self._uci_dialect(word, text)
            return [self.best_action(read_position_line(text, self.options))]
        except Exception:
            if word in ("position", "dice") or text.startswith("board:") or looks_like_xgid(text):
                # a refused position or dice line forgets the position set: a later go must not answer for it
                self._set_up = None
            raise

    def _uci_dialect(self, word: str, text: str) -> list[str]:
        """wildbg's dialect: ``position gnubgid ID`` (or ``xgid X``, ``fibs board:...``), ``dice A B``, ``go``.

        ``go`` (``go role chequer``) answers ``bestmove MOVE`` (``pass`` when no play is legal);
        ``go role cube`` answers ``bestmove`` with double/roll, or take/drop/beaver to a double offered.
        """
        rest = text[len(word) :].strip()
        if word == "position":
            kind, _, value = rest.partition(" ")
            if kind not in ("gnubgid", "xgid", "fibs"):
                raise NotSupported(f"{text!r}: a position is given as gnubgid ID, xgid XGID or fibs board:...")
            if kind == "gnubgid":  # a match ID holds the Jacoby rule but not beavers: the options give what it lacks
                position, match = parse_id_pair(value)
                jacoby_bit = 0 if self.options.jacoby else JACOBY_OFF_BIT
                state = match if match is not None else MatchState(on_roll=1, turn=1, extra_bits=jacoby_bit)
                beavers = self.options.beavers and state.match_length == 0
                question = Question(position, state.check_playable(value.strip()), beavers)
            else:
                question = read_position_line(value, self.options)
            self._set_up = question
            return []
        if self._set_up is None:
            raise NotSupported(f"{text!r}: no position set (position gnubgid ID first)")
        if word == "dice":
            dice = check_dice(tuple(int(d) for d in rest.split()) if all(d.isdigit() for d in rest.split()) else ())
            if self._set_up.match.doubled:
                raise NotSupported(f"{text!r}: the position set has a double offered, not a roll to play")
            self._set_up = replace(self._set_up, match=self._set_up.match.with_(dice=(max(dice), min(dice))))
            return []
        if rest in ("", "role chequer"):
            if self._set_up.match.dice == (0, 0) or self._set_up.match.doubled:
                raise NotSupported(f"{text!r}: no dice set for the position (dice A B first)")
            return [f"bestmove {self.best_action(self._set_up) or 'pass'}"]
        if rest == "role cube":
            undecided = self._set_up.match if self._set_up.match.doubled else self._set_up.match.with_(dice=(0, 0))
            return [f"bestmove {self.best_action(replace(self._set_up, match=undecided))}"]
        raise NotSupported(f"{text!r}: go takes no options but role chequer or role cube")


@dataclass
class Session:
    """Counts of one stdin/stdout session, for the tests: lines read, answered ``sorry``."""

    lines: int = 0
    sorry: int = 0
    reasons: list[str] = field(default_factory=list)


def serve(stdin: TextIO, stdout: TextIO, stderr: TextIO, engine: Engine | None = None) -> Session:
    """Answer UBGI lines from ``stdin`` on ``stdout`` until ``quit`` or the end of input; returns the counts.

    The reason for each ``sorry`` goes to ``stderr`` as one line.
    """
    engine = engine if engine is not None else Engine()
    session = Session()
    for raw in stdin:
        session.lines += 1
        if raw.strip() == UbgiWord.QUIT:
            break
        try:
            out = engine.answer(raw)
        except (JumpgammonError, ValueError, OSError) as exc:
            out = [UbgiWord.SORRY]
            reason = " ".join(str(exc).split())
        except Exception as exc:  # a bug must not end the engine: answer sorry, report it on stderr
            out = [UbgiWord.SORRY]
            reason = f"internal error: {type(exc).__name__}: {exc}"
        else:
            reason = ""
        if reason:
            session.sorry += 1
            session.reasons.append(reason)
            print(f"jumpgammon ubgi: error: {reason}", file=stderr, flush=True)
        for line in out:
            stdout.write(f"{line}\n")
        stdout.flush()
    return session


def main(options: EngineOptions) -> int:
    """Run the engine on this process's stdin and stdout; returns exit status 0.

    Each question is one position, so the net runs on one thread: numba's thread pool costs more than
    it gains on a batch that small, and far more on a busy machine (ten times, measured with other jobs).
    """
    numba.set_num_threads(1)
    serve(sys.stdin, sys.stdout, sys.stderr, Engine(options))
    return 0
