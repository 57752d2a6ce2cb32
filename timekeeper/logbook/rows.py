"""The log as the printed page and `log list` show it: one line per mission, campaigns bracketed.

Entries + campaigns -> LogLine items in page order (a campaign's missions stay together, where its
first mission falls, followed by its total). The text list and the PDF both read these lines.
"""

from __future__ import annotations

from dataclasses import dataclass

from timekeeper.logbook.campaign import Campaign, Status
from timekeeper.logbook.record import Entry, mission_score

COLUMNS = ("#", "date", "track", "common", "serious", "survived", "destroyed", "damage r/w/b", "worst zone",
           "knocked out", "squads", "visual", "score")


@dataclass(frozen=True)
class MissionLine:
    entry: Entry
    bracket: str = ""  # "", "first", "middle", "last" (campaign missions)

    def cells(self) -> tuple[str, ...]:
        record = self.entry.record
        if record.ship_destroyed:
            score = f"destroyed by {record.destroyed_by}"
        elif self.entry.campaign_id is not None:
            score = f"({record.threat_points})"  # the campaign scores penalties once, at the end
        else:
            score = str(mission_score(record))
        return (str(self.entry.id), record.played_on.isoformat(), record.track.label(), record.common.value,
                record.serious.value, str(record.survived_points), str(record.destroyed_points),
                record.damage.label(), str(record.damage.worst_zone), str(record.knocked_out),
                str(record.disabled_squads), str(record.visual_confirmation), score)


@dataclass(frozen=True)
class CampaignLine:
    """The closing line of a campaign: its state and total."""

    campaign: Campaign

    def summary(self) -> str:
        campaign = self.campaign
        flown = len(campaign.flown)
        head = f"Campaign {campaign.id} ({campaign.status.value}, {flown} mission{'s' if flown != 1 else ''})"
        if campaign.status is Status.LOST:
            return f"{head}: lost, the ship was destroyed by {campaign.destroyed_by}"
        score = campaign.score()
        if score is None:
            return f"{head}: nothing flown yet"
        return f"{head}: {score_breakdown(score)}"


def score_breakdown(score) -> str:
    """`threats 26 - damage 3 - worst zone 2 - knocked out 0 - squads 0 + visual 9/2 = 25` for a campaign."""
    lost = score.final
    return (f"threats {score.threat_points} - damage {lost.damage} - worst zone {lost.worst_zone} - knocked out "
            f"{lost.knocked_out} - squads {lost.squads} + visual {score.visual_total}/{score.missions} = {score.total}")


LogLine = MissionLine | CampaignLine


def log_lines(entries: list[Entry], campaigns: list[Campaign]) -> list[LogLine]:
    """Every mission in date order; a campaign's missions together at its first one, then its total."""
    by_id = {campaign.id: campaign for campaign in campaigns}
    lines: list[LogLine] = []
    shown: set[int] = set()
    for entry in entries:
        if entry.campaign_id is None:
            lines.append(MissionLine(entry))
            continue
        if entry.campaign_id in shown:
            continue
        shown.add(entry.campaign_id)
        campaign = by_id[entry.campaign_id]
        flown = campaign.flown
        for index, leg_entry in enumerate(flown):
            bracket = "first" if index == 0 else "last" if index == len(flown) - 1 else "middle"
            lines.append(MissionLine(leg_entry, bracket if len(flown) > 1 else "only"))
        lines.append(CampaignLine(campaign))
    return lines
