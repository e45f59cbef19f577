"""`nomic-cards randomizer` commands (placeholder until the library lands)."""

from __future__ import annotations

import typer

app = typer.Typer(help="randomizer library commands.", no_args_is_help=True)
