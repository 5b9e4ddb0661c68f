"""nets package."""
