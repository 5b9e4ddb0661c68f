"""Game records played through the rules: every checker play and cube decision with its position and cube.

:func:`replay` walks each game of a :class:`~analysis.records.MatchRecord` from the starting
position, checks every event (turn order, legal plays, who may double, a response after each
double, a game that ends, scores below the match length) and returns the decisions to analyse:
a :class:`CheckerTurn` for every roll and a :class:`CubeTurn` before every roll where the side on
roll could double (none before a game's opening roll). Positions are seen by the side on roll.
Errors are :class:`~analysis.records.InvalidRecord` naming the file, the line (or game and
event), the move and why.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from analysis.records import Action, Event, GameRecord, InvalidRecord, MatchRecord, PointsDisagree
from cube.errors import CubeInputError
from cube.match import MatchCube, MatchScore
from cube.states import CubeState
from engine.errors import JumpgammonError
from engine.game import result_multiplier
from engine.position import Position

__all__ = ["CheckerTurn", "CubeContext", "CubeTurn", "GameReplay", "MatchReplay", "replay"]


@dataclass(frozen=True)
class CubeContext:
    """The cube as the side on roll sees it: its value and state, at a match score the :class:`MatchCube`,
    in money the session's Jacoby and beaver rules and whether the cube is dead (at the session's cube limit,
    or no cube in play: the game is played out at this value)."""

    value: int
    state: CubeState
    match: MatchCube | None = None
    jacoby: bool = False
    beavers: bool = False
    dead: bool = False

    @property
    def opponent(self) -> CubeContext:
        """The same cube seen by the other side (on roll after this side's play)."""
        match = None if self.match is None else self.match.flipped()
        return CubeContext(self.value, self.state.opponent, match, self.jacoby, self.beavers, self.dead)


@dataclass(frozen=True)
class CheckerTurn:
    """One roll and the play made with it: ``position`` before (mover's view), ``child`` after (opponent's view).

    ``ply`` counts the decisions of the match in order (checker and cube together), ``move`` the
    rolls of the game from 1; ``opening``: the game's first roll (never a double, no cube before it).
    """

    ply: int
    game: int
    move: int
    player: int
    position: Position
    dice: tuple[int, int]
    child: Position
    cube: CubeContext
    opening: bool
    where: str
    text: str | None = None  # the play as the record wrote it (None: read from a position ID)


@dataclass(frozen=True)
class CubeTurn:
    """A turn where ``player`` could double before rolling: the position (its view), the cube, and what was done.

    ``response`` is the opponent's answer (TAKE, PASS or BEAVER) when ``doubled``, None for a double
    the record stops at (a match in progress); ``move`` the number of the roll that follows (or would have).
    """

    ply: int
    game: int
    move: int
    player: int
    position: Position
    cube: CubeContext
    doubled: bool
    response: Action | None
    where: str


@dataclass(frozen=True)
class GameReplay:
    """One replayed game: the score before it (players 0, 1), Crawford, the decisions, the winner and the points.

    ``winner`` is None for a match's last game when the record stops in the middle of it (a match in
    progress, as gnubg analyses it); its ``points`` are then 0.
    """

    number: int
    score: tuple[int, int]
    crawford: bool
    checker: tuple[CheckerTurn, ...]
    cube: tuple[CubeTurn, ...]
    winner: int | None
    points: int
    resigned: bool
    passed: bool

    @property
    def finished(self) -> bool:
        """Whether the game was played to its end (or resigned, or passed)."""
        return self.winner is not None


@dataclass(frozen=True)
class MatchReplay:
    """A replayed match or session: the record it came from and its games."""

    record: MatchRecord
    games: tuple[GameReplay, ...]

    @property
    def length(self) -> int:
        """The match length (0 for a money session)."""
        return self.record.length


def replay(record: MatchRecord) -> MatchReplay:
    """Every game of ``record`` played through the rules (module docstring); raises InvalidRecord on the first fault.

    A money session whose file does not state the Jacoby rule (gnubg's own .mat export writes no rule
    tags, and gnubg plays with the rule by default) is read without it, or with it where only that
    makes every game's stated points those its replay scores.
    """
    try:
        return _replay(record)
    except PointsDisagree:
        rules = record.rules
        if record.length or rules.jacoby_stated or rules.jacoby:
            raise
        with_jacoby = replace(record, rules=replace(rules, jacoby=True))
        try:
            return _replay(with_jacoby)
        except PointsDisagree:
            pass
        raise


def _replay(record: MatchRecord) -> MatchReplay:
    """:func:`replay` with the record's rules as read."""
    games: list[GameReplay] = []
    running = [0, 0]
    crawford_done = False
    ply = 0
    for game in record.games:
        where = f"{record.source.name} game {game.number} ({game.where})"
        if record.length:
            for s in game.score:
                if s >= record.length:
                    raise InvalidRecord(
                        f"{where}: score {game.score[0]}-{game.score[1]} is not below the match length {record.length}"
                    )
            if tuple(running) != game.score and games:
                raise InvalidRecord(
                    f"{where}: score {game.score[0]}-{game.score[1]}, but the games before it give "
                    f"{running[0]}-{running[1]}"
                )
            running = list(game.score)
        leader_at_one = record.length > 1 and record.length - 1 in game.score
        crawford = game.crawford
        if crawford is None:
            crawford = leader_at_one and not crawford_done and game.score[0] != game.score[1]
        crawford_done = crawford_done or leader_at_one
        played = _replay_game(record, game, crawford, ply, last=game is record.games[-1])
        ply += len(played.checker) + len(played.cube)
        games.append(played)
        if played.winner is not None:
            running[played.winner] = min(running[played.winner] + played.points, record.length or 1 << 30)
    return MatchReplay(record, tuple(games))


def _replay_game(
    record: MatchRecord, game: GameRecord, crawford: bool, first_ply: int, last: bool = False
) -> GameReplay:
    """One game through the rules (see :func:`replay`); the ``last`` game of a record may stop before its end."""
    name = f"{record.source.name} game {game.number}"
    events = list(game.events)
    if not events and last:  # a match in progress, its next game not begun
        return GameReplay(game.number, game.score, crawford, (), (), None, 0, False, False)
    if not events:
        raise InvalidRecord(f"{name} ({game.where}): the game has no moves")
    first = events[0]
    if first.action is not Action.ROLL:
        raise InvalidRecord(f"{name} ({first.where}): the game must start with a roll, got {first.action}")
    if first.dice is not None and first.dice[0] == first.dice[1]:
        raise InvalidRecord(f"{name} ({first.where}): opening roll {first.dice[0]}{first.dice[1]} is a double")
    state = _GameState(record, game, crawford, first.player)
    checker: list[CheckerTurn] = []
    cubes: list[CubeTurn] = []
    ply = first_ply
    k = 0
    while k < len(events):
        event = events[k]
        if state.over:
            if event.action is Action.WIN and k == len(events) - 1:
                if event.player != state.winner:
                    raise InvalidRecord(
                        f"{name} ({event.where}): the record says player {event.player} wins; "
                        f"the game was won by player {state.winner}"
                    )
                if event.points is not None and event.points != state.points:
                    rules = record.rules
                    hint = "" if record.length else f" (read with the Jacoby rule {'on' if rules.jacoby else 'off'})"
                    raise PointsDisagree(
                        f"{name} ({event.where}): the record says player {event.player} wins {event.points} points; "
                        f"the replay scores {state.points}{hint}"
                    )
                break
            raise InvalidRecord(f"{name} ({event.where}): {event.action} after the end of the game")
        if event.action is Action.WIN:  # a resignation accepted while play was going on
            state.end(event.player, int(event.points or 1), resigned=True)
            k += 1
            continue
        if event.player != state.on_roll:
            raise InvalidRecord(
                f"{name} ({event.where}): player {event.player} acts out of turn ({event.action}); "
                f"player {state.on_roll} is on roll"
            )
        if event.action is Action.ROLL:
            if checker and state.can_double():  # a turn where the side on roll could have doubled and did not
                cubes.append(state.cube_turn(ply, len(checker) + 1, False, None, event.where))
                ply += 1
            after = events[k + 1] if k + 1 < len(events) else None
            if after is not None and after.action is Action.WIN and state.unplayed(event):
                k += 1  # rolled, then a resignation before any play (as gnubg reads it): no checker decision
                continue
            checker.append(state.roll(event, ply, len(checker) + 1, name))
            ply += 1
            k += 1
            continue
        if event.action is not Action.DOUBLE:
            raise InvalidRecord(f"{name} ({event.where}): {event.action} without a double offered")
        if not checker:
            raise InvalidRecord(f"{name} ({event.where}): a double before the opening roll")
        if not state.can_double():
            why = state.why_not()
            raise InvalidRecord(f"{name} ({event.where}): player {event.player} may not double here ({why})")
        if event.cube is not None and event.cube != 2 * state.value:
            raise InvalidRecord(f"{name} ({event.where}): a double to {event.cube} with the cube at {state.value}")
        if k + 1 >= len(events):
            if not last:
                raise InvalidRecord(f"{name} ({event.where}): the record ends after a double (expected Takes or Drops)")
            # a match in progress stopped at a double not yet answered: the double is judged, no answer is
            cubes.append(state.cube_turn(ply, len(checker) + 1, True, None, event.where))
            ply += 1
            break
        answer = events[k + 1]
        if answer.player == event.player or answer.action not in (Action.TAKE, Action.PASS, Action.BEAVER):
            raise InvalidRecord(
                f"{name} ({answer.where}): expected the opponent's take, drop or beaver after the double, "
                f"got {answer.action} by player {answer.player}"
            )
        cubes.append(state.cube_turn(ply, len(checker) + 1, True, answer.action, event.where))
        ply += 1
        state.respond(answer, name)
        k += 2
        while answer.action is Action.BEAVER and k < len(events) and events[k].action is Action.BEAVER:
            answer = state.raccoon(events[k], answer.player, name)  # redoubles after a beaver: not judged (gnubg)
            k += 1
    if not state.over and not last:
        raise InvalidRecord(f"{name}: the record ends in the middle of the game (expected more moves or 'Wins')")
    return GameReplay(
        game.number,
        game.score,
        crawford,
        tuple(checker),
        tuple(cubes),
        state.winner,
        state.points,
        state.resigned,
        state.passed,
    )


class _GameState:
    """The position, cube and turn while a game is replayed (player 0's and 1's view kept apart)."""

    def __init__(self, record: MatchRecord, game: GameRecord, crawford: bool, first: int) -> None:
        self.record = record
        self.game = game
        self.crawford = crawford
        self.position = Position.initial()  # the side on roll's view
        self.on_roll = first
        self.value = 1
        self.owner: int | None = None
        self.over = False
        self.winner: int | None = None
        self.points = 0
        self.resigned = False
        self.passed = False

    def context(self, player: int) -> CubeContext:
        """The cube as ``player`` sees it (the match cube at a match score)."""
        state = (
            CubeState.CENTERED
            if self.owner is None
            else CubeState.OWNED
            if self.owner == player
            else CubeState.UNAVAILABLE
        )
        if not self.record.length:
            rules = self.record.rules
            dead = 2 * self.value > rules.max_cube
            return CubeContext(self.value, state, jacoby=rules.jacoby, beavers=rules.beavers, dead=dead)
        n, score = self.record.length, self.game.score
        try:
            away = MatchScore(n - score[player], n - score[1 - player], self.crawford)
            return CubeContext(self.value, state, MatchCube(away, self.value, state))
        except CubeInputError as exc:
            raise InvalidRecord(f"{self.record.source.name} game {self.game.number}: {exc}") from None

    def can_double(self) -> bool:
        """Whether the side on roll may double now."""
        ctx = self.context(self.on_roll)
        if ctx.match is not None:
            return ctx.match.can_double
        return ctx.state is not CubeState.UNAVAILABLE and 2 * self.value <= self.record.rules.max_cube

    def why_not(self) -> str:
        """Why the side on roll may not double (for an error message)."""
        if self.owner is not None and self.owner != self.on_roll:
            return f"player {self.owner} owns the cube"
        if self.crawford:
            return "the Crawford game"
        return f"the cube is at {self.value}"

    def cube_turn(self, ply: int, move: int, doubled: bool, response: Action | None, where: str) -> CubeTurn:
        """The cube decision of the side on roll now."""
        player = self.on_roll
        return CubeTurn(
            ply, self.game.number, move, player, self.position, self.context(player), doubled, response, where
        )

    def unplayed(self, event: Event) -> bool:
        """Whether ``event`` is a roll written with no play although more than one play was legal."""
        assert event.dice is not None
        return not (event.move or "").strip() and event.child_id is None and len(self.position.plays(event.dice)) > 1

    def roll(self, event: Event, ply: int, move: int, name: str) -> CheckerTurn:
        """Play ``event``'s roll; returns the turn. Raises InvalidRecord for an illegal play."""
        assert event.dice is not None
        dice = event.dice
        label = f"{name} move {move} ({event.where})"
        try:
            if event.child_id is not None:
                child = Position.from_id(event.child_id)
                if child not in self.position.children(dice):
                    raise InvalidRecord(
                        f"{label}: position {event.child_id} is not a legal play of {dice[0]}{dice[1]} "
                        f"from {self.position.id}"
                    )
            else:
                text = (event.move or "").strip()
                plays = self.position.plays(dice)
                if not text:  # a dance, or a forced play left unwritten (gnubg plays it)
                    if len(plays) > 1:
                        raise InvalidRecord(
                            f"{label}: roll {dice[0]}{dice[1]} with no play, but {len(plays)} plays are legal"
                        )
                    child = plays[0][1]
                else:
                    child = self.position.play(text, dice)
        except InvalidRecord:
            raise
        except JumpgammonError as exc:
            raise InvalidRecord(f"{label}: player {event.player}, {dice[0]}{dice[1]} {event.move!r}: {exc}") from None
        turn = CheckerTurn(
            ply,
            self.game.number,
            move,
            event.player,
            self.position,
            dice,
            child,
            self.context(event.player),
            move == 1,
            event.where,
            event.move,
        )
        self.position = child
        self.on_roll = 1 - event.player
        if child.is_over():
            multiplier = result_multiplier(child)
            if not self.record.length and self.record.rules.jacoby and self.owner is None:
                multiplier = 1
            self.end(event.player, self.value * multiplier)
        return turn

    def respond(self, answer: Event, name: str) -> None:
        """The opponent's answer to a double of the side on roll."""
        doubler = 1 - answer.player
        if answer.action is Action.PASS:
            self.passed = True
            self.end(doubler, self.value)
            return
        if answer.action is Action.BEAVER:
            if self.record.length:
                raise InvalidRecord(f"{name} ({answer.where}): a beaver in a match (beavers are for money only)")
            self.value *= 4
            self.owner = answer.player
            return
        self.value *= 2
        self.owner = answer.player

    def raccoon(self, event: Event, beaverer: int, name: str) -> Event:
        """A redouble (raccoon) of the cube just beavered by ``beaverer``: the other side keeps it, twice as high."""
        if event.player == beaverer:
            raise InvalidRecord(f"{name} ({event.where}): player {event.player} redoubles its own beaver")
        if event.cube is not None and event.cube != 2 * self.value:
            raise InvalidRecord(f"{name} ({event.where}): a redouble to {event.cube} with the cube at {self.value}")
        self.value *= 2
        self.owner = event.player
        return event

    def end(self, winner: int, points: int, resigned: bool = False) -> None:
        """The game is over: ``winner`` scores ``points``."""
        self.over, self.winner, self.points, self.resigned = True, winner, points, resigned
