"""Services around the engine: the UBGI engine mode (stdin/stdout) and the HTTP API with its web board.

Only :mod:`cli` imports this package. The HTTP part needs the optional ``serve`` extra
(FastAPI and uvicorn); the UBGI engine needs nothing beyond the project's own dependencies.
"""
