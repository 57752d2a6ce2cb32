"""The ship's log a `log` command works on: the one --db names, else the default place."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

LOG_ID = click.IntRange(1, 2**63 - 1)  # a mission or campaign number: a SQLite row id

if TYPE_CHECKING:
    from timekeeper.logbook.shiplog import ShipLog


def open_from(ctx: click.Context) -> ShipLog:
    """The log chosen by `log --db` (kept in the context by the `log` group), opened."""
    from timekeeper.logbook.shiplog import ShipLog

    return ShipLog.open(ctx.obj.get("log_db") if ctx.obj else None)
