"""The log's words that depend on the crew's language, in words any screen (or the printed log)
says in its own language (timekeeper.i18n.Said): a track as the log names it, a mission's score
cell, a campaign's closing line."""

from __future__ import annotations

from timekeeper.i18n import Said, said
from timekeeper.logbook.campaign import Status
from timekeeper.logbook.record import Track
from timekeeper.logbook.rows import CampaignLine, MissionLine
from timekeeper.scenario.catalog import builtin_titles
from timekeeper.titles import title_said


def track_said(track: Track) -> Said | str:
    """A built-in track by its title ("Erster Testlauf" for test-run-1), a scenario file by its
    title, either said in the crew's language when timekeeper gave it; with the generator's seed
    unless the title names it. A title of a crew's own is as written."""
    title = builtin_titles().get(track.name, track.name) if track.file is None else track.name
    known = title_said(title)
    words: Said | str = known if known is not None else title
    if track.seed is None or (known is not None and any(name in ("seed", "campaign") for name, _ in known.values)):
        return words
    return said("log.track.seeded", title=words, seed=track.seed)


def score_said(line: MissionLine) -> Said | str:
    """A mission's score cell: the number, or the threat that destroyed the ship."""
    record = line.entry.record
    if record.ship_destroyed:
        return said("log.destroyed_by", threat=record.destroyed_by or "")
    return line.cells()[-1]


def campaign_said(line: CampaignLine) -> Said:
    """A campaign's closing line ("Campaign 2 (open, 1 mission): threats 26 - damage 3 ... = 25")."""
    campaign = line.campaign
    flown = len(campaign.flown)
    head = said("log.campaign.one" if flown == 1 else "log.campaign.many", id=campaign.id,
                status=said(f"log.status.{campaign.status.value}"), count=flown)
    score = campaign.score()
    if campaign.status is Status.LOST:
        rest = said("log.campaign.lost", threat=campaign.destroyed_by or "")
    elif score is None:
        rest = said("log.campaign.nothing")
    else:
        final = score.final
        rest = said("log.campaign.score", threats=score.threat_points, damage=final.damage, worst_zone=final.worst_zone,
                    knocked_out=final.knocked_out, squads=final.squads, visual=score.visual_total,
                    missions=score.missions, total=score.total)
    return said("log.pdf.campaign", head=head, rest=rest)
