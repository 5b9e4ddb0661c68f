"""The HTML report in a real browser: headless Chromium (Debian's ``chromium``) loads it, finds the summary and the
graphs drawn, and takes a screenshot kept as the test's artefact. Marked slow: ``pytest -m slow`` runs it."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from analysis.analyse import analyse_file
from analysis.html import render_html
from cube.met import published_met
from nets.evaluator import load_evaluator

pytestmark = pytest.mark.slow
MATCH = Path(__file__).resolve().parents[1] / "fixtures" / "gnubg_analysis" / "gnubg_05pt_s09.mat"
# Counts what the browser really shows: summary tables, and pictures it decoded (naturalWidth > 0).
PROBE = """<script>window.addEventListener("load", () => {
  const drawn = [...document.images].filter(i => i.complete && i.naturalWidth > 0).length;
  document.title = `summaries=${document.querySelectorAll("table.summary").length} graphs=${drawn}`;
});</script></body>"""


def _chromium(*args: str) -> subprocess.CompletedProcess[str]:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.fail("headless Chromium is needed for this test: apt-get install -y chromium")
    flags = ["--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--allow-file-access-from-files"]
    return subprocess.run([browser, *flags, *args], capture_output=True, text=True, timeout=120, check=True)


def test_report_loads_in_chromium_with_summary_and_graphs(tmp_path_factory: pytest.TempPathFactory) -> None:
    artefacts = tmp_path_factory.mktemp("analysis_html")
    result = analyse_file(MATCH, load_evaluator(), 0, published_met(), "shipped", progress=False)
    games = len(result.matches[0].games)
    page = artefacts / "report.html"
    page.write_text(render_html(result))
    probe = artefacts / "probe.html"
    probe.write_text(page.read_text().replace("</body>", PROBE))
    dom = _chromium("--virtual-time-budget=5000", "--dump-dom", probe.as_uri()).stdout
    title = re.search(r"<title>(.*?)</title>", dom)
    assert title is not None and title.group(1) == f"summaries=1 graphs={games}"
    shot = artefacts / "report.png"
    _chromium("--window-size=1200,2000", f"--screenshot={shot}", page.as_uri())
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    print(f"screenshot kept at {shot}")
