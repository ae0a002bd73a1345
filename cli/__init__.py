"""The warpkit command-line interface (typer)."""
