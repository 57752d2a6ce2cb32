"""`timekeeper log campaign start/next/end/show`: exploration campaigns (rulebook chapter 6)."""

from __future__ import annotations

import random

import click

from timekeeper.commands.groups import SuggestingGroup
from timekeeper.commands.logdb import LOG_ID

difficulty_options = (
    click.option("--common", default="1", show_default=True, metavar="1|2|1+2",
                 help="Difficulty of the common threats for this mission."),
    click.option("--serious", default="1", show_default=True, metavar="1|2|1+2",
                 help="Difficulty of the serious threats for this mission."),
    click.option("--track", default=None, metavar="NAME|FILE",
                 help="Play this track instead of drawing one at random (you drew it yourselves)."),
    click.option("--draw-seed", type=click.IntRange(0), default=None, metavar="N",
                 help="Seed of the random draw (default: a fresh one)."),
)


def _with(options):
    def decorate(command):
        for option in reversed(options):
            command = option(command)
        return command
    return decorate


def _echo_campaign(campaign) -> None:
    from timekeeper.logbook.text import format_campaign

    click.echo(format_campaign(campaign), nl=False)
    if campaign.pending is not None:
        leg = campaign.pending
        click.echo(f"Mission {leg.number}: play {leg.track.label()} (common {leg.common.value}, serious "
                   f"{leg.serious.value}), e.g. `timekeeper live {leg.track.file or leg.track.name}`; then "
                   f"`timekeeper log add --campaign {campaign.id}`.")


@click.group("campaign", cls=SuggestingGroup)
def campaign_group() -> None:
    """Exploration campaigns: up to three missions with the same ship.

    Before each mission choose the difficulty; the track is drawn at random
    (missions 1-8, or the double-action missions). Damage and disabled squads
    carry over; between missions each crew member not knocked out repairs one
    damage tile or squad (at most 2 per zone). Penalties count once, at the end;
    visual confirmation is summed and divided by the missions flown (rounded
    down). A destroyed ship loses the whole campaign.

    \b
    Examples:
      timekeeper log campaign start --crew "Ann:captain, Bob, Cid, Dee" --common 1 --serious 1
      timekeeper log add --campaign current --survived 5 --destroyed 8 --damage red=3
      timekeeper log campaign next --repair red=2,white=1 --common 1+2 --serious 1
      timekeeper log campaign end
      timekeeper log campaign show
    """


@campaign_group.command("start")
@click.option("--crew", required=True, metavar="NAMES", help="Players, comma-separated, roles as in `log add`.")
@click.option("--pool", type=click.Choice(["missions", "double-action"]), default="missions", show_default=True,
              help="Which tracks are drawn.")
@click.option("--date", default=None, metavar="YYYY-MM-DD", help="When the campaign starts (default: today).")
@_with(difficulty_options)
@click.pass_context
def start_command(ctx: click.Context, crew: str, pool: str, date: str | None, common: str, serious: str,
                  track: str | None, draw_seed: int | None) -> None:
    """Start a campaign: choose the first mission's difficulty and draw its track.

    \b
    Example:
      timekeeper log campaign start --crew "Ann:captain, Bob:co, Cid, Dee:sc" --common 1 --serious 2
    """
    from timekeeper.commands.logdb import open_from

    values = {"crew": crew, "pool": pool, "date": date or "", "common": common, "serious": serious, "track": track or ""}
    with open_from(ctx) as log:
        campaign = log.start_campaign(values, rng=random.Random(draw_seed))
        _echo_campaign(campaign)


@campaign_group.command("next")
@click.option("--campaign", default="current", show_default=True, metavar="N|current")
@click.option("--repair", multiple=True, metavar="WHAT=N,...",
              help="Repairs after the last mission: red=, white=, blue= (damage tiles), squads= (battlebots).")
@_with(difficulty_options)
@click.pass_context
def next_command(ctx: click.Context, campaign: str, repair: tuple[str, ...], common: str, serious: str,
                 track: str | None, draw_seed: int | None) -> None:
    """Repair, then choose the next mission's difficulty and draw its track.

    \b
    Example:
      timekeeper log campaign next --repair red=2,squads=1 --common 1+2 --serious 1
    """
    from timekeeper.commands.logdb import open_from

    values = {"campaign": campaign, "repairs": list(repair), "common": common, "serious": serious,
              "track": track or ""}
    with open_from(ctx) as log:
        _echo_campaign(log.next_mission(values, rng=random.Random(draw_seed)))


@campaign_group.command("end")
@click.option("--campaign", default="current", show_default=True, metavar="N|current")
@click.pass_context
def end_command(ctx: click.Context, campaign: str) -> None:
    """Stop the campaign now and score it (a drawn mission not flown is dropped).

    \b
    Example:
      timekeeper log campaign end
    """
    from timekeeper.commands.logdb import open_from

    with open_from(ctx) as log:
        _echo_campaign(log.end_campaign(campaign))


@campaign_group.command("show")
@click.argument("campaign_id", required=False, type=LOG_ID, metavar="[N]")
@click.pass_context
def show_command(ctx: click.Context, campaign_id: int | None) -> None:
    """Show a campaign (default: the open one, else every campaign).

    \b
    Examples:
      timekeeper log campaign show
      timekeeper log campaign show 2
    """
    from timekeeper.commands.logdb import open_from

    with open_from(ctx) as log:
        if campaign_id is not None:
            _echo_campaign(log.campaign(campaign_id))
            return
        current = log.current_campaign()
        chosen = [current] if current is not None else log.campaigns()
        if not chosen:
            click.echo("No campaigns yet (start one with `timekeeper log campaign start`).")
        for campaign in chosen:
            _echo_campaign(campaign)
