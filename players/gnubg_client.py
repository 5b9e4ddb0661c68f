"""A client for GNU Backgammon 1.07's ``external`` mode: FIBS boards over TCP, localhost only, and the process.

The protocol layer under :mod:`players.gnubg_external` (the player).

Protocol, as observed with gnubg 1.07.001 (``tests/fixtures/gnubg_fibs_external.json``):

- ``external localhost:PORT`` (here from a command file, ``gnubg -t -q -c FILE``) listens for
  one client at a time; after a client leaves (or sends ``exit``) gnubg listens again, so it
  never ends by itself: this class terminates the process it started.
- Strictly one request line, then one reply line. gnubg reads a request into a 256-byte
  buffer: a line over 254 characters crashes it (buffer overflow), and a second line sent
  before the reply to the first is lost. Requests are therefore checked and never pipelined.
- Requests: a FIBS ``board:...`` line, optionally followed by session options ``jacobyrule
  on|off`` and ``crawfordrule on|off`` (both honoured; ``beavers on|off`` is accepted but
  ignored, gnubg's global ``set beavers N`` decides; ``resignation N`` gets accept/reject);
  ``evaluation fibsboard board:... [plies N] [cubeful|cubeless] [noise F] [deterministic
  on|off] [prune on|off] [session options]`` (reply: five probabilities, then the equity, or
  the match-winning chance in match play); ``set debug on|off`` (before each reply, the board
  as gnubg read it with its position and match IDs, on lines starting ``DBG:``); ``set
  interface new|old``, ``set prompt X``, ``version`` (four lines), ``help``, ``exit``. No other
  ``set`` commands and no hint or rollout requests; errors come back as ``Error: ...``.
- Replies: a move in gnubg's plain notation (``8/7* 7/6 6/5 6/5``, 25 = bar, 0 = off, empty
  when no play is legal; see ``engine.fibs.parse_external_reply``); with dice 0 0 ``double`` or
  ``roll``; for a pending double ``take``, ``drop`` or ``beaver``.
- gnubg does not check cube access: asked with the cube on the opponent's side it still
  answers ``double`` where it would like to, so ``double_decision`` does not ask then.
- Evaluation settings are gnubg's global ``eval``/``hint`` ones (``set evaluation chequerplay
  evaluation plies N`` etc., default 2-ply); the ``set player ...`` settings are not used. They
  can only be given before ``external``, so this class writes them into the command file.
- gnubg 1.07 swaps the two match scores when it chooses a move, decides whether to double or
  evaluates (its debug view and its take decisions read them the FIBS way: the player's score
  first). Checked against gnubg's own ``hint`` in normal mode: sent as FIBS defines them, 24 of
  118 double decisions and 44 of 242 moves in 5-point matches disagreed; with the scores swapped
  for those requests every double decision and every move but three equal-equity ties agreed.
  Take decisions agreed in all 118 cases as sent, in 99 with the scores swapped, so they are
  sent as they are. ``swap_match_scores`` (on by default) applies this workaround.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import tempfile
import time
import weakref
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import Literal, TypedDict, Unpack

from cube.states import CubeResponse
from engine.fibs import MONEY, FibsBoard, parse_external_reply
from engine.position import Position
from players.processes import stop_process

GNUBG = os.environ.get("JUMPGAMMON_GNUBG", "/usr/games/gnubg")  # the executable used unless told otherwise
MAX_LINE = 254  # longest request gnubg 1.07 reads safely (its buffer is 256 bytes with "\n" and NUL)
LOCAL_HOSTS = ("127.0.0.1", "localhost")
DOUBLE_REPLIES = frozenset({"double", "roll"})
#: gnubg's words for the answers to a pending double, and the responses they mean.
GNUBG_RESPONSES: dict[str, CubeResponse] = {
    "take": CubeResponse.TAKE,
    "drop": CubeResponse.PASS,
    "beaver": CubeResponse.BEAVER,
}
TAKE_REPLIES = frozenset(GNUBG_RESPONSES)
Owner = Literal["centre", "player", "opponent"]


class DecisionContext(TypedDict, total=False):
    """The game around a decision: cube value and holder, match length and score (own first), Crawford."""

    cube: int
    owner: Owner
    match_length: int
    score: tuple[int, int]
    crawford: bool


class GnubgExternalError(RuntimeError):
    """gnubg could not be started or reached, closed the connection, or answered with an error."""


class GnubgReplyError(ValueError):
    """gnubg's reply is not what the request allows (an illegal move, an unknown cube word)."""


def free_local_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _on_off(flag: bool) -> str:
    """gnubg's word for a boolean setting."""
    return "on" if flag else "off"


def evaluation_commands(
    plies: int, cube_plies: int, *, noise: float, deterministic: bool, prune: bool, cubeful: bool
) -> list[str]:
    """gnubg commands setting the chequer-play and cube evaluation that external mode uses."""
    out = []
    for kind, n in (("chequerplay", plies), ("cubedecision", cube_plies)):
        if not 0 <= n <= 4:
            raise ValueError(f"gnubg plies must be 0-4, got {n}")
        base = f"set evaluation {kind} evaluation"
        out += [
            f"{base} plies {n}",
            f"{base} prune {_on_off(prune)}",
            f"{base} cubeful {_on_off(cubeful)}",
            f"{base} noise {noise:.6f}",
            f"{base} deterministic {_on_off(deterministic)}",
        ]
    return out


def _reap(proc: subprocess.Popen[bytes] | None) -> None:
    """Terminate a gnubg process this module started, killing it if it lingers."""
    stop_process(proc)


class GnubgExternal:
    """A gnubg 1.07 player over its external socket; positions are from the side on roll's view.

    Launches ``gnubg -t -q -c FILE`` on a free 127.0.0.1 port (or, with ``port`` and
    ``launch=False``, connects to one already listening there) and talks FIBS boards. Use it as
    a context manager: the process it started is always terminated. Fits ``engine.game.Player``
    (``choose``, ``offer_double``, ``accept_double``) for money games; match context goes to
    ``choose``/``double_decision``/``take_decision`` by keyword.
    """

    def __init__(
        self,
        *,
        plies: int = 0,
        cube_plies: int | None = None,
        noise: float = 0.0,
        deterministic: bool = True,
        prune: bool = True,
        cubeful: bool = True,
        jacoby: bool = False,
        beavers: bool = False,
        crawford_rule: bool = True,
        swap_match_scores: bool = True,
        host: str = "127.0.0.1",
        port: int | None = None,
        launch: bool = True,
        executable: str = GNUBG,
        timeout: float = 60.0,
        startup_timeout: float = 60.0,
        debug: bool = False,
    ) -> None:
        if host not in LOCAL_HOSTS:
            raise ValueError(f"gnubg external mode is only used on localhost, not {host!r}")
        if not launch and port is None:
            raise ValueError("connecting to a running gnubg (launch=False) needs its port")
        self.commands = evaluation_commands(
            plies,
            plies if cube_plies is None else cube_plies,
            noise=noise,
            deterministic=deterministic,
            prune=prune,
            cubeful=cubeful,
        )
        if not beavers:
            self.commands.append("set beavers 0")  # the per-board ``beavers`` option is ignored by gnubg 1.07
        self.session = f"jacobyrule {_on_off(jacoby)} crawfordrule {_on_off(crawford_rule)}"
        self.swap_match_scores = swap_match_scores
        self.port, self.launch = port, launch
        self.executable, self.timeout, self.startup_timeout = executable, timeout, startup_timeout
        self.debug = debug
        self.last_debug: list[str] = []
        self._proc: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        self._buffer = b""
        self._workdir: tempfile.TemporaryDirectory[str] | None = None
        self._finalizer: weakref.finalize | None = None

    # --- lifetime -------------------------------------------------------------------------
    def __enter__(self) -> GnubgExternal:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def start(self) -> None:
        """Launch gnubg (unless connecting to a given port) and connect; raises GnubgExternalError."""
        if self._sock is not None:
            return
        try:
            if self.launch:
                self._launch_and_connect()
            else:
                assert self.port is not None
                self._sock = socket.create_connection(("127.0.0.1", self.port), timeout=self.startup_timeout)
            if self._sock is None:
                raise GnubgExternalError("no connection to gnubg")
            self._sock.settimeout(self.timeout)
            if self.debug:
                self._exchange("set debug on")
        except BaseException:
            self.close()
            raise

    def _launch_and_connect(self) -> None:
        """Start gnubg with the settings and ``external`` on a free port, and connect; raises GnubgExternalError."""
        if not Path(self.executable).exists():
            raise GnubgExternalError(f"gnubg not found at {self.executable}")
        self._workdir = tempfile.TemporaryDirectory(prefix="gnubg-external-")
        log_path = Path(self._workdir.name) / "gnubg.log"
        script = Path(self._workdir.name) / "external.cmd"
        chosen = self.port
        for _attempt in range(3):  # a free port can be taken before gnubg binds it: try another
            port = chosen or free_local_port()
            script.write_text("\n".join([*self.commands, f"external 127.0.0.1:{port}", ""]))
            self.close_process()
            with open(log_path, "wb") as log_file:
                proc = subprocess.Popen(
                    [self.executable, "-t", "-q", "-c", str(script)],
                    stdin=subprocess.DEVNULL,
                    stdout=log_file,
                    stderr=subprocess.STDOUT,
                    cwd=self._workdir.name,
                    start_new_session=True,
                )
            self._proc = proc
            self._finalizer = weakref.finalize(self, _reap, proc)
            deadline = time.monotonic() + self.startup_timeout
            while time.monotonic() < deadline and proc.poll() is None:
                try:
                    self._sock = socket.create_connection(("127.0.0.1", port), timeout=1.0)
                except OSError:
                    time.sleep(0.05)
                    continue
                self.port = port
                return
            if proc.poll() is None or chosen is not None:
                break  # still starting after the timeout, or the caller's port: do not retry
        self.close_process()
        log = log_path.read_text(errors="replace")[-2000:] if log_path.exists() else ""
        raise GnubgExternalError(f"gnubg did not start listening on 127.0.0.1 (its output: {log!r})")

    def close_process(self) -> None:
        """Terminate the gnubg process this object started, if any (the connection stays as it is)."""
        if self._finalizer is not None:
            self._finalizer()  # terminates the process, once
            self._finalizer = None
        self._proc = None

    def close(self) -> None:
        """Close the connection and terminate gnubg if this object started it."""
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.close()
            self._sock = None
        self.close_process()
        if self._workdir is not None:
            self._workdir.cleanup()
            self._workdir = None

    @property
    def pid(self) -> int | None:
        """The gnubg process id this object started, or None."""
        return self._proc.pid if self._proc is not None else None

    # --- raw protocol -----------------------------------------------------------------------
    def _broken(self, message: str) -> GnubgExternalError:
        """Close the connection (its replies can no longer be matched to requests); returns the error to raise."""
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.close()
            self._sock = None
        self._buffer = b""
        return GnubgExternalError(message)

    def _readline(self) -> str:
        """The next line gnubg sent, without its newline; raises GnubgExternalError (and disconnects)."""
        assert self._sock is not None
        while b"\n" not in self._buffer:
            try:
                chunk = self._sock.recv(65536)
            except TimeoutError:
                raise self._broken(f"gnubg sent no reply within {self.timeout} s") from None
            except OSError as exc:
                raise self._broken(f"reading from gnubg failed: {exc}") from None
            if not chunk:
                raise self._broken("gnubg closed the connection (did a request crash it?)")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode("utf-8", "replace")

    def _exchange(self, line: str, n_lines: int = 1) -> list[str]:
        """Send one request line; returns gnubg's reply lines (debug lines kept in ``last_debug``)."""
        if "\n" in line or "\r" in line:
            raise ValueError(f"a gnubg request is one line, got {line!r}")
        if len(line) > MAX_LINE:
            raise ValueError(f"gnubg 1.07 overflows on requests over {MAX_LINE} characters, got {len(line)}")
        if self._sock is None:
            raise GnubgExternalError("not connected to gnubg (use it as a context manager or call start())")
        try:
            self._sock.sendall(line.encode("ascii") + b"\n")
        except OSError as exc:
            raise self._broken(f"writing to gnubg failed: {exc}") from None
        self.last_debug = []
        reply: list[str] = []
        while len(reply) < n_lines:
            text = self._readline()
            if text.startswith("DBG:"):
                self.last_debug.append(text)
            else:
                reply.append(text)
        return reply

    def request(self, line: str) -> str:
        """gnubg's one-line reply to one request line, verbatim; raises GnubgExternalError on ``Error:``."""
        reply = self._exchange(line)[0]
        if reply.startswith("Error:"):
            raise GnubgExternalError(f"gnubg refused {line!r}: {reply}")
        return reply

    def version(self) -> dict[str, str]:
        """gnubg's ``version`` answer: Interface, RFBF, Engine and Software."""
        lines = self._exchange("version", n_lines=4)
        return dict(line.split(": ", 1) for line in lines if ": " in line)

    def _line(self, board: FibsBoard) -> str:
        """The request line for a board: the board and this session's rule options."""
        return f"{board} {self.session}"

    def _for_decision(self, board: FibsBoard) -> FibsBoard:
        """The board as sent for a move or double decision (match scores swapped, see the module notes)."""
        if self.swap_match_scores and board.match_length not in (0, MONEY):
            return replace(board, player_score=board.opponent_score, opponent_score=board.player_score)
        return board

    # --- decisions ----------------------------------------------------------------------------
    def move_reply(
        self,
        position: Position,
        dice: tuple[int, int],
        *,
        cube: int = 1,
        owner: Owner = "centre",
        match_length: int = MONEY,
        score: tuple[int, int] = (0, 0),
        crawford: bool = False,
    ) -> str:
        """gnubg's raw move text for the side on roll in ``position`` with ``dice`` (``score``: its own first)."""
        board = _decision_board(position, dice, cube, owner, match_length, score, crawford)
        return self.request(self._line(self._for_decision(board)))

    def choose(self, position: Position, dice: tuple[int, int], **context: Unpack[DecisionContext]) -> Position:
        """gnubg's play: one of ``position.children(dice)`` (opponent's view); raises GnubgReplyError.

        ``context``: the keywords of :meth:`move_reply` (cube, owner, match_length, score, crawford).
        """
        reply = self.move_reply(position, dice, **context)
        try:
            return parse_external_reply(reply, position, dice)
        except ValueError as exc:
            raise GnubgReplyError(f"gnubg's move {reply!r} for {position.id} with {dice}: {exc}") from None

    def _cube_word(self, board: FibsBoard, allowed: frozenset[str]) -> str:
        """gnubg's cube word for ``board``, one of ``allowed``; raises GnubgReplyError otherwise."""
        reply = self.request(self._line(board)).strip()
        if reply not in allowed:
            raise GnubgReplyError(f"gnubg answered {reply!r} where one of {sorted(allowed)} was expected")
        return reply

    def double_decision(
        self,
        position: Position,
        *,
        cube: int = 1,
        owner: Owner = "centre",
        match_length: int = MONEY,
        score: tuple[int, int] = (0, 0),
        crawford: bool = False,
    ) -> bool:
        """Whether gnubg, on roll in ``position`` before rolling, doubles (``owner``: who holds the cube).

        False without asking when the opponent owns the cube: gnubg 1.07 does not check cube
        access and would answer "double" where it would like to.
        """
        if owner == "opponent":
            return False
        board = _decision_board(position, (0, 0), cube, owner, match_length, score, crawford)
        return self._cube_word(self._for_decision(board), DOUBLE_REPLIES) == "double"

    def take_decision(
        self,
        position: Position,
        *,
        cube: int = 1,
        redouble: bool = False,
        match_length: int = MONEY,
        score: tuple[int, int] = (0, 0),
        crawford: bool = False,
    ) -> str:
        """gnubg's answer (take, drop or beaver) to a double by the side on roll in ``position``.

        ``cube`` is the value before the double; ``redouble``: the doubler owned it (else
        centred); ``score`` is the side being doubled's first (gnubg's).
        """
        board = FibsBoard.from_position(
            position,
            dice=(0, 0),
            cube=cube,
            doubled=True,
            player_may_double=not redouble,
            opponent_may_double=True,
            match_length=match_length,
            score=score,
            crawford=crawford,
        )
        return self._cube_word(board, TAKE_REPLIES)

    def evaluate(
        self,
        position: Position,
        *,
        plies: int = 0,
        cubeful: bool = False,
        match_length: int = MONEY,
        score: tuple[int, int] = (0, 0),
        crawford: bool = False,
    ) -> tuple[float, ...]:
        """gnubg's evaluation for the side on roll: five probabilities, then equity (MWC in match play)."""
        board = FibsBoard.from_position(
            position, dice=(0, 0), match_length=match_length, score=score, crawford=crawford
        )
        flag = "cubeful" if cubeful else "cubeless"
        reply = self.request(f"evaluation fibsboard {self._for_decision(board)} plies {plies} {flag} {self.session}")
        try:
            values = tuple(float(x) for x in reply.split())
        except ValueError:
            values = ()
        if len(values) != 6:
            raise GnubgReplyError(f"gnubg's evaluation {reply!r} is not six numbers")
        return values


def _decision_board(
    position: Position,
    dice: tuple[int, int],
    cube: int,
    owner: Owner,
    match_length: int,
    score: tuple[int, int],
    crawford: bool,
) -> FibsBoard:
    """The board asking the side on roll in ``position`` for a move (dice) or a double (0, 0)."""
    return FibsBoard.from_position(
        position,
        dice=dice,
        cube=cube,
        player_may_double=owner != "opponent",
        opponent_may_double=owner != "player",
        match_length=match_length,
        score=score,
        crawford=crawford,
    )


def gnubg_available(executable: str = GNUBG) -> bool:
    """True when the gnubg executable exists and is runnable."""
    return os.access(executable, os.X_OK)
