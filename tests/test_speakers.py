"""A game's speakers (serve/games/speakers.py) and its silence (serve/games/game.py), with time
passed in: who is heard, when a worker takes a speaker for lost, and where a mission nobody
hears pauses itself."""

from __future__ import annotations

import pytest

from timekeeper.serve.games.game import PAUSED, PLAYING, SILENT, Game, Playback, wall_ms
from timekeeper.serve.games.speakers import (
    BEHIND_AT_MOST_MS,
    BEHIND_MS,
    MAX_SPEAKERS,
    REPORT_GAP_MS,
    SILENT_AFTER_MS,
    START_GRACE_MS,
    UNWATCHED_MS,
    Report,
    Speaker,
    SpeakerWatch,
)
from timekeeper.serve.tracks.library import Library

NOW = wall_ms()  # each test's "now": set again as it starts (a game ends itself when its clock has run
# past its end on the real clock, and the full tier may run a test many minutes after this file is imported)


@pytest.fixture(autouse=True)
def _now_is_when_the_test_starts() -> None:
    global NOW
    NOW = wall_ms()


@pytest.fixture
def game(tmp_path) -> Game:
    loaded = Library(None, tmp_path).load("builtin:test-run-1")
    settings = {"language": "en", "voice": None, "players": 5, "solo": False, "background": True, "music": None,
                "computer_voice": False, "pace": 1.0}
    return Game("0123456789ab", loaded.track.id, loaded.track.title, loaded.yaml_text, settings)


def playing_at(game: Game, position_ms: float, wall: float) -> None:
    game.playback = Playback(PLAYING, position_ms, wall)


def test_every_claim_adds_a_speaker_and_a_release_forgets_one(game):
    game.claim("a")
    game.claim("b", late_ms=120)
    assert game.heard_speakers() == ["a", "b"] and game.speakers["b"].late_ms == 120
    assert game.release("a") and not game.release("a")
    assert game.heard_speakers() == ["b"]


def test_a_playing_mission_whose_every_speaker_is_lost_is_silent_until_one_is_heard(game):
    game.claim("a")
    game.claim("b")
    playing_at(game, 10_000, NOW)
    game.hear("a", False, 9_500)
    assert game.silent_since_ms is None  # b still plays
    game.hear("b", False, 9_800)
    assert game.silent_since_ms is not None
    game.hear("b", True)
    assert game.silent_since_ms is None


def test_a_mission_without_speakers_or_in_quiet_mode_is_never_silent(game):
    playing_at(game, 0, NOW)
    game.watch_silence(NOW)
    assert game.silent_since_ms is None  # the prompter: nobody was to play the sound
    game.claim("a")
    game.release("a")  # unticked on purpose
    assert game.silent_since_ms is None
    game.mode = "quiet"
    game.claim("b")
    game.hear("b", False)
    assert game.silent_since_ms is None


def test_a_silent_mission_pauses_itself_where_it_was_last_heard_and_notes_why(game):
    game.settings["silence_pause_s"] = 3
    game.claim("a")
    playing_at(game, 60_000, NOW)
    game.hear("a", False, 61_000)
    game.silent_since_ms = NOW + 1500
    assert not game.pause_if_silent(NOW + 1500 + 2999)
    assert game.pause_if_silent(NOW + 1500 + 3000)
    assert game.playback.status == PAUSED and game.playback.position_ms == 61_000 and game.playback.reason == SILENT
    assert game.notes == [{"kind": SILENT, "position_ms": 61_000, "at_ms": NOW + 4500}]
    game.play()
    assert game.playback.reason is None and game.notes  # the history stays


def test_a_pause_of_zero_seconds_never_pauses(game):
    game.settings["silence_pause_s"] = 0
    game.claim("a")
    playing_at(game, 0, NOW)
    game.hear("a", False, 0)
    assert not game.pause_if_silent(NOW + 3_600_000)


def test_the_game_settings_change_neither_the_mix_nor_its_sound_file(game):
    key = game.mix_key
    game.settings.update(remote=True, silence_pause_s=0)
    assert game.mix_key == key and game.remote and game.silence_pause_ms == 0
    assert "remote" not in vars(game.mix_settings)


def test_a_game_saved_with_one_sound_device_keeps_it_as_its_speaker(game):
    record = game.as_record()
    del record["speakers"]
    record["holder"] = "old-phone"
    assert Game.from_record(record).speakers == {"old-phone": Speaker()}
    game.claim("a", 30)
    assert Game.from_record(game.as_record()).speakers == game.speakers


def test_a_game_keeps_at_most_its_number_of_speakers_those_not_heard_forgotten_first(game):
    game.claim("lost")
    game.hear("lost", False)
    for n in range(MAX_SPEAKERS):
        game.claim(f"s{n}")
    assert len(game.speakers) == MAX_SPEAKERS and "lost" not in game.speakers


# --- what one worker sees -------------------------------------------------------------------------
def reports(watch: SpeakerWatch, positions: list[float], first_ms: float, *, every_ms: float = 500, playing: bool = True,
            loading: bool = False) -> list:
    """Reports of speaker "a" of game "g" every `every_ms` from `first_ms`, at `positions`: each verdict."""
    return [watch.report("g", "a", Report(at, playing, first_ms + n * every_ms, loading), first_ms + n * every_ms,
                         mission_playing=True) for n, at in enumerate(positions)]


def test_a_worker_takes_a_speaker_whose_clock_stands_still_for_lost():
    watch = SpeakerWatch()
    watch.claimed("g", "a", "socket", NOW, 0)
    since = {"g": NOW}
    assert reports(watch, [0, 500, 1000, 1500, 2000, 2500], NOW) == [False, True, True, True, True, True]
    assert reports(watch, [2500, 2500, 2500], NOW + 3000) == [False, False, False]  # its position stands still
    assert watch.lost(NOW + 2500 + SILENT_AFTER_MS, since.get) == []
    assert watch.lost(NOW + 2500 + SILENT_AFTER_MS + 1, since.get) == [("g", "a", 2500)]
    assert watch.lost(NOW + 10_000, {"g": None}.get) == []  # paused: nothing to hear


def test_a_worker_that_fell_behind_judges_no_speaker_until_it_has_kept_up_a_while():
    # the watch is due every 250 ms; held up 2.6 s (2,500 screens rejoining at once, as measured),
    # the reports waiting unread are no silence
    watch, every = SpeakerWatch(), 250.0
    assert watch.keeping_up(NOW, every)
    assert watch.keeping_up(NOW + every + BEHIND_MS, every)  # late, but within the bound
    late = NOW + 2 * every + 2 * BEHIND_MS + 2600
    assert not watch.keeping_up(late, every)
    on_time = [late + every * n for n in range(1, 12)]
    judged = [watch.keeping_up(at, every) for at in on_time]
    assert judged == [at >= late + SILENT_AFTER_MS for at in on_time] and judged[-1]  # then it judges again
    assert not watch.keeping_up(on_time[-1] + every + BEHIND_MS + 1, every)  # behind again: again not


def test_a_worker_behind_for_good_judges_its_speakers_all_the_same():
    # every watch 1 s late: behind without a break; after BEHIND_AT_MOST_MS a silent mission is noticed
    watch, every = SpeakerWatch(), 250.0
    watch.keeping_up(NOW, every)
    moments = [NOW + (every + 1000) * n for n in range(1, 30)]
    judged = [watch.keeping_up(at, every) for at in moments]
    first_late = moments[0]
    assert judged == [at - first_late >= BEHIND_AT_MOST_MS for at in moments] and judged[-1]
    # once it keeps up for SILENT_AFTER_MS the count starts again
    at = moments[-1]
    for _ in range(int(SILENT_AFTER_MS // every) + 2):
        at += every
        watch.keeping_up(at, every)
    assert watch.behind_since_ms is None
    assert not watch.keeping_up(at + every + BEHIND_MS + 1, every)


def test_a_speaker_starting_has_its_time_and_more_while_its_sound_loads():
    watch = SpeakerWatch()
    watch.claimed("g", "a", "socket", NOW, 0)
    assert watch.lost(NOW + SILENT_AFTER_MS, {"g": NOW}.get) == []
    assert watch.lost(NOW + 20_000, {"g": NOW + 19_000}.get) == []  # the clock started (or jumped) a second ago
    reports(watch, [0, 0, 0], NOW, loading=True)
    assert watch.lost(NOW + START_GRACE_MS, {"g": NOW}.get) == []
    assert watch.lost(NOW + START_GRACE_MS + 1, {"g": NOW}.get) == [("g", "a", 0)]
    refused = SpeakerWatch()  # not loading and not playing (the browser refused to play without a tap)
    refused.claimed("g", "a", "socket", NOW, 0)
    reports(refused, [0, 0], NOW, playing=False)
    assert refused.lost(NOW + SILENT_AFTER_MS + 1, {"g": NOW}.get) == [("g", "a", 0)]


def test_reports_too_close_together_or_read_long_ago_say_nothing():
    watch = SpeakerWatch()
    watch.claimed("g", "a", "socket", NOW, 0)
    assert watch.report("g", "a", Report(100, True, NOW), NOW, mission_playing=True) is not None
    assert watch.report("g", "a", Report(150, True, NOW + 50), NOW + REPORT_GAP_MS - 1, mission_playing=True) is None
    assert watch.report("g", "a", Report(150, True, NOW - 5000), NOW + 1000, mission_playing=True) is None
    assert watch.report("g", "nobody", Report(150, True, NOW), NOW + 2000, mission_playing=True) is None


def test_a_speaker_is_gone_with_its_last_socket_on_this_worker():
    watch = SpeakerWatch()
    watch.claimed("g", "a", "old", NOW, 1000)
    watch.claimed("g", "a", "new", NOW + 100, 1100)  # it reconnected before the old socket closed
    assert watch.closed("g", "old") == []
    assert watch.closed("g", "new") == [("a", 1100)]
    assert watch.seen == {}


def test_a_speaker_no_live_worker_watches_is_lost_once_its_page_had_time_to_come_back():
    watch = SpeakerWatch()
    assert watch.orphaned("g", ["a", "b"], NOW) == []
    assert watch.orphaned("g", ["a", "b"], NOW + UNWATCHED_MS - 1) == []
    watch.claimed("g", "b", "socket", NOW + UNWATCHED_MS - 1, 0)  # b's page came back (here)
    assert watch.orphaned("g", ["a"], NOW + UNWATCHED_MS) == ["a"]
    assert ("g", "b") not in watch.orphans
