"""Command-line interface: thin subcommand modules over the library packages."""
