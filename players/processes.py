"""Ending the engine processes players start (gnubg's external mode, UBGI engines) and test servers."""

from __future__ import annotations

import subprocess
from typing import Any

__all__ = ["stop_process"]


def stop_process(proc: subprocess.Popen[Any] | None, timeout: float = 5.0) -> None:
    """Terminate ``proc`` if it still runs, killing it if it lingers past ``timeout`` seconds; returns once it ended."""
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=timeout)
