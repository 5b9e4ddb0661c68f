"""Summarise the clean cube comparisons from their tournament ledgers (finished or still running).

Each comparison is one ``jumpgammon tournament ... --luck --luck-screen 0 --checkpoint LEDGER`` command (its
luck judged every play: the ledgers were played before the luck screen); its ledger
holds every finished block (the mirrored pairs' points and A's luck). This reads the ledgers
(plain, or gzipped as committed), and writes ``summary.json`` and ``summary.md`` beside the
committed copies: per comparison the games so far, the raw and the luck-adjusted ppg of A with
their SEs, and two one-sided tests of equivalence within +-3 milli-ppg. A finished prefix of a
ledger reprints with the tournament command itself and ``--games N`` (N the games it holds).

    python tools/cube_comparisons/summarise.py --ledgers runs/cube --out results/tournaments/cube-comparisons [--copy]

``--copy`` also writes gzipped copies of the ledgers into ``--out``.
"""

from __future__ import annotations

import argparse
import gzip
import json
from dataclasses import dataclass
from pathlib import Path

from arena.ledger import block_from_json
from arena.stats import Equivalence, Figure, equivalence_test, paired_figure
from arena.tournament import pair_luck_of, pair_scores, stopping_prefix
from nets.weights import write_atomic

TD_NET = "results/nets/td_v1.jgw"
MARGIN = 0.003  # the equivalence margin, milli-ppg 3, declared before the runs
BLOCK_PAIRS = 64  # pairs a block in every command (--block-pairs)
# The unfinished comparisons stop at SE 1 milli-ppg (at most 60,000 games): declared on 2026-11-26 before any of
# them had reached it, in place of a fixed 60,000; the rule looks at the SE only, never at the difference.
UNTIL_SE = 0.001


@dataclass(frozen=True)
class Comparison:
    """One clean comparison: its ledger's name, what it isolates, and the tournament command."""

    name: str
    question: str
    a: str
    a_cube: str
    b: str
    b_cube: str
    seed: int
    games: int  # the most it plays
    until_se: float | None = None  # stop at the first block whose luck-adjusted SE (ppg) is at most this

    def command(self, games: int | None = None) -> str:
        """The one-line command that plays it (or, with ``games``, reprints that many from a full ledger)."""
        stop = f" --until-se {self.until_se:g}" if self.until_se is not None and games is None else ""
        return (
            f"jumpgammon tournament --a {self.a} --a-cube {self.a_cube} --b {self.b} --b-cube {self.b_cube} "
            f"--games {games or self.games} --seed {self.seed} --luck --luck-screen 0 --block-pairs {BLOCK_PAIRS} "
            f"--checkpoint {self.name}.ledger --equivalence {MARGIN}{stop}"
        )


COMPARISONS = (
    Comparison(
        "jumpnet_vs_jumplocal_seed2",
        "jump-net (learned volatility) against jump-local (441-roll lookahead): equivalent within +-3 milli-ppg?",
        "net@0", "jump-net", "net@0", "jump-local", 2, 16000,
    ),
    Comparison(
        "jumplocal_vs_jump0.10_seed4",
        "local volatility alone: jump-local against the constant jump model with the same remote alpha 0.10",
        "net@0", "jump-local", "net@0", "jump:0.10:numerical", 4, 60000, UNTIL_SE,
    ),
    Comparison(
        "jumplocal_meanabs_vs_std_seed5",
        "the local alpha as E|J| (the model's definition) against sigma_J (the paper's computation)",
        "net@0", "jump-local:0.10:mean_abs", "net@0", "jump-local:0.10:std", 5, 60000, UNTIL_SE,
    ),
    Comparison(
        "td_jump0.079_vs_janowski0.730_seed7",
        "the best constant jump model (numerical, 7.9%) against Janowski at its optimum x = 0.730, the TD net",
        f"net:{TD_NET}@0", "jump:0.079:numerical", f"net:{TD_NET}@0", "janowski:0.730", 7, 60000, UNTIL_SE,
    ),
    Comparison(
        "td_janowski0.730_vs_0.7_seed6",
        "Janowski at its optimum x = 0.730 against x = 0.70, the TD net",
        f"net:{TD_NET}@0", "janowski:0.730", f"net:{TD_NET}@0", "janowski:0.7", 6, 60000,
    ),
    Comparison(
        "jumplocal_vs_gnubgcube_seed3",
        "the jump model (jump-local) against GNU Backgammon's own 0-ply cube decisions, same checker play",
        "net@0", "jump-local", "net@0", "gnubg@0", 3, 41000,
    ),
    Comparison(
        "jumplocal_vs_gnubgmodel_seed8",
        "the jump model against gnubg's cube model on this net's own probabilities (the model alone)",
        "net@0", "jump-local", "net@0", "gnubg", 8, 60000, UNTIL_SE,
    ),
)  # fmt: skip


def read_ledger(path: Path) -> list[dict[str, object]]:
    """The block records of a ledger (plain or ``.gz``), header dropped; a last line cut short is left out."""
    text = gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text()
    blocks = []
    for line in text.splitlines()[1:]:
        try:
            blocks.append(json.loads(line))
        except json.JSONDecodeError:
            break
    return blocks


@dataclass(frozen=True)
class Figures:
    """A comparison's figures so far, from A's view in ppg: raw and luck-adjusted, and the equivalence test."""

    comparison: Comparison
    games: int
    raw: Figure
    adjusted: Figure
    equivalence: Equivalence
    stopped: bool = False  # the comparison's target SE was reached: these are all the games it plays

    @property
    def z(self) -> float:
        """The luck-adjusted difference in its standard errors."""
        assert self.adjusted.se
        return self.adjusted.value / self.adjusted.se

    def to_json(self) -> dict[str, object]:
        """The figures, the command that plays the comparison and the one that reprints these games."""
        c = self.comparison
        assert self.raw.se and self.adjusted.se
        return {
            "name": c.name,
            "question": c.question,
            "command": c.command(),
            "reprint": c.command(self.games),
            "games": self.games,
            "planned_games": c.games,
            "until_se": c.until_se,
            "finished": self.stopped or self.games == c.games,
            "ppg": self.raw.value,
            "se": self.raw.se,
            "luck_adjusted": {
                "ppg": self.adjusted.value,
                "se": self.adjusted.se,
                "se_ratio": self.raw.se / self.adjusted.se,
            },
            "z": self.z,
            "equivalence": self.equivalence.to_json(),
        }

    def _games_text(self) -> str:
        """The games so far against the most, or where the target SE stopped the run."""
        c = self.comparison
        if self.stopped:
            return f"{self.games:,} (SE target {1000 * (c.until_se or 0):g} reached)"
        target = f", or to SE {1000 * c.until_se:g}" if c.until_se is not None else ""
        return f"{self.games:,} of {c.games:,}{target}"

    def markdown_row(self) -> str:
        """One table row in milli-ppg."""
        raw, adj, e = self.raw, self.adjusted, self.equivalence
        assert raw.se and adj.se
        return (
            f"| {self.comparison.question.replace('|', chr(92) + '|')} | {self._games_text()} "
            f"| {1000 * raw.value:+.1f} ({1000 * raw.se:.1f}) | **{1000 * adj.value:+.1f}** ({1000 * adj.se:.1f}) "
            f"| {self.z:+.1f} | {'yes' if e.equivalent else 'no'} ({e.p:.3f}) |"
        )


def summarise(c: Comparison, records: list[dict[str, object]]) -> Figures:
    """The figures of one comparison from its block records (luck-adjusted: every block must carry its luck).

    The blocks are those the declared command plays, in its order, up to the first one the ledger
    lacks: a ledger extended from a shorter run also holds that run's last, shorter block, which
    overlaps the longer run's and is left out.
    """
    held = {(b.first_pair, b.games // 2): b for b in map(block_from_json, records)}
    blocks = []
    pairs = c.games // 2
    for key in [(k, min(BLOCK_PAIRS, pairs - k)) for k in range(0, pairs, BLOCK_PAIRS)]:  # the command's blocks
        if key not in held:
            break
        blocks.append(held[key])
    stop = None if c.until_se is None else stopping_prefix(blocks, c.until_se)
    blocks = blocks[:stop] if stop else blocks
    points = pair_scores(blocks)
    luck = pair_luck_of(blocks)
    if luck is None:
        raise ValueError(f"{c.name}: a block without its luck (played without --luck)")
    raw, adjusted = paired_figure(points), paired_figure(points - luck)
    if not raw.se or not adjusted.se:
        raise ValueError(f"{c.name}: no standard error yet ({len(points)} pairs)")
    equivalence = equivalence_test(adjusted.value, adjusted.se, MARGIN)
    return Figures(c, 2 * len(points), raw, adjusted, equivalence, stopped=stop is not None)


HEADER = (
    "| comparison (A against B) | games | raw, milli-ppg (SE) | luck-adjusted (SE) | z | level within +-3 (TOST p) |\n"
    "|---|---|---|---|---|---|\n"
)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ledgers", type=Path, required=True, help="folder of NAME.ledger or NAME.ledger.gz files")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--copy", action="store_true", help="write gzipped copies of the ledgers into --out")
    args = p.parse_args()
    rows = []
    for c in COMPARISONS:
        plain, packed = args.ledgers / f"{c.name}.ledger", args.ledgers / f"{c.name}.ledger.gz"
        path = plain if plain.exists() else packed
        if not path.exists():
            continue
        records = read_ledger(path)
        if not records:
            continue
        rows.append(summarise(c, records))
        if args.copy and path == plain:
            lines = path.read_text().splitlines()[: 1 + len(records)]
            write_atomic(args.out / packed.name, gzip.compress(("\n".join(lines) + "\n").encode(), mtime=0))
    table = HEADER + "".join(r.markdown_row() + "\n" for r in rows)
    write_atomic(args.out / "summary.json", (json.dumps([r.to_json() for r in rows], indent=1) + "\n").encode())
    write_atomic(args.out / "summary.md", table.encode())
    print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
