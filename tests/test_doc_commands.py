"""The ``jumpgammon`` commands README.md and docs/ quote: each parses, and each reprint runs as quoted.

A reprint is a command that reads committed results and plays nothing: ``experiment ... --report``
and a tournament whose ``--checkpoint`` ledger is committed and complete. They run here in a copy
of what a fresh clone has of ``results/`` and must exit 0 and leave every file as it was. Every
other quoted command (one without placeholders) must at least parse: its options exist and its
values pass their checks.
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from cli.main import build_parser
from tests.cli.helpers import run_cli

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
# A placeholder (POSITIONID, FILE, ...), an elision or optional parts: a usage line, not a command.
PLACEHOLDER = re.compile(r"\.\.\.|\[|\]|\||<|>|\b[A-Z][A-Z_0-9]+\b|(?<![\w/.-])[A-Z](?![\w/.-])")


def quoted_commands() -> list[tuple[str, str]]:
    """``(file name, command)`` for every ``jumpgammon ...`` command quoted in a code span or a shell block.

    An inline span without an option (``jumpgammon eval``) names a command in prose and is left
    out; in a fenced block every line that starts with ``jumpgammon COMMAND`` counts (a ``$ ``
    prompt and a trailing ``# comment`` stripped; ``jumpgammon COMMAND: error`` lines are output).
    """
    found = []
    for doc in DOCS:
        text = doc.read_text()
        spans = [c for c in re.findall(r"`(jumpgammon [^`]+)`", text) if " --" in c]
        for block in re.findall(r"```(?:bash|sh|console)?\n(.*?)```", text, flags=re.S):
            spans += [line.removeprefix("$ ").split(" #")[0].strip() for line in block.splitlines()]
        commands = [" ".join(c.split()) for c in spans if re.match(r"jumpgammon [a-z-]+( |$)", c)]
        found += [(doc.name, c) for c in commands]
    return sorted(set(found))


def checkpoint_of(argv: list[str]) -> str | None:
    return argv[argv.index("--checkpoint") + 1] if "--checkpoint" in argv else None


def in_git(relative: Path) -> bool:
    """Whether a file of results/ is committed (see .gitignore): no experiment ledgers but the 2-ply ladder rows."""
    if len(relative.parts) > 2 and relative.parts[1] == "experiments":
        if relative.name.endswith(".ledger.jsonl"):
            return relative.name.startswith("net@2-")
        return relative.name != "volnet.jgw" and "data" not in relative.parts and "batches" not in relative.parts
    return True


def is_reprint(command: str) -> bool:
    """An experiment report, or a tournament continuing a ledger committed under results/."""
    argv = shlex.split(command)
    ledger = checkpoint_of(argv)
    committed = ledger is not None and ledger.startswith("results/") and (REPO / ledger).is_file()
    return "--report" in argv or (committed and in_git(Path(ledger or "")))


COMMANDS = quoted_commands()
REPRINTS = [c for _, c in COMMANDS if is_reprint(c)]
PARSED = [c for _, c in COMMANDS if not is_reprint(c) and not PLACEHOLDER.search(c)]


def fresh_clone_results(root: Path) -> None:
    """Copy into ``root/results`` what git keeps of results/ (no experiment ledgers but the 2-ply ladder rows)."""
    for source in (REPO / "results").rglob("*"):
        relative = source.relative_to(REPO)
        if not source.is_file() or not in_git(relative):
            continue
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, root / relative)


def test_the_docs_quote_the_reprints_of_every_experiment_and_the_match_ledgers() -> None:
    """The reprint test below runs something: each experiment's report and both committed match ledgers."""
    for name in ("janowski", "jump", "remote", "local", "ladder", "volnet"):
        assert any(f"experiment {name} " in c and "--report" in c for c in REPRINTS), name
    assert sum("--match-length" in c for c in REPRINTS) >= 2
    assert len(PARSED) >= 10


def _slow_if_refit(command: str) -> object:
    """A refit at another degree bootstraps millions of games again (minutes): a slow test."""
    return pytest.param(command, marks=pytest.mark.slow) if "--degree" in command else command


@pytest.mark.parametrize("command", [_slow_if_refit(c) for c in REPRINTS])
def test_a_quoted_reprint_runs_as_quoted_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, command: str
) -> None:
    fresh_clone_results(tmp_path)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(capsys, *shlex.split(command)[1:])
    assert code == 0, err
    after = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert after == before


@pytest.mark.parametrize("command", PARSED)
def test_a_quoted_command_parses(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, command: str) -> None:
    """Its options exist and its values pass their checks.

    It parses in a folder holding the repository's results/ and weights/ and, as empty files, the
    user's own files a command names (``match.mat``), so a file check sees what a user would have.
    """
    for folder in ("results", "weights"):
        (tmp_path / folder).symlink_to(REPO / folder)
    argv = shlex.split(command)[1:]
    for token in argv:
        if re.fullmatch(r"[\w./-]+\.[a-z]{2,5}", token) and not token.startswith(("results/", "weights/")):
            (tmp_path / token).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / token).touch()
    monkeypatch.chdir(tmp_path)
    try:
        build_parser().parse_args(argv)
    except SystemExit as stop:
        if stop.code:  # --help exits 0 after printing
            pytest.fail(f"{command!r} does not parse (exit {stop.code})")


def _anchors(markdown: str) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    heads = re.findall(r"(?m)^#+ (.+)$", markdown)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in heads}


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_the_links_of_a_page_lead_somewhere(doc: Path) -> None:
    """Every relative link names a file of the repository and, with ``#anchor``, a heading on that page."""
    for target in re.findall(r"\]\(([^)\s]+)\)", doc.read_text()):
        if re.match(r"[a-z]+:", target):
            continue  # https: and the like
        path, _, anchor = target.partition("#")
        file = (doc.parent / path).resolve() if path else doc
        assert file.exists(), f"{doc.name}: {target}"
        if anchor and file.suffix == ".md":
            assert anchor in _anchors(file.read_text()), f"{doc.name}: {target}"
