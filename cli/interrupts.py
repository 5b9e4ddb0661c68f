"""Ctrl-C for every command: one "interrupted" line and exit status 130, whatever was running.

A KeyboardInterrupt can surface in forms other than itself: numba's dispatcher turns one raised
while it unpickles a cached kernel into ``SystemError(... returned a result with an exception
set)``, and one raised inside a ctypes callback (llvmlite's object cache, while numba compiles)
is printed as "Exception ignored" and lost, so the command runs on. While a command runs, the
SIGINT handler here records the interrupt, raises KeyboardInterrupt, and starts a watchdog: if
the command has not ended ``GRACE_SECONDS`` later (the interrupt was swallowed), or on a second
Ctrl-C, the process prints the line and exits 130 at once. Every exception raised after an
interrupt counts as the interrupt; reports of swallowed exceptions are silenced meanwhile.
Worker processes ignore SIGINT (:mod:`arena.workers`): only this process answers it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

INTERRUPTED_STATUS = 130  # 128 + SIGINT, as shells report a command Ctrl-C ended
GRACE_SECONDS = 10.0  # how long an interrupted command may take to end by itself


def interrupted_line(command: str, detail: str = "") -> str:
    """The one line a command ended by Ctrl-C prints, with what became of its work when it says."""
    return f"jumpgammon{' ' + command if command else ''}: interrupted" + (f"; {detail}" if detail else "")


class _Guard:
    """The SIGINT handler's state while one command runs."""

    def __init__(self, command: str) -> None:
        self.command = command
        self.interrupted = False
        self.watchdog: threading.Timer | None = None

    def exit_now(self) -> None:
        """Print the line and end the process with status 130, skipping any cleanup still running."""
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        os.write(2, ("\n" + interrupted_line(self.command) + "\n").encode())
        os._exit(INTERRUPTED_STATUS)

    def on_sigint(self, signum: int, frame: FrameType | None) -> None:
        if self.interrupted:
            self.exit_now()
        self.interrupted = True
        self.watchdog = threading.Timer(GRACE_SECONDS, self.exit_now)
        self.watchdog.daemon = True
        self.watchdog.start()
        raise KeyboardInterrupt

    def unraisable(self, info: Any) -> None:
        """Silence the report of an exception that could not be raised once the command is interrupted."""
        if not (self.interrupted or issubclass(info.exc_type, KeyboardInterrupt)):
            sys.__unraisablehook__(info)


_ACTIVE: _Guard | None = None


@contextlib.contextmanager
def guarded(command: str) -> Iterator[None]:
    """Handle Ctrl-C as the module says while the block runs (restored afterwards).

    Nothing changes outside the main thread, or where SIGINT is ignored (a shell's background job).
    """
    global _ACTIVE
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        yield
        return
    guard = _Guard(command)
    previous_handler = signal.signal(signal.SIGINT, guard.on_sigint)
    previous_hook = sys.unraisablehook
    sys.unraisablehook = guard.unraisable
    _ACTIVE = guard
    try:
        yield
    finally:
        _ACTIVE = None
        if guard.watchdog is not None:
            guard.watchdog.cancel()
        signal.signal(signal.SIGINT, previous_handler)
        sys.unraisablehook = previous_hook


def caused_by_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` is, or follows from, a Ctrl-C: a KeyboardInterrupt in its chain, or any after one."""
    # Imported here, when an exception is judged: the engine package loads numba, which --help must not wait for.
    from engine.errors import raised_by_interrupt

    return (_ACTIVE is not None and _ACTIVE.interrupted) or raised_by_interrupt(exc)
