"""`python -m shengji.server`: the same command as `shengji serve`, with the same options."""

from __future__ import annotations

import sys
from typing import Any


def main(argv: list[str] | None = None) -> None:
    """Run `shengji serve` with `argv` (default: this process's arguments)."""
    import typer

    from shengji.cli import app

    args = sys.argv[1:] if argv is None else argv
    group: Any = typer.main.get_command(app)
    group.commands["serve"].main(args=args, prog_name="python -m shengji.server")


if __name__ == "__main__":
    main()
