"""cube package."""
