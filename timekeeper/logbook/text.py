"""The log as text for the terminal: `log list`, `log show`, `log campaign show`."""

from __future__ import annotations

from timekeeper.logbook.campaign import Campaign, Status
from timekeeper.logbook.record import Entry, MissionRecord, mission_score, penalties
from timekeeper.logbook.rows import COLUMNS, CampaignLine, LogLine, MissionLine

RIGHT_ALIGNED = {"#", "survived", "destroyed", "worst zone", "knocked out", "squads", "visual"}


def format_list(lines: list[LogLine]) -> str:
    """A table of missions; a campaign's missions marked with a bracket, its total under them."""
    if not lines:
        return "The ship's log is empty (record a mission with `timekeeper log add`).\n"
    cells = [line.cells() if isinstance(line, MissionLine) else () for line in lines]
    widths = [max(len(row[i]) for row in [COLUMNS, *filter(None, cells)]) for i in range(len(COLUMNS))]

    def render(cells: tuple[str, ...]) -> str:
        return "  ".join(c.rjust(w) if name in RIGHT_ALIGNED else c.ljust(w)
                         for c, w, name in zip(cells, widths, COLUMNS)).rstrip()

    out = ["  " + render(COLUMNS) + "  crew"]
    for line, row in zip(lines, cells):
        if isinstance(line, MissionLine):
            mark = {"first": "┌ ", "middle": "│ ", "last": "│ ", "only": "│ "}.get(line.bracket, "  ")
            crew = f"  {line.entry.record.crew.label()}" if line.bracket in ("", "first", "only") else ""
            out.append(mark + render(row) + crew)
        else:
            out.append("└ " + line.summary())
    return "\n".join(out) + "\n"


def score_text(record: MissionRecord) -> str:
    """`14 = survived 4 + destroyed 10 - damage 3 - worst zone 2 - knocked out 2 - squads 0 + visual 3`."""
    if record.ship_destroyed:
        return f"lost: the ship was destroyed by {record.destroyed_by}"
    lost = penalties(record.damage, record.knocked_out, record.disabled_squads)
    return (f"{mission_score(record)} = survived {record.survived_points} + destroyed {record.destroyed_points} "
            f"- damage {lost.damage} - worst zone {lost.worst_zone} - knocked out {lost.knocked_out} "
            f"- squads {lost.squads} + visual {record.visual_confirmation}")


def format_entry(entry: Entry, campaign: Campaign | None = None) -> str:
    record = entry.record
    lines = [
        f"Mission #{entry.id}, {record.played_on.isoformat()}",
        f"  crew:        {record.crew.label()}",
        f"  track:       {record.track.label()}" + (f"  [{record.track.file}]" if record.track.file else ""),
        f"  difficulty:  common {record.common.value}, serious {record.serious.value}",
        f"  threats:     survived {record.survived_points}, destroyed {record.destroyed_points}",
        f"  damage:      red {record.damage.red}, white {record.damage.white}, blue {record.damage.blue}",
        f"  knocked out: {record.knocked_out}; disabled battlebot squads: {record.disabled_squads}",
        f"  visual confirmation: {record.visual_confirmation}",
    ]
    if campaign is not None:
        lines.append(f"  campaign:    {campaign.id}, mission {entry.campaign_mission} "
                     f"(threats {record.threat_points}; the campaign scores penalties at its end)")
        if record.ship_destroyed:
            lines.append(f"  score:       {score_text(record)}")
    else:
        lines.append(f"  score:       {score_text(record)}")
    if record.notes:
        lines.append(f"  notes:       {record.notes}")
    return "\n".join(lines) + "\n"


def format_campaign(campaign: Campaign) -> str:
    """A campaign's missions, the damage carried into each, repairs, and where it stands."""
    lines = [f"Campaign {campaign.id}: {campaign.status.value}, started {campaign.started_on}"
             + (f", ended {campaign.ended_on}" if campaign.ended_on else ""),
             f"  crew: {campaign.crew.label()}"]
    for leg in campaign.legs:
        damage, squads = campaign.carried_into(leg.number)
        head = (f"  mission {leg.number}: {leg.track.label()}, common {leg.common.value}, serious "
                f"{leg.serious.value}")
        if leg.number > 1:
            head += f"; repaired {leg.repairs.label()}"
        head += f"; starts with damage {damage.label()} (r/w/b), {squads} squad(s) disabled"
        lines.append(head)
        if leg.entry is None:
            lines.append("    waiting for its result: timekeeper log add --campaign "
                         f"{campaign.id} --survived N --destroyed N ...")
        else:
            record = leg.entry.record
            result = (f"destroyed by {record.destroyed_by}" if record.ship_destroyed else
                      f"threats {record.survived_points}+{record.destroyed_points}, damage {record.damage.label()}, "
                      f"knocked out {record.knocked_out}, squads {record.disabled_squads}, "
                      f"visual {record.visual_confirmation}")
            lines.append(f"    #{leg.entry.id} {record.played_on.isoformat()}: {result}")
    lines.append("  " + CampaignLine(campaign).summary())
    if campaign.can_continue:
        last = campaign.flown[-1].record
        able = last.crew.figures - last.knocked_out
        lines.append(f"  next: `timekeeper log campaign next` (up to {able} repairs, at most 2 per zone) "
                     "or `timekeeper log campaign end`")
    elif campaign.status is Status.OPEN and not campaign.legs:
        lines.append("  nothing drawn")
    return "\n".join(lines) + "\n"


__all__ = ["format_list", "format_entry", "format_campaign", "score_text"]
