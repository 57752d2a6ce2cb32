"""Log statistics: per crew, per player and per track, missions flown, wins, best and mean score;
campaigns per crew.

A mission counts as won when the ship survived. Scores are the rulebook scores of single missions
(campaign missions count as missions and wins; their score is the campaign's, listed per crew).
A campaign counts as won or lost only once it is finished (complete, ended, or lost with the ship);
open campaigns are counted apart.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from statistics import fmean

from timekeeper.logbook.campaign import Campaign, Status
from timekeeper.logbook.record import Entry


@dataclass(frozen=True)
class GroupStats:
    """`missions` counted (for campaigns: the finished ones), `wins` among them, the best and mean
    score; `open`: campaigns still being flown, in none of the other figures."""

    key: str
    missions: int
    wins: int
    best: int | None
    mean: float | None
    open: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins / self.missions if self.missions else 0.0


@dataclass(frozen=True)
class LogStats:
    overall: GroupStats
    by_crew: tuple[GroupStats, ...]
    by_player: tuple[GroupStats, ...]
    by_track: tuple[GroupStats, ...]
    campaigns_by_crew: tuple[GroupStats, ...]
    scores: tuple[tuple[str, str, int], ...]  # (date, crew, score) of every scored single mission, in order


def _group(key: str, entries: list[Entry]) -> GroupStats:
    scores = [entry.score for entry in entries if entry.score is not None]
    return GroupStats(key, len(entries), sum(entry.won for entry in entries),
                      max(scores) if scores else None, fmean(scores) if scores else None)


def _grouped(entries: Iterable[Entry], keys: Callable[[Entry], Iterable[str]]) -> tuple[GroupStats, ...]:
    """Stats of each group; an entry is in every group `keys` names for it."""
    groups: dict[str, list[Entry]] = {}
    for entry in entries:
        for key in keys(entry):
            groups.setdefault(key, []).append(entry)
    found = [_group(name, members) for name, members in groups.items()]
    return tuple(sorted(found, key=lambda g: (-g.missions, g.key.casefold())))


def log_stats(entries: list[Entry], campaigns: list[Campaign]) -> LogStats:
    crew_campaigns: dict[str, list[Campaign]] = {}
    for campaign in campaigns:
        if campaign.flown or campaign.status is Status.OPEN:
            crew_campaigns.setdefault(campaign.crew.key(), []).append(campaign)
    campaign_groups = []
    for crew, members in crew_campaigns.items():
        finished = [c for c in members if c.status is not Status.OPEN]
        totals = [score.total for score in (c.score() for c in finished) if score is not None]
        campaign_groups.append(GroupStats(crew, len(finished), sum(c.status is not Status.LOST for c in finished),
                                          max(totals) if totals else None, fmean(totals) if totals else None,
                                          open=len(members) - len(finished)))
    return LogStats(
        overall=_group("all missions", entries),
        by_crew=_grouped(entries, lambda entry: [entry.record.crew.key()]),
        by_player=_grouped(entries, lambda entry: entry.record.crew.names),
        by_track=_grouped(entries, lambda entry: [entry.record.track.label()]),
        campaigns_by_crew=tuple(sorted(campaign_groups, key=lambda g: (-g.missions - g.open, g.key.casefold()))),
        scores=tuple((e.record.played_on.isoformat(), e.record.crew.key(), e.score)
                     for e in entries if e.score is not None),
    )


def format_stats(stats: LogStats) -> str:
    """The tables `timekeeper log stats` prints."""
    out = [_table("Crew", stats.by_crew, "missions"), _table("Player", stats.by_player, "missions"),
           _table("Track", stats.by_track, "missions")]
    if stats.campaigns_by_crew:
        out.append(_table("Campaigns of crew", stats.campaigns_by_crew, "finished", with_open=True))
    overall = stats.overall
    mean = f"{overall.mean:.1f}" if overall.mean is not None else "-"
    out.append(f"All: {overall.missions} missions, {overall.wins} won, best score "
               f"{overall.best if overall.best is not None else '-'}, mean {mean}\n")
    return "\n".join(out)


def _table(title: str, groups: tuple[GroupStats, ...], counted: str, *, with_open: bool = False) -> str:
    rows = [(g.key, str(g.missions), str(g.wins), "-" if g.best is None else str(g.best),
             "-" if g.mean is None else f"{g.mean:.1f}", *([str(g.open)] if with_open else [])) for g in groups]
    head = (title, counted, "won", "best", "mean", *(["open"] if with_open else []))
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]
    lines = ["  ".join([head[0].ljust(widths[0])] + [h.rjust(w) for h, w in zip(head[1:], widths[1:])])]
    lines += ["  ".join([row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]) for row in rows]
    return "\n".join(lines) + "\n"


def plot_stats(stats: LogStats, path) -> None:
    """Best and mean score per track, and every scored mission over time per crew, as a PNG."""
    from timekeeper.errors import OutputError
    from timekeeper.files.atomicfile import replacing
    from timekeeper.generate.plot import require_matplotlib

    pyplot = require_matplotlib()
    figure, (tracks_axes, time_axes) = pyplot.subplots(1, 2, figsize=(12, 5))
    scored = [g for g in stats.by_track if g.best is not None]
    positions = range(len(scored))
    tracks_axes.bar([p - 0.2 for p in positions], [g.best for g in scored], 0.4, label="best")
    tracks_axes.bar([p + 0.2 for p in positions], [g.mean for g in scored], 0.4, label="mean")
    tracks_axes.set_xticks(list(positions), [g.key for g in scored], rotation=45, ha="right")
    tracks_axes.set_title("Score per track")
    tracks_axes.legend()
    tracks_axes.set_xlim(-0.6, max(len(scored), 1) - 0.4)
    if not scored:
        tracks_axes.text(0.5, 0.5, "no scored missions yet", ha="center", transform=tracks_axes.transAxes)
    crews = sorted({crew for _, crew, _ in stats.scores})
    for crew in crews:
        points = [(datetime.date.fromisoformat(day), score) for day, who, score in stats.scores if who == crew]
        time_axes.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=crew)
    time_axes.set_title("Scores of single missions by crew")
    time_axes.set_xlabel("date played")
    if crews:
        time_axes.legend(fontsize="small")
    figure.autofmt_xdate()
    figure.tight_layout()
    try:
        with replacing(path, suffix=".png") as temp:
            figure.savefig(temp, format="png", dpi=110)
    except OSError as error:
        raise OutputError.cannot_write(path, error) from error
    finally:
        pyplot.close(figure)
