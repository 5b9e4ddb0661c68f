"""``python -m training``: the same as ``jumpgammon train``."""

from cli.main import main

raise SystemExit(main(["train", *__import__("sys").argv[1:]]))
