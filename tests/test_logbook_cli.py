"""`timekeeper log` as a user runs it: recording (flags and prompts), bad values, reading, export and
import, the printed PDF, and a whole campaign."""

from __future__ import annotations

import json

import pytest
from logbook_helpers import CREW, timekeeper
from pypdf import PdfReader
from realparts import require
from running import timekeeper as run

from timekeeper.errors import ExitStatus
from timekeeper.logbook.shiplog import ShipLog

GOOD = ("--crew", CREW, "--track", "mission-3", "--common", "1", "--serious", "1+2", "--survived", "4",
        "--destroyed", "10", "--damage", "red=2,blue=1", "--knocked-out", "1", "--visual-confirmation", "3")


def test_add_with_flags_stores_the_mission_and_shows_the_score(tmp_path):
    db = tmp_path / "log.sqlite3"
    result = timekeeper(db, "add", *GOOD, "--date", "2026-11-01", "--notes", "close call")
    assert result.returncode == 0, result.stderr
    assert "10 = survived 4 + destroyed 10 - damage 3 - worst zone 2 - knocked out 2 - squads 0 + visual 3" in result.stdout
    with ShipLog.open(db) as log:
        (entry,) = log.entries()
    record = entry.record
    assert record.crew.label() == "Ann (C), Bob (CO), Cid, Dee (SC)"
    assert (record.played_on.isoformat(), record.track.name, record.serious.value, record.notes) == (
        "2026-11-01", "mission-3", "1+2", "close call")
    assert timekeeper(db, "show", str(entry.id)).stdout.startswith(f"Mission #{entry.id}, 2026-11-01\n")


@pytest.mark.parametrize("args, field, expected", [
    (("--survived", "-3"), "survived", "at least 0, got -3"),
    (("--destroyed", "lots"), "destroyed", "whole number"),
    (("--track", "mision-3"), "track", "did you mean 'mission-3'"),
    (("--damage", "green=2"), "damage", "unknown zone 'green' (expected red, white, blue)"),
    (("--damage", "red=7"), "damage", "from 0 to 6"),
    (("--damage", "red"), "damage", "red=2"),
    (("--common", "3"), "common", "expected 1, 2 or 1+2"),
    (("--knocked-out", "5"), "knocked_out", "from 0 to 4"),
    (("--disabled-squads", "3"), "disabled_squads", "from 0 to 2"),
    (("--date", "22.11.2026"), "date", "YYYY-MM-DD"),
    (("--date", "2999-01-01"), "date", "in the future"),
    (("--crew", "Ann, ann"), "crew", "named twice"),
    (("--crew", "Ann:pilot"), "crew", "unknown role 'pilot'"),
    (("--crew", "A, B, C, D, E, F"), "crew", "1 to 5 players"),
    (("--crew", "Ann:captain, Bob:captain"), "crew", "already the captain"),
    (("--captain", "Zed"), "captain", "not in the crew"),
    (("--seed", "7"), "track", "a seed belongs to a generated mission file"),
])
def test_every_bad_value_is_one_clear_error_and_nothing_is_stored(tmp_path, args, field, expected):
    db = tmp_path / "log.sqlite3"
    options = dict(zip(GOOD[::2], GOOD[1::2]))
    options.update(zip(args[::2], args[1::2]))
    result = timekeeper(db, "add", "--no-prompt", *[part for pair in options.items() for part in pair])
    assert result.returncode == ExitStatus.INVALID_LOG_ENTRY, result.stderr
    assert result.stderr == f"Error: {field}: {result.stderr.split(': ', 2)[2]}"
    assert expected in result.stderr and result.stderr.count("\n") == 1
    with ShipLog.open(db) as log:
        assert log.entries() == []


def test_several_bad_values_are_reported_together(tmp_path):
    db = tmp_path / "log.sqlite3"
    result = timekeeper(db, "add", "--no-prompt", "--crew", CREW, "--track", "nowhere", "--survived", "-1",
                        "--damage", "purple=1")
    assert result.returncode == ExitStatus.INVALID_LOG_ENTRY
    fields = [line.removeprefix("Error: ").split(":")[0] for line in result.stderr.splitlines()]
    assert fields == ["track", "damage", "survived"]
    assert "nowhere" in result.stderr and "purple" in result.stderr and "-1" in result.stderr


def test_missing_crew_and_track_without_a_terminal(tmp_path):
    result = timekeeper(tmp_path / "log.sqlite3", "add", "--survived", "3")
    assert result.returncode == ExitStatus.INVALID_LOG_ENTRY
    assert "crew: expected the names" in result.stderr and "track: expected a built-in track" in result.stderr


def test_add_asks_for_each_value_and_asks_again_after_a_bad_one(tmp_path):
    db = tmp_path / "log.sqlite3"
    answers = "\n".join([
        "Ann:captain, Bob, Cid, Dee",  # crew
        "2026-11-02",  # date
        "mision-5", "mission-5",  # a typo, asked again
        "1", "2",  # common, serious
        "",  # not destroyed
        "-2", "3",  # survived: bad, then good
        "12", "1", "0", "2", "0", "1", "4",  # destroyed, damage r/w/b, knocked out, squads, visual
    ]) + "\n"
    result = timekeeper(db, "add", "--prompt", input=answers)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "did you mean 'mission-5'" in result.stdout and "at least 0, got -2" in result.stdout  # asked again
    with ShipLog.open(db) as log:
        (entry,) = log.entries()
    assert entry.record.track.name == "mission-5" and entry.record.serious.value == "2"
    assert entry.score == 3 + 12 - 3 - 2 - 0 - 1 + 4


def test_a_campaign_mission_asks_only_for_the_results(tmp_path):
    db = tmp_path / "log.sqlite3"
    assert timekeeper(db, "campaign", "start", "--crew", CREW, "--track", "mission-7").returncode == 0
    single = timekeeper(db, "add", "--crew", CREW, "--track", "mission-7", "--destroyed", "3")
    assert single.returncode == 0 and "Note: campaign 1 waits for the result of mission 1" in single.stderr
    assert timekeeper(db, "remove", "1").returncode == 0
    # in a terminal it asks whether this is the campaign's mission, then only for the results
    answers = "\n".join(["", "", "", "2", "9", "1", "0", "0", "0", "0", "2"]) + "\n"
    result = timekeeper(db, "add", "--prompt", input=answers)
    assert "Record it as mission 1 of campaign 1 (mission-7)? [Y/n]" in result.stdout
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Track" not in result.stdout and "Crew (names" not in result.stdout
    assert "Campaign 1 (open, 1 mission): threats 11 - damage 1 - worst zone 1" in result.stdout


def test_a_scenario_file_is_recorded_with_its_title_and_seed(tmp_path):
    db = tmp_path / "log.sqlite3"
    mission = tmp_path / "generated.yaml"
    assert run("generate", "--seed", "4711", "-o", str(mission)).returncode == 0
    result = timekeeper(db, "add", "--crew", CREW, "--track", str(mission), "--seed", "4711", "--destroyed", "9")
    assert result.returncode == 0, result.stderr
    assert "(seed 4711)" in result.stdout
    wrong = timekeeper(db, "add", "--crew", CREW, "--track", str(mission), "--seed", "5")
    assert wrong.returncode == ExitStatus.INVALID_LOG_ENTRY and "generated with seed 4711, not 5" in wrong.stderr


def _three_missions(db):
    assert timekeeper(db, "add", *GOOD, "--date", "2026-10-01").returncode == 0
    assert timekeeper(db, "add", "--crew", "Eve, Fay, Gus", "--track", "mission-1", "--date", "2026-10-02",
                      "--destroyed-by", "Behemoth").returncode == 0
    assert timekeeper(db, "add", "--crew", "Dee, Cid, Bob, Ann", "--track", "mission-3", "--date", "2026-10-03",
                      "--survived", "2", "--destroyed", "14", "--visual-confirmation", "1").returncode == 0


def test_list_and_stats_per_crew_and_track(tmp_path):
    db = tmp_path / "log.sqlite3"
    _three_missions(db)
    listing = timekeeper(db, "list").stdout.splitlines()
    assert len(listing) == 4 and "destroyed by Behemoth" in listing[2] and listing[3].split()[-5] == "17"
    assert len(timekeeper(db, "list", "--crew", "eve").stdout.splitlines()) == 2
    assert len(timekeeper(db, "list", "--track", "mission-3", "--last", "1").stdout.splitlines()) == 2
    stats = timekeeper(db, "stats").stdout
    assert "Ann, Bob, Cid, Dee         2    2    17  13.5" in stats
    assert "Eve, Fay, Gus              1    0     -     -" in stats
    assert "mission-3         2    2    17  13.5" in stats
    assert "Player" in stats and "Eve            1    0     -     -" in stats


def test_stats_plot_writes_a_png(tmp_path):
    require("matplotlib")
    db = tmp_path / "log.sqlite3"
    _three_missions(db)
    target = tmp_path / "scores.png"
    result = timekeeper(db, "stats", "--plot", str(target))
    assert result.returncode == 0, result.stderr
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_export_csv_and_json_and_import_into_another_log(tmp_path):
    db, other = tmp_path / "log.sqlite3", tmp_path / "other.sqlite3"
    _three_missions(db)
    assert timekeeper(db, "campaign", "start", "--crew", CREW, "--draw-seed", "1").returncode == 0
    assert timekeeper(db, "add", "--campaign", "current", "--destroyed", "8", "--damage", "red=2").returncode == 0
    assert timekeeper(db, "campaign", "next", "--repair", "red=1", "--draw-seed", "2").returncode == 0
    assert timekeeper(db, "add", "--campaign", "current", "--destroyed", "9", "--damage", "red=3").returncode == 0
    assert timekeeper(db, "campaign", "end").returncode == 0
    csv_file, json_file = tmp_path / "log.csv", tmp_path / "log.json"
    assert timekeeper(db, "export", "-o", str(csv_file)).returncode == 0
    assert timekeeper(db, "export", "-o", str(json_file)).returncode == 0
    exported = json.loads(json_file.read_text())
    assert len(exported["missions"]) == 5 and exported["campaigns"][0]["score"] == 17 - 3 - 3 + 0
    result = timekeeper(other, "import", str(csv_file))
    assert result.returncode == 0, result.stderr
    assert "Imported 5 mission(s) (1 campaign(s)); 0 already in the log." in result.stdout
    again = timekeeper(other, "import", str(csv_file))
    assert "Imported 0 mission(s) (0 campaign(s)); 5 already in the log." in again.stdout
    assert timekeeper(other, "list").stdout == timekeeper(db, "list").stdout
    assert timekeeper(other, "export").stdout.splitlines()[1:] == csv_file.read_text().splitlines()[1:]


def test_import_of_a_bad_row_names_file_and_line_and_stores_nothing(tmp_path):
    db = tmp_path / "log.sqlite3"
    _three_missions(db)
    csv_file = tmp_path / "log.csv"
    timekeeper(db, "export", "-o", str(csv_file))
    lines = csv_file.read_text().splitlines()
    lines[3] = lines[3].replace(",mission-3,", ",mission-33,")
    csv_file.write_text("\n".join(lines) + "\n")
    other = tmp_path / "other.sqlite3"
    result = timekeeper(other, "import", str(csv_file))
    assert result.returncode == ExitStatus.INVALID_LOG_ENTRY
    assert result.stderr.startswith(f"Error: {csv_file}:4: track: 'mission-33' is neither")
    with ShipLog.open(other) as log:
        assert log.entries() == []
    lines[3] = lines[3].replace(",mission-33,", ",mission-3,")
    csv_file.write_text("\n".join(lines + ["9,2026-10-04,Ann,mission-1,,,1,1,0,0,0,0,0,0,0,0,,,,7,x"]) + "\n")
    odd = timekeeper(other, "import", str(csv_file))
    assert odd.returncode == ExitStatus.INVALID_LOG_ENTRY and "campaign_mission" in odd.stderr
    (tmp_path / "notes.csv").write_text("name,score\nAnn,3\n")
    wrong = timekeeper(other, "import", str(tmp_path / "notes.csv"))
    assert wrong.returncode == ExitStatus.INVALID_LOG_ENTRY and ":1: not a ship's log CSV" in wrong.stderr


def test_every_problem_of_a_bad_campaign_row_names_file_and_line(tmp_path):
    csv_file = tmp_path / "log.csv"
    csv_file.write_text("date,crew,track,campaign,campaign_mission\n2026-10-04,,no-such-track,c1,1\n")
    result = timekeeper(tmp_path / "log.sqlite3", "import", str(csv_file))
    assert result.returncode == ExitStatus.INVALID_LOG_ENTRY
    lines = result.stderr.removeprefix("Error: ").splitlines()
    assert [line.split(": ")[1] for line in lines] == ["crew", "track"]
    assert all(line.startswith(f"{csv_file}:2: ") for line in lines), result.stderr


def test_print_writes_a_log_page_with_crew_lines_and_bracketed_campaigns(tmp_path):
    db = tmp_path / "log.sqlite3"
    _three_missions(db)
    assert timekeeper(db, "campaign", "start", "--crew", "Ann:captain, Bob, Cid, Dee", "--track",
                      "mission-6").returncode == 0
    assert timekeeper(db, "add", "--campaign", "current", "--destroyed", "8").returncode == 0
    target = tmp_path / "log.pdf"
    result = timekeeper(db, "print", "-o", str(target))
    assert result.returncode == 0, result.stderr
    assert "Wrote" in result.stderr and "4 mission(s) on 1 page(s)" in result.stderr
    text = PdfReader(target).pages[0].extract_text()
    for expected in ("Ship's Log", "Crew: Ann (C), Bob (CO), Cid, Dee (SC)", "Crew: Eve, Fay, Gus",
                     "destroyed by Behemoth", "Mission 6", "Campaign 1 (open, 1 mission)", "C captain"):
        assert expected in text


def test_a_long_log_prints_on_several_pages(tmp_path):
    db = tmp_path / "log.sqlite3"
    with ShipLog.open(db) as log:
        with log.batch():
            for number in range(70):
                log.record_mission({"crew": CREW, "track": "mission-1", "destroyed": str(number)})
    target = tmp_path / "log.pdf"
    assert timekeeper(db, "print", "-o", str(target)).returncode == 0
    reader = PdfReader(target)
    assert len(reader.pages) >= 3
    assert "page 3/" in reader.pages[2].extract_text()
    assert all("Crew: Ann (C), Bob (CO), Cid, Dee (SC)" in page.extract_text() for page in reader.pages)


def test_a_whole_campaign_of_three_missions(tmp_path):
    db = tmp_path / "log.sqlite3"
    start = timekeeper(db, "campaign", "start", "--crew", "Ann:captain, Bob:co, Cid, Dee:sc", "--common", "1",
                       "--serious", "1", "--draw-seed", "11")
    assert start.returncode == 0, start.stderr
    assert "Mission 1: play mission-" in start.stdout
    assert timekeeper(db, "add", "--campaign", "current", "--survived", "4", "--destroyed", "10",
                      "--damage", "red=3,white=1", "--disabled-squads", "1", "--visual-confirmation", "4").returncode == 0
    early = timekeeper(db, "add", "--campaign", "current", "--destroyed", "1")
    assert early.returncode == ExitStatus.INVALID_LOG_ENTRY and "campaign next" in early.stderr
    too_many = timekeeper(db, "campaign", "next", "--repair", "red=3")
    assert too_many.returncode == ExitStatus.INVALID_LOG_ENTRY and "at most 2" in too_many.stderr
    step = timekeeper(db, "campaign", "next", "--repair", "red=2,squads=1", "--common", "1+2", "--draw-seed", "12")
    assert step.returncode == 0, step.stderr
    assert "starts with damage 1/1/0 (r/w/b), 0 squad(s) disabled" in step.stdout
    healed = timekeeper(db, "add", "--campaign", "current", "--destroyed", "6", "--damage", "red=0,white=1")
    assert healed.returncode == ExitStatus.INVALID_LOG_ENTRY and "started mission 2 with 1 damage in the red" in healed.stderr
    assert timekeeper(db, "add", "--campaign", "current", "--survived", "3", "--destroyed", "6",
                      "--damage", "red=1,white=3", "--visual-confirmation", "5").returncode == 0
    assert timekeeper(db, "campaign", "next", "--repair", "white=2", "--serious", "2").returncode == 0
    last = timekeeper(db, "add", "--campaign", "1", "--survived", "2", "--destroyed", "9",
                      "--damage", "red=2,white=1,blue=2", "--knocked-out", "1", "--visual-confirmation", "3")
    assert last.returncode == 0, last.stderr
    # threats 14 + 9 + 11 = 34; final damage 5 + worst 2 + knocked out 2 + squads 0; visual 12 // 3 = 4
    assert "Campaign 1 (complete, 3 missions): threats 34 - damage 5 - worst zone 2 - knocked out 2 - squads 0 " \
           "+ visual 12/3 = 29" in last.stdout  # 34 - 9 + 4
    fourth = timekeeper(db, "campaign", "next", "--campaign", "1")
    assert fourth.returncode == ExitStatus.INVALID_LOG_ENTRY and "it is complete" in fourth.stderr
    none_open = timekeeper(db, "campaign", "next")
    assert none_open.returncode == ExitStatus.INVALID_LOG_ENTRY and "no campaign is open" in none_open.stderr
    with ShipLog.open(db) as log:
        (campaign,) = log.campaigns()
    assert [leg.common.value for leg in campaign.legs] == ["1", "1+2", "1"]
    assert [leg.serious.value for leg in campaign.legs] == ["1", "1", "2"]
    assert len({leg.track.name for leg in campaign.legs}) == 3
    assert all(leg.track.name.startswith("mission-") for leg in campaign.legs)


def test_a_destroyed_ship_loses_the_whole_campaign(tmp_path):
    db = tmp_path / "log.sqlite3"
    assert timekeeper(db, "campaign", "start", "--crew", CREW).returncode == 0
    assert timekeeper(db, "add", "--campaign", "current", "--destroyed", "10", "--visual-confirmation", "6").returncode == 0
    assert timekeeper(db, "campaign", "next").returncode == 0
    lost = timekeeper(db, "add", "--campaign", "current", "--damage", "blue=7", "--destroyed-by", "Nemesis")
    assert lost.returncode == 0, lost.stderr
    assert "lost, the ship was destroyed by Nemesis" in lost.stdout
    assert timekeeper(db, "campaign", "end").returncode == ExitStatus.INVALID_LOG_ENTRY
    stats = timekeeper(db, "stats").stdout
    assert "Campaigns of crew   finished  won  best  mean  open" in stats
    assert "Ann, Bob, Cid, Dee         1    0     -     -     0" in stats


def test_stats_count_an_open_campaign_apart_from_won_and_lost(tmp_path):
    db = tmp_path / "log.sqlite3"
    assert timekeeper(db, "campaign", "start", "--crew", CREW).returncode == 0
    assert timekeeper(db, "add", "--campaign", "current", "--destroyed", "10").returncode == 0
    flying = timekeeper(db, "stats").stdout.split("Campaigns of crew", 1)[1]
    assert "Ann, Bob, Cid, Dee         0    0     -     -     1" in flying  # open: neither won nor lost yet
    assert timekeeper(db, "campaign", "end").returncode == 0
    ended = timekeeper(db, "stats").stdout.split("Campaigns of crew", 1)[1]
    assert "Ann, Bob, Cid, Dee         1    1    10  10.0     0" in ended


def test_ending_early_drops_the_drawn_mission_and_scores_what_was_flown(tmp_path):
    db = tmp_path / "log.sqlite3"
    assert timekeeper(db, "campaign", "start", "--crew", CREW, "--pool", "double-action").returncode == 0
    assert timekeeper(db, "add", "--campaign", "current", "--survived", "3", "--destroyed", "7",
                      "--damage", "white=2", "--visual-confirmation", "3").returncode == 0
    assert timekeeper(db, "campaign", "next").returncode == 0
    ended = timekeeper(db, "campaign", "end")
    assert ended.returncode == 0, ended.stderr
    assert "Campaign 1 (ended, 1 mission): threats 10 - damage 2 - worst zone 2 - knocked out 0 - squads 0 " \
           "+ visual 3/1 = 9" in ended.stdout
    with ShipLog.open(db) as log:
        (campaign,) = log.campaigns()
    assert len(campaign.legs) == 1 and campaign.legs[0].track.name.startswith("double-action-")
    assert timekeeper(db, "campaign", "start", "--crew", "Eve, Fay, Gus, Hal").returncode == 0
    assert timekeeper(db, "campaign", "start", "--crew", "Ivy, Jon, Kim, Lea").returncode == 0
    ambiguous = timekeeper(db, "add", "--campaign", "current", "--destroyed", "3")
    assert ambiguous.returncode == ExitStatus.INVALID_LOG_ENTRY and "campaigns 2, 3 are open" in ambiguous.stderr


def test_remove_a_mission_recorded_by_mistake(tmp_path):
    db = tmp_path / "log.sqlite3"
    _three_missions(db)
    assert timekeeper(db, "remove", "2").returncode == 0
    assert "Behemoth" not in timekeeper(db, "list").stdout
    missing = timekeeper(db, "show", "2")
    assert missing.returncode == ExitStatus.INVALID_LOG_ENTRY and "no mission #2" in missing.stderr
    assert timekeeper(db, "campaign", "start", "--crew", CREW).returncode == 0
    assert timekeeper(db, "add", "--campaign", "current", "--destroyed", "4").returncode == 0
    in_campaign = timekeeper(db, "remove", "4")
    assert in_campaign.returncode == ExitStatus.INVALID_LOG_ENTRY and "belongs to campaign 1" in in_campaign.stderr


def test_add_in_a_real_terminal_asks_for_what_the_flags_left_out(tmp_path):
    from test_live_terminal import Tmux  # one tmux driver for the suite

    require("tmux")
    db = tmp_path / "log.sqlite3"
    import sys
    terminal = Tmux(tmp_path, [sys.executable, "-m", "timekeeper", "log", "--db", str(db), "add", "--crew", CREW,
                               "--track", "mission-2", "--common", "2"])
    try:
        answers = [("Date played", ""), ("Difficulty of serious", "1+2"), ("Did the ship survive?", ""),
                   ("threats survived", "-1"), ("at least 0, got -1", "5"), ("threats destroyed", "11"),
                   ("red zone", "2"), ("white zone", ""), ("blue zone", "1"), ("knocked out", ""),
                   ("battlebot squads", "1"), ("Visual confirmation", "3")]
        for question, answer in answers:
            terminal.wait_for(question)
            terminal.keys("--", *([answer] if answer else []), "Enter")
        assert terminal.exit_code() == 0
        assert "13 = survived 5 + destroyed 11 - damage 3 - worst zone 2" in terminal.screen()
    finally:
        terminal.close()
    with ShipLog.open(db) as log:
        (entry,) = log.entries()
    assert (entry.record.common.value, entry.record.serious.value, entry.score) == ("2", "1+2", 16 - 3 - 2 - 1 + 3)


def test_print_names_characters_the_font_cannot_print(tmp_path):
    db = tmp_path / "log.sqlite3"
    assert timekeeper(db, "add", "--crew", "Žofie:captain, Ωmega, 李雷, Dee", "--track", "mission-1").returncode == 0
    result = timekeeper(db, "print", "-o", str(tmp_path / "log.pdf"))
    assert result.returncode == 0
    assert "Warning:" in result.stderr and "李 雷; they are left out" in result.stderr
    assert "missing the following glyphs" not in result.stderr
    assert "Žofie (C), Ωmega" in PdfReader(tmp_path / "log.pdf").pages[0].extract_text()


def test_edit_a_single_mission(tmp_path):
    db = tmp_path / "log.sqlite3"
    _three_missions(db)
    changed = timekeeper(db, "edit", "1", "--destroyed", "12", "--damage", "white=1", "--captain", "Cid")
    assert changed.returncode == 0, changed.stderr
    # 4 + 12 - (2 + 1 + 1) - 2 - 2 + 3: the white zone changes, red and blue stay
    assert "score:       11 = survived 4 + destroyed 12 - damage 4 - worst zone 2" in changed.stdout
    assert "crew:        Ann, Bob (CO), Cid (C), Dee (SC)" in changed.stdout
    revived = timekeeper(db, "edit", "2", "--destroyed-by", "", "--survived", "3")
    assert revived.returncode == 0 and "score:       3 = survived 3" in revived.stdout
    before = timekeeper(db, "export").stdout
    bad = timekeeper(db, "edit", "1", "--knocked-out", "9", "--track", "nowhere")
    assert bad.returncode == ExitStatus.INVALID_LOG_ENTRY
    assert bad.stderr.startswith("Error: mission #1: track:") and "knocked_out" in bad.stderr
    assert timekeeper(db, "export").stdout == before
    assert timekeeper(db, "edit", "1").returncode == ExitStatus.USAGE


def test_edit_a_campaign_mission_checks_and_rescores_the_campaign(tmp_path):
    db = tmp_path / "log.sqlite3"
    assert timekeeper(db, "campaign", "start", "--crew", CREW, "--track", "mission-1").returncode == 0
    assert timekeeper(db, "add", "--campaign", "1", "--destroyed", "8", "--damage", "red=2").returncode == 0
    assert timekeeper(db, "campaign", "next", "--repair", "red=2", "--track", "mission-2").returncode == 0
    assert timekeeper(db, "add", "--campaign", "1", "--destroyed", "6", "--damage", "red=1").returncode == 0
    before = timekeeper(db, "export").stdout
    # mission 1 with less red damage would make the repairs after it impossible
    fewer = timekeeper(db, "edit", "1", "--damage", "red=1")
    assert fewer.returncode == ExitStatus.INVALID_LOG_ENTRY and "repair_red" in fewer.stderr
    other_track = timekeeper(db, "edit", "2", "--track", "mission-5")
    assert other_track.returncode == ExitStatus.INVALID_LOG_ENTRY and "plays mission-2" in other_track.stderr
    assert timekeeper(db, "export").stdout == before
    lost = timekeeper(db, "edit", "2", "--destroyed-by", "Executioner")
    assert lost.returncode == 0 and "lost, the ship was destroyed by Executioner" in lost.stdout
    early = timekeeper(db, "edit", "1", "--destroyed-by", "Fighter")
    assert early.returncode == ExitStatus.INVALID_LOG_ENTRY and "no mission follows" in early.stderr
    saved = timekeeper(db, "edit", "2", "--destroyed-by", "")
    assert saved.returncode == 0
    assert "Campaign 1 (open, 2 missions): threats 14 - damage 1 - worst zone 1" in saved.stdout
    assert timekeeper(db, "campaign", "next").returncode == 0  # open again: it can go on


def test_prompts_for_a_later_campaign_mission_offer_the_damage_the_ship_carries(tmp_path):
    db = tmp_path / "log.sqlite3"
    assert timekeeper(db, "campaign", "start", "--crew", CREW, "--track", "mission-7").returncode == 0
    assert timekeeper(db, "add", "--campaign", "current", "--destroyed", "8", "--damage", "red=2").returncode == 0
    assert timekeeper(db, "campaign", "next", "--repair", "red=1", "--track", "mission-3").returncode == 0
    result = timekeeper(db, "add", "--prompt", input="\n" * 12)  # every offered value taken as it is
    assert "Damage in the red zone [1]:" in result.stdout and "Damage in the white zone [0]:" in result.stdout
    assert result.returncode == 0, result.stdout + result.stderr
    assert "damage:      red 1, white 0, blue 0" in result.stdout
