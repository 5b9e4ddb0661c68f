"""The experiments' plots: matplotlib on its file-only backend when it is installed, PNGs written whole."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

from nets.weights import write_atomic


def pyplot() -> Any | None:
    """``matplotlib.pyplot`` on the Agg backend; None, with a note on stderr, when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (pip install -e '.[plot]'): no plot written", file=sys.stderr)
        return None
    return plt


def save_png(plt: Any, fig: Any, path: Path, dpi: int = 120) -> None:
    """Lay out ``fig``, write it to ``path`` as PNG through a temporary file (never half-written), and close it."""
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=dpi, format="png")
    plt.close(fig)
    write_atomic(path, buffer.getvalue())
