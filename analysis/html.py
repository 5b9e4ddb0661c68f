"""An analysis as one self-contained HTML page: summary tables, an equity graph per game, a board at each error.

The graphs are PNG pictures drawn with matplotlib (the optional ``plot`` extra) and embedded as
base64 ``data:`` URLs, so the page needs no other file and no network.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Sequence

from analysis.evaluate import CheckerDecision, CubeDecisionAnalysis
from analysis.marks import Skill
from analysis.records import Action
from analysis.report import game_outcome, summary_rows
from analysis.summary import FileAnalysis, GameAnalysis, MatchAnalysis, PlayerSummary
from engine.display import board_text
from engine.errors import NotSupported
from engine.position import Position

__all__ = ["render_html"]

_STYLE = """
body { font-family: sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
td, th { border: 1px solid #bbb; padding: 2px 8px; text-align: right; }
td:first-child, th:first-child { text-align: left; }
pre { font-size: 12px; line-height: 1.15; background: #f6f6f6; padding: 6px; display: inline-block; }
.error { margin: 0.8em 0 1.2em; }
.very-bad { color: #b00; } .bad { color: #c60; } .doubtful { color: #886; }
img.graph { border: 1px solid #ccc; }
"""


def require_plotting() -> None:
    """Raise NotSupported unless matplotlib (the optional ``plot`` extra) is there: an HTML report draws with it,
    and a command should say so before it analyses a whole file."""
    try:
        import matplotlib  # noqa: F401  (only whether it imports)
    except ImportError as exc:  # the optional plot extra
        raise NotSupported("--html needs matplotlib (the plot extra: pip install -e '.[plot]')") from exc


def _graph_png(m: MatchAnalysis, g: GameAnalysis) -> str:
    """The game's graph (player 0's points or MWC after each move, errors marked) as a base64 PNG."""
    require_plotting()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 2.4), dpi=90)
    xs = [p.move for p in g.graph]
    ys = [100 * p.value if m.length else p.value for p in g.graph]
    ax.step(xs, ys, where="post", color="#245", linewidth=1.4)
    ax.axhline(50 if m.length else 0, color="#999", linewidth=0.7)
    for player, colour in ((0, "#c22"), (1, "#26c")):
        marked = [d for d in g.checker if d.player == player and d.skill is not Skill.NONE]
        lookup = {p.move: 100 * p.value if m.length else p.value for p in g.graph}
        pts = [(d.move, lookup[d.move]) for d in marked]
        if pts:
            xs_err, ys_err = [x for x, _ in pts], [y for _, y in pts]
            ax.scatter(xs_err, ys_err, color=colour, s=18, zorder=3, label=f"{m.names[player]}'s errors")
    ax.set_ylabel(f"{m.names[0]}: {'MWC %' if m.length else 'points'}")
    ax.set_xlabel("move (roll) of the game")
    ax.set_title(f"Game {g.number}", fontsize=10)
    if any(d.skill is not Skill.NONE for d in g.checker):
        ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _table(rows: list[list[str]], css: str = "alternatives") -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in rows[0])
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows[1:])
    return f'<table class="{css}"><tr>{head}</tr>{body}</table>'


def _units(m: MatchAnalysis, value: float) -> str:
    return f"{100 * value:+.2f}% MWC" if m.length else f"{value:+.3f} points"


def _board(position_id: str, names: tuple[str, str], mover: int) -> str:
    text = board_text(Position.from_id(position_id), None, names=(names[1 - mover], names[mover]))
    return f"<pre>{html.escape(text)}</pre>"


def _checker_error(m: MatchAnalysis, d: CheckerDecision) -> str:
    css = d.skill.value.replace(" ", "-")
    rows = [["Rank", "Play", "EMG", "Difference", "MWC" if m.length else "Points", "Plies"]]
    best = d.candidates[0]
    for rank, c in enumerate(d.candidates, start=1):
        shown = rank if c.move != d.played else d.played_rank
        label = f"{c.move or '(no play)'}{'  (played)' if c.move == d.played else ''}"
        other = f"{100 * c.mwc:.2f}%" if c.mwc is not None else f"{c.equity * d.cube:+.3f}"
        rows.append([str(shown), label, f"{c.equity:+.3f}", f"{c.equity - best.equity:+.3f}", other, str(c.plies)])
    title = (
        f"Game {d.game}, move {d.move}: {m.names[d.player]} {d.dice[0]}{d.dice[1]} {d.played or '(no play)'}: "
        f"{d.skill.value} ({-d.error:+.3f} EMG, {_units(m, -d.error_units)})"
    )
    return (
        f'<div class="error"><h4 class="{css}">{html.escape(title)}</h4>'
        f"{_board(d.position_id, m.names, d.player)}{_table(rows)}</div>"
    )


def _cube_error(m: MatchAnalysis, c: CubeDecisionAnalysis) -> str:
    parts = []
    if c.doubler_kind is not None and c.doubler_skill is not Skill.NONE:
        parts.append(
            f"{m.names[c.player]} {'doubled' if c.doubled else 'did not double'}: {c.doubler_kind.value}, "
            f"{c.doubler_skill.value} ({-c.doubler_error:+.3f} EMG, {_units(m, -c.doubler_error_units)})"
        )
    if c.taker_kind is not None and c.taker_skill is not Skill.NONE:
        answer = "passed" if c.response is Action.PASS else "took"
        parts.append(
            f"{m.names[1 - c.player]} {answer}: {c.taker_kind.value}, {c.taker_skill.value} "
            f"({-c.taker_error:+.3f} EMG, {_units(m, -c.taker_error_units)})"
        )
    rows = [["", "EMG"] + (["MWC"] if c.mwc else [])]
    for k, (label, value) in enumerate(
        (("No double", c.no_double), ("Double, take", c.double_take), ("Double, pass", c.double_pass))
    ):
        rows.append([label, f"{value:+.3f}"] + ([f"{100 * c.mwc[k]:.2f}%"] if c.mwc else []))
    title = f"Game {c.game}, before move {c.move}, cube {c.cube}: " + "; ".join(parts)
    css = max((c.doubler_skill, c.taker_skill), key=lambda s: list(Skill).index(s)).value.replace(" ", "-")
    return (
        f'<div class="error"><h4 class="{css}">{html.escape(title)}</h4>'
        f"{_board(c.position_id, m.names, c.player)}<p>Proper action: {html.escape(c.proper.value)}</p>"
        f"{_table(rows)}</div>"
    )


def _game(m: MatchAnalysis, g: GameAnalysis) -> str:
    head = f"Game {g.number}, score {g.score[0]}-{g.score[1]}{', Crawford' if g.crawford else ''}: {game_outcome(m, g)}"
    items: list[tuple[int, str]] = [(d.ply, _checker_error(m, d)) for d in g.checker if d.skill is not Skill.NONE]
    items += [
        (c.ply, _cube_error(m, c))
        for c in g.cube
        if (c.doubler_kind and c.doubler_skill is not Skill.NONE) or (c.taker_kind and c.taker_skill is not Skill.NONE)
    ]
    errors = "".join(text for _, text in sorted(items, key=lambda item: item[0])) or "<p>No marked error.</p>"
    png = _graph_png(m, g)
    return (
        f'<section class="game"><h3>{html.escape(head)}</h3>'
        f'<img class="graph" alt="equity graph of game {g.number}" src="data:image/png;base64,{png}">'
        f"{errors}</section>"
    )


def _summary(players: tuple[PlayerSummary, PlayerSummary], money: bool, m: MatchAnalysis | None) -> str:
    return _table(summary_rows(m, players, money), "summary")


def render_html(a: FileAnalysis, games: Sequence[tuple[MatchAnalysis, GameAnalysis]] | None = None) -> str:
    """The page of an analysis (every game of every match unless ``games`` picks some)."""
    depth = f"{a.plies} ply" + (f", MET {html.escape(a.met)}" if a.met else "")
    if any(not m.length for m in a.matches):
        depth += f", money cube model {html.escape(a.cube)}"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Analysis of {html.escape(a.path.name)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>Analysis of {html.escape(a.path.name)}</h1>",
        f"<p>jumpgammon analyse at {depth} (luck at 0 ply), net {html.escape(a.weights)}, "
        f"{a.seconds:.1f} s. Errors are EMG (normalised equity per unit of the cube) lost, marked as GNU "
        "Backgammon marks them (doubtful from 0.03, bad from 0.06, very bad from 0.12).</p>",
    ]
    chosen = games if games is not None else [(m, g) for m in a.matches for g in m.games]
    for m in a.matches:
        kind = f"{m.length}-point match" if m.length else "money session"
        parts.append(
            f"<h2>{html.escape(m.title)}: {kind}, {html.escape(m.names[0])} against {html.escape(m.names[1])}</h2>"
        )
        parts.append(_summary(m.players, not m.length, m))
        parts.extend(_game(m, g) for mm, g in chosen if mm is m)
    if len(a.matches) > 1:
        parts.append("<h2>Totals over the file</h2>")
        parts.append(_summary(a.totals, not a.matches[0].length, None))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
