"""`timekeeper log`: the crew's ship's log (record, list, show, stats, export, import, print) and campaigns."""

from __future__ import annotations

from pathlib import Path

import click

from timekeeper.commands.campaign import campaign_group
from timekeeper.commands.groups import SuggestingGroup
from timekeeper.commands.logdb import LOG_ID, open_from
from timekeeper.commands.logprompt import prompt_missing
from timekeeper.commands.options import OneLineText, output_format
from timekeeper.environment import current
from timekeeper.logbook.form import FormValue, text

DAMAGE_HELP = "Damage per zone at the end, as red=2,white=0,blue=1 (repeatable)."


@click.group("log", cls=SuggestingGroup)
@click.option("--db", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="The log database (default: $TIMEKEEPER_LOG, else shiplog.sqlite3 in $TIMEKEEPER_DATA or "
                   "~/.local/share/timekeeper).")
@click.pass_context
def log_group(ctx: click.Context, db: Path | None) -> None:
    """The ship's log: score missions, run exploration campaigns, read and print the log.

    \b
    Examples:
      timekeeper log add --crew "Ann:captain, Bob:co, Cid, Dee:sc" --track mission-3 \\
          --survived 4 --destroyed 10 --damage red=2,blue=1 --knocked-out 1 --visual-confirmation 3
      timekeeper log add                      # asks for each value in a terminal
      timekeeper log list
      timekeeper log stats --plot scores.png
      timekeeper log campaign start --crew "Ann:captain, Bob, Cid, Dee" --common 1 --serious 1
      timekeeper log print -o log.pdf
    """
    ctx.ensure_object(dict)["log_db"] = db


MISSION_OPTIONS = (
    click.option("--crew", multiple=True, metavar="NAMES",
                 help="Players, comma-separated; roles after a colon: Ann:captain, Bob:co, Cid:sc (co = "
                      "communications officer, sc = security chief)."),
    click.option("--captain", default=None, metavar="NAME", help="Mark this crew member as the captain."),
    click.option("--communications-officer", default=None, metavar="NAME", help="... as the communications officer."),
    click.option("--security-chief", default=None, metavar="NAME", help="... as the security chief."),
    click.option("--date", default=None, metavar="YYYY-MM-DD", help="When it was played (default: today)."),
    click.option("--track", default=None, metavar="NAME|FILE", help="Built-in track (see `timekeeper list`) or scenario file."),
    click.option("--seed", default=None, metavar="N", help="Seed of a generated mission file (checked against the file)."),
    click.option("--common", default=None, metavar="1|2|1+2", help="Difficulty of the common threats (default 1)."),
    click.option("--serious", default=None, metavar="1|2|1+2", help="Difficulty of the serious threats (default 1)."),
    click.option("--survived", default=None, metavar="POINTS", help="Points for threats survived (their lower value)."),
    click.option("--destroyed", default=None, metavar="POINTS", help="Points for threats destroyed (their higher value)."),
    click.option("--damage", multiple=True, metavar="ZONE=N,...", help=DAMAGE_HELP),
    click.option("--knocked-out", default=None, metavar="N", help="Crew members knocked out at the end."),
    click.option("--disabled-squads", default=None, metavar="N", help="Battlebot squads disabled at the end (0-2)."),
    click.option("--visual-confirmation", default=None, metavar="POINTS", help="Visual confirmation points."),
    click.option("--destroyed-by", default=None, metavar="THREAT", help="The ship was destroyed by this threat (mission lost)."),
    click.option("--notes", default=None, help="Free text."),
)


def mission_options(command):
    """The options of a mission's values, shared by `log add` and `log edit`."""
    for option in reversed(MISSION_OPTIONS):
        command = option(command)
    return command


@log_group.command("add")
@mission_options
@click.option("--campaign", default=None, metavar="N|current",
              help="Record the waiting mission of this campaign (its crew, track and difficulty are known).")
@click.option("--prompt/--no-prompt", "prompt", default=None,
              help="Ask for the values not given (default: when run in a terminal).")
@click.pass_context
def add_command(ctx: click.Context, prompt: bool | None, **options: object) -> None:
    """Record a mission in the ship's log, scored as the rulebook says.

    Score = survived + destroyed - total damage - damage of the most damaged
    zone - 2 per knocked-out crew member - 1 per disabled battlebot squad +
    visual confirmation. A destroyed ship scores nothing; name the threat
    with --destroyed-by. Bad values are all reported and nothing is stored.

    \b
    Examples:
      timekeeper log add --crew "Ann:captain, Bob:co, Cid, Dee:sc" --track mission-3 \\
          --common 1 --serious 1+2 --survived 4 --destroyed 10 --damage red=2,blue=1 \\
          --knocked-out 1 --disabled-squads 0 --visual-confirmation 3
      timekeeper log add --crew "Ann, Bob, Cid, Dee" --track my.yaml --destroyed-by "Behemoth"
      timekeeper log add --campaign current --survived 5 --destroyed 8 --damage red=3
      timekeeper log add                      # asks for each value
    """
    values: dict[str, FormValue] = {name: _given(value) for name, value in options.items() if _given(value)}
    with open_from(ctx) as log:
        waiting = None if "campaign" in values else log.waiting_campaign(text(values, "track") or None)
        leg = waiting.pending if waiting is not None else None  # the drawn mission that waits for its result
        if prompt or (prompt is None and current().streams.stdin.isatty()):
            if waiting is not None and leg is not None and click.confirm(
                    f"Record it as mission {leg.number} of campaign {waiting.id} ({leg.track.label()})?", default=True):
                values["campaign"] = str(waiting.id)
            values = prompt_missing(log, values)
        elif waiting is not None and leg is not None:
            click.echo(f"Note: campaign {waiting.id} waits for the result of mission {leg.number} "
                       f"({leg.track.label()}); this is recorded as a single mission. Use "
                       f"--campaign {waiting.id} for the campaign (`timekeeper log remove ID` undoes this).",
                       err=True)
        _echo_entry(log, log.record_mission(values), "Recorded")


def _echo_entry(log, entry, done: str) -> None:
    """The mission as stored, with its score worked out (and its campaign's standing)."""
    from timekeeper.logbook.rows import CampaignLine
    from timekeeper.logbook.text import format_entry

    campaign = log.campaign(entry.campaign_id) if entry.campaign_id is not None else None
    click.echo(f"{done} in {log.path}:")
    click.echo(format_entry(entry, campaign), nl=False)
    if campaign is not None:
        click.echo(CampaignLine(campaign).summary())


def _given(value: object) -> str | list[str] | None:
    if isinstance(value, tuple):
        return list(value) or None
    return value if isinstance(value, str) and value != "" else None


@log_group.command("list")
@click.option("--crew", "member", default=None, metavar="NAME", help="Only missions this player flew.")
@click.option("--track", default=None, metavar="NAME", help="Only missions on this track.")
@click.option("--last", type=click.IntRange(1), default=None, metavar="N", help="Only the N most recent missions.")
@click.pass_context
def list_command(ctx: click.Context, member: str | None, track: str | None, last: int | None) -> None:
    """List every mission; campaigns are bracketed, with their total.

    \b
    Examples:
      timekeeper log list
      timekeeper log list --crew Ann --last 20
      timekeeper log list --track mission-5
    """
    from timekeeper.logbook.rows import log_lines
    from timekeeper.logbook.text import format_list

    with open_from(ctx) as log:
        entries = log.entries()
        if member:
            entries = [e for e in entries if member.casefold() in (n.casefold() for n in e.record.crew.names)]
        if track:
            entries = [e for e in entries if track in (e.record.track.name, e.record.track.label())]
        if last:
            entries = entries[-last:]
        click.echo(format_list(log_lines(entries, log.campaigns())), nl=False)


@log_group.command("show")
@click.argument("mission_id", type=LOG_ID, metavar="ID")
@click.pass_context
def show_command(ctx: click.Context, mission_id: int) -> None:
    """Show one mission with its score worked out.

    \b
    Example:
      timekeeper log show 3
    """
    from timekeeper.logbook.text import format_entry

    with open_from(ctx) as log:
        entry = log.entry(mission_id)
        campaign = log.campaign(entry.campaign_id) if entry.campaign_id is not None else None
        click.echo(format_entry(entry, campaign), nl=False)


@log_group.command("edit")
@click.argument("mission_id", type=LOG_ID, metavar="ID")
@mission_options
@click.pass_context
def edit_command(ctx: click.Context, mission_id: int, **options: object) -> None:
    """Correct a recorded mission: the values given change, the others stay.

    Every check runs again; for a campaign's mission the whole campaign is
    checked and rescored (its track and difficulty were drawn and stay).
    An empty value clears a field (--destroyed-by "" : the ship survived).

    \b
    Examples:
      timekeeper log edit 12 --destroyed 14 --damage red=1
      timekeeper log edit 12 --destroyed-by ""
      timekeeper log edit 12 --crew "Ann:captain, Bob, Cid, Dee"
    """
    values: dict[str, FormValue] = {}
    for name, value in options.items():
        if isinstance(value, tuple):
            if value:
                values[name] = list(value)
        elif value is not None:
            values[name] = str(value)
    if not values:
        raise click.UsageError("give the values to change (see --help)")
    with open_from(ctx) as log:
        _echo_entry(log, log.edit_mission(mission_id, values), "Changed")


@log_group.command("remove")
@click.argument("mission_id", type=LOG_ID, metavar="ID")
@click.pass_context
def remove_command(ctx: click.Context, mission_id: int) -> None:
    """Remove a mission recorded by mistake (not one of a campaign).

    \b
    Example:
      timekeeper log remove 7
    """
    with open_from(ctx) as log:
        entry = log.remove(mission_id)
        click.echo(f"Removed mission #{entry.id} ({entry.record.played_on}, {entry.record.track.label()}).")


@log_group.command("stats")
@click.option("--plot", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE.png",
              help="Also draw the scores per track and over time (needs matplotlib: pip install 'timekeeper[plot]').")
@click.pass_context
def stats_command(ctx: click.Context, plot: Path | None) -> None:
    """Per crew, per player and per track: missions, wins, best and mean score; campaigns per crew.

    \b
    Examples:
      timekeeper log stats
      timekeeper log stats --plot scores.png
    """
    from timekeeper.logbook.stats import format_stats, plot_stats

    if plot:
        from timekeeper.generate.plot import require_matplotlib

        require_matplotlib()
    with open_from(ctx) as log:
        stats = log.stats()
    click.echo(format_stats(stats), nl=False)
    if plot:
        plot_stats(stats, plot)
        click.echo(f"Wrote {plot}.", err=True)


@log_group.command("export")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="File to write (default: print). The format follows .csv / .json unless --format is given.")
@click.option("--format", "format_name", type=click.Choice(["csv", "json"]), default=None)
@click.pass_context
def export_command(ctx: click.Context, output: Path | None, format_name: str | None) -> None:
    """Export the log as CSV (one row per mission; `log import` reads it back) or JSON.

    \b
    Examples:
      timekeeper log export -o log.csv
      timekeeper log export --format json > log.json
    """
    from timekeeper.files.atomicfile import write_atomic
    from timekeeper.logbook.exchange import export_csv, export_json

    chosen = output_format(output, format_name, {".csv": "csv", ".json": "json"}, "csv", what="logs")
    with open_from(ctx) as log:
        entries, campaigns = log.entries(), log.campaigns()
    data = export_json(entries, campaigns) if chosen == "json" else export_csv(entries, campaigns)
    if output is None:
        click.echo(data, nl=False)
    else:
        write_atomic(output, data)
        click.echo(f"Wrote {output}: {len(entries)} mission(s).", err=True)


@log_group.command("import")
@click.argument("csv_file", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE.csv")
@click.pass_context
def import_command(ctx: click.Context, csv_file: Path) -> None:
    """Add the missions of a CSV written by `log export`; all or nothing, duplicates skipped.

    Every row is checked like `log add`; campaigns are replayed step by step.

    \b
    Example:
      timekeeper log --db other.sqlite3 import log.csv
    """
    from timekeeper.logbook.exchange import import_csv

    with open_from(ctx) as log:
        result = import_csv(log, csv_file)
    click.echo(f"Imported {result.missions} mission(s) ({result.campaigns} campaign(s)); "
               f"{result.skipped} already in the log.")


@log_group.command("print")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True, metavar="FILE.pdf")
@click.option("--title", type=OneLineText(), default="Ship's Log", show_default=True)
@click.pass_context
def print_command(ctx: click.Context, output: Path, title: str) -> None:
    """Print the log as a PDF page like the paper one (landscape A4).

    A crew line with role marks (C captain, CO communications officer, SC
    security chief), one line per mission, campaigns bracketed with their total.

    \b
    Example:
      timekeeper log print -o log.pdf
    """
    output_format(output, None, {".pdf": "pdf"}, "pdf", what="printed logs")
    with open_from(ctx) as log:
        printed = log.write_pdf(output, title)
    if printed.missing_glyphs:
        click.echo(f"Warning: {output}: the font has no glyphs for {' '.join(printed.missing_glyphs)}; "
                   "they are left out.", err=True)
    click.echo(f"Wrote {output}: {printed.missions} mission(s) on {printed.pages} page(s).", err=True)


log_group.add_command(campaign_group)
