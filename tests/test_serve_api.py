"""`timekeeper serve` as a real server process on loopback, spoken to over HTTP and WebSocket."""

from __future__ import annotations

import asyncio
import io
import os
import re
import select
import time
import wave

import pytest
from decoded import RATE, decode
from running import timekeeper
from serving import start_server
from waiting import least_ms_between, most_ms_between, read_timed

from timekeeper.serve.web.routes import PAGE_SCRIPTS

YAML_BAD = "title: Broken\nphase_ends: ['3:45', '7:30', '10:00']\nevents:\n  - {at: '1:00', type: threat, t: 1, zone: green}\n"


def write_tune(path, seconds: float = 2.0) -> None:
    """A quiet 220 Hz tone as a 16-bit mono WAV file: music for --music DIR."""
    import numpy as np

    t = np.arange(int(44_100 * seconds)) / 44_100
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(44_100)
        out.writeframes((np.sin(2 * np.pi * 220 * t) * 8000).astype("<i2").tobytes())


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("scenarios")
    (folder / "mine.yaml").write_text("title: My Track\nphase_ends: ['3:45', '7:30', '10:00']\nevents:\n"
                                      "  - {at: '0:30', type: threat, t: 1, zone: red}\n", encoding="utf-8")
    (folder / "broken.yaml").write_text(YAML_BAD, encoding="utf-8")
    music = tmp_path_factory.mktemp("music")
    (music / "quiet").mkdir()
    write_tune(music / "quiet" / "tune.wav")
    (music / "notes.txt").write_text("not music\n", encoding="utf-8")
    running = start_server(tmp_path_factory.mktemp("state"), "--scenarios", str(folder), "--music", str(music))
    yield running
    assert running.stop() == 130


def new_game(server, track="builtin:mission-1", **settings):
    reply = server.request("/api/games", method="POST", json_body={"track": track, "settings": settings})
    assert reply.status == 200, reply.body
    return reply.json()


def test_page_and_assets_are_small_and_served(server):
    page = server.request("/")
    assert page.status == 200 and "<title>timekeeper</title>" in page.text
    weight = len(page.body)
    for name in (*PAGE_SCRIPTS, "style.css"):
        asset = server.request(f"/assets/{name}")
        assert asset.status == 200
        if name.endswith(".js"):
            assert asset.headers["Content-Type"] == "text/javascript"  # a module is run only with a script's type
        weight += len(asset.body)
    assert weight < 200_000
    assert server.request("/g/0123456789ab").status == 200  # a join link opens the page
    for name, kind in (("awake.webm", "video/webm"), ("awake.mp4", "video/mp4")):  # keep-awake videos
        video = server.request(f"/assets/{name}")
        assert video.status == 200 and video.headers["Content-Type"] == kind and len(video.body) < 5_000
        part = server.request(f"/assets/{name}", headers={"Range": "bytes=0-99"})  # Safari asks for ranges
        assert part.status == 206 and part.body == video.body[:100]
        again = server.request(f"/assets/{name}", headers={"If-None-Match": video.headers["ETag"]})
        assert again.status == 304 and again.body == b""  # the browser's copy is this one


# Run in the server process first: it prints which event loop it serves on, then serves as always.
SAY_THE_LOOP = (
    "import asyncio, timekeeper.serve.web.app as app\n"
    "_serve = app._serve\n"
    "async def _saying(config, ready):\n"
    "    print('event loop:', type(asyncio.get_running_loop()).__module__, flush=True)\n"
    "    await _serve(config, ready)\n"
    "app._serve = _saying\n"
)


def test_the_server_runs_on_uvloop(tmp_path):
    """Linux: the event loop is uvloop's (sockets and TLS in C), as the server runs for players."""
    running = start_server(tmp_path / "state", prelude=SAY_THE_LOOP)
    try:
        assert running.request("/api/tracks").status == 200
        said = [line.strip() for line in running.output if line.startswith("event loop:")]
        assert said and said[0].startswith("event loop: uvloop"), running.output
    finally:
        assert running.stop() == 130


def test_tracks_list_every_builtin_and_the_named_folder(server):
    tracks = server.request("/api/tracks").json()["tracks"]
    official = [t for t in tracks if t["group"] not in ("example", "folder", "added")]
    assert len(official) == 34
    folder = {t["id"]: t for t in tracks if t["group"] == "folder"}
    assert folder["folder:mine.yaml"]["title"] == "My Track" and folder["folder:mine.yaml"]["problem"] == ""


def test_an_invalid_file_of_the_folder_is_listed_with_its_first_problem_and_not_played(server):
    listed = next(t for t in server.request("/api/tracks").json()["tracks"] if t["id"] == "folder:broken.yaml")
    assert re.match(r"broken\.yaml:4:\d+: .*'green'", listed["problem"]), listed
    reply = server.request("/api/games", method="POST", json_body={"track": "folder:broken.yaml"})
    assert reply.status == 422 and reply.json()["problems"][0]["where"] == listed["problem"]


def test_the_upload_limit_is_the_scenario_file_limit(tmp_path):
    small = "import timekeeper.scenario.yamlnodes as nodes; nodes.MAX_FILE_BYTES = 2_000"  # the one source
    running = start_server(tmp_path / "state", prelude=small)
    try:
        track = "title: Padded\nphase_ends: ['3:45', '7:30', '10:00']\nevents:\n  - {at: '0:30', type: threat, t: 1, zone: red}\n"
        fits = track + "#" * (2_000 - len(track) - 1) + "\n"
        assert running.request("/api/tracks/upload", method="POST", data=fits.encode()).status == 201
        refused = running.request("/api/tracks/upload", method="POST", data=(fits + "#").encode())
        assert refused.status == 413 and "limited to 2,000" in refused.json()["error"]
    finally:
        assert running.stop() == 130


def test_invalid_upload_names_line_and_column_and_stores_nothing(server):
    before = server.request("/api/tracks").json()["tracks"]
    reply = server.request("/api/tracks/upload?name=broken.yaml", method="POST", data=YAML_BAD.encode())
    assert reply.status == 422
    problem = reply.json()["problems"][0]
    assert problem["line"] == 4 and problem["column"] > 0 and "green" in problem["message"]
    assert server.request("/api/tracks").json()["tracks"] == before


def test_oversized_and_binary_uploads_are_refused(server):
    assert server.request("/api/tracks/upload", method="POST", data=b"x" * 1_000_001).status == 413
    reply = server.request("/api/tracks/upload", method="POST", data=b"\xff\xfe\x00")
    assert reply.status == 400 and "UTF-8" in reply.json()["error"]


def test_valid_upload_becomes_a_playable_track(server):
    from timekeeper.scenario.catalog import builtin_paths

    text = builtin_paths()["mission-2"].read_text(encoding="utf-8")
    reply = server.request("/api/tracks/upload?name=m2.yaml", method="POST", data=text.encode())
    assert reply.status == 201
    track = reply.json()["track"]
    assert track["group"] == "added" and track["title"] == "Mission 2"
    assert new_game(server, track["id"])["title"] == "Mission 2"


def test_flashcode_import_and_a_bad_token(server):
    code = "010AL1TW,050ID,120AL2TR,215DT,340PE1,345AL4TB,450DT,530ID,660PE2"
    reply = server.request("/api/tracks/flashcode", method="POST", json_body={"code": code, "title": "Fan track"})
    assert reply.status == 201 and reply.json()["track"]["title"] == "Fan track"
    bad = server.request("/api/tracks/flashcode", method="POST", json_body={"code": "010AL1TW,0X0QQ"})
    assert bad.status == 400 and "0X0QQ" in bad.json()["error"]


def test_generate_is_reproducible_from_its_seed(server):
    form = {"seed": 4711, "kind": "mission", "players": "5"}  # (the generator's options are text, as on its command line)
    first = server.request("/api/tracks/generate", method="POST", json_body=form).json()["tracks"][0]
    again = server.request("/api/tracks/generate", method="POST", json_body=form).json()["tracks"][0]
    assert first["seed"] == 4711 and first["id"] == again["id"]
    campaign = server.request("/api/tracks/generate", method="POST", json_body={**form, "campaign": True})
    assert len(campaign.json()["tracks"]) == 3
    bad = server.request("/api/tracks/generate", method="POST", json_body={**form, "outages": "9"})
    assert bad.status == 400 and bad.json()["field"] == "outages"
    assert bad.json()["error"] == "“Communication outages” '9': out of range (expected 0 to 8)"  # the form's terms
    german = server.request("/api/tracks/generate?lang=de", method="POST", json_body={**form, "outages": "9"}).json()
    assert german["error"] == "„Kommunikationsausfälle“ '9': außerhalb des Bereichs (erwartet 0 bis 8)"
    clash = server.request("/api/tracks/generate?lang=fr", method="POST",
                           json_body={**form, "length": "12:00", "phase_lengths": "4:00,4:00,3:00"}).json()
    assert clash["error"] == "indiquez « Durée de la mission » ou « Durée des phases », pas les deux", clash
    crowded = server.request("/api/tracks/generate?lang=cs", method="POST", json_body={**form, "phase_lengths": "1:30,1:30,1:30", "outages": "8"})
    assert crowded.status == 400 and crowded.json()["field"] == "length"
    assert crowded.json()["error"].endswith("nebo delší fáze („Délka mise“, „Délky fází“)"), crowded.json()  # the form's terms
    assert "--" not in german["error"] + clash["error"] + crowded.json()["error"]


def test_generate_with_the_chosen_voice_warns_of_overlaps_as_generate_voice_does(tmp_path):
    from voicepacks import slow_bundle_pack

    from timekeeper.generate import generate
    from timekeeper.soundtrack.mix import MixSettings
    from timekeeper.soundtrack.render import voice_overlaps

    packs = tmp_path / "voices"
    pack = slow_bundle_pack(packs / "slow")
    seed = next(seed for seed in range(1, 200) if voice_overlaps(generate(seed), MixSettings(voice=str(pack))))
    cli = timekeeper("generate", "--seed", str(seed), "--voice", str(pack), env={"TIMEKEEPER_VOICES": str(packs)})
    expected = [line.removeprefix("Warning: ") for line in cli.stderr.splitlines() if line.startswith("Warning: seed")]
    assert expected and all(f"with voice {pack}:" in line for line in expected)
    running = start_server(tmp_path / "state", env={"TIMEKEEPER_VOICES": str(packs)})
    try:
        form = {"seed": seed, "language": "en"}
        slow = running.request("/api/tracks/generate", method="POST", json_body={**form, "voice": "pack:slow"})
        assert slow.status == 201 and slow.json()["warnings"] == expected  # the track is still added
        assert slow.json()["tracks"][0]["seed"] == seed
        built_in = running.request("/api/tracks/generate", method="POST", json_body={**form, "voice": ""})
        assert built_in.status == 201 and built_in.json()["warnings"] == []
        refused = running.request("/api/tracks/generate", method="POST", json_body={**form, "voice": "pack:../x"})
        assert refused.status == 400 and "not offered" in refused.json()["error"]
    finally:
        assert running.stop() == 130


def test_every_generate_option_reaches_the_page_and_piles_are_shown(server):
    from timekeeper.generate import OPTION_SPECS

    offered = [option["key"] for option in server.request("/api/info").json()["generate"]["options"]]
    assert offered == [spec.key for spec in OPTION_SPECS]
    form = {"seed": 7, "threat_colors": "white,yellow", "outages": "6", "ambush_chance": "100"}
    reply = server.request("/api/tracks/generate", method="POST", json_body=form).json()
    assert any(rule.startswith("Event counts — “Communication outages” 6 (official") for rule in reply["relaxed"]), reply
    assert not any("--" in rule for rule in reply["relaxed"])  # the page's own terms, not command-line flags
    german = server.request("/api/tracks/generate?lang=de", method="POST", json_body=form).json()["relaxed"]
    assert "Anzahl der Ereignisse — „Kommunikationsausfälle“ 6 (offiziell 2-5; je Phase wie offiziell, wo Platz ist, " \
           "sonst bis zu 6)" in german, german
    czech = server.request("/api/tracks/generate", method="POST", json_body=form, headers={"Accept-Language": "cs"}).json()
    assert any(rule.startswith("Přepadení — „Šance na přepadení“ 100%") for rule in czech["relaxed"]), czech["relaxed"]
    labels = [option["label"] for option in server.request("/api/info?lang=de").json()["generate"]["options"]]
    assert labels[:4] == ["Art", "Spieler", "Bedrohungsstufe", "Missionsdauer (m:ss)"]
    game = new_game(server, reply["tracks"][0]["id"])
    piles = [cue["pile"]["color"] for cue in game["timeline"]["cues"] if cue["kind"] == "threat"]
    assert sorted(set(piles)) == ["white", "yellow"] and abs(piles.count("white") - piles.count("yellow")) <= 1
    assert sum(cue["kind"] == "comms_down" for cue in game["timeline"]["cues"]) == 6


def test_a_solo_game_has_no_transfers_incoming_data_or_outages(server):
    kinds = {cue["kind"] for cue in new_game(server, "builtin:mission-1")["timeline"]["cues"]}
    assert {"data_transfer", "incoming_data", "comms_down"} <= kinds
    solo = new_game(server, "builtin:mission-1", players=1, solo=True)
    assert solo["settings"]["solo"] is True
    kinds = {cue["kind"] for cue in solo["timeline"]["cues"]}
    assert "threat" in kinds and not kinds & {"data_transfer", "incoming_data", "comms_down", "comms_restored"}


def test_four_players_hear_no_unconfirmed_reports(server):
    def reports(game):
        return [cue for cue in game["timeline"]["cues"] if "Unconfirmed report" in cue["text"]]

    assert len(reports(new_game(server, "builtin:mission-3"))) == 1  # the T+8 threat at 5:55
    four = new_game(server, "builtin:mission-3", players=4)
    assert four["settings"]["players"] == 4 and reports(four) == []
    assert sum(cue["kind"] == "threat" for cue in four["timeline"]["cues"]) > 0


def test_music_from_the_named_folder_is_offered_and_mixed(server):
    assert server.request("/api/info").json()["music"] == ["quiet/tune.wav"]  # audio files only, below the folder
    game = new_game(server, "builtin:test-run-1", music="quiet/tune.wav")
    assert game["settings"]["music"] == "tune.wav"  # its name: screens are never shown a path of the server
    plain = new_game(server, "builtin:test-run-1")
    window = {"Range": f"bytes={44 + 88_200}-{44 + 2 * 88_200 - 1}"}  # the second second: the beds under the alert
    with_music = server.request(f"/api/games/{game['id']}/sound.wav", headers=window)
    without = server.request(f"/api/games/{plain['id']}/sound.wav", headers=window)
    assert with_music.status == without.status == 206 and with_music.body != without.body
    for name in ("notes.txt", "../music/quiet/tune.wav", "/etc/passwd"):
        refused = server.request("/api/games", method="POST",
                                 json_body={"track": "builtin:test-run-1", "settings": {"music": name}})
        assert refused.status == 400 and "not offered" in refused.json()["error"], name


def test_the_page_is_sent_the_sounds_names_in_the_games_language(server):
    """The page names the klaxon and the transfer beep with the words the server sends (German here)."""
    game = new_game(server, language="de")
    sounds = [sound for cue in game["timeline"]["cues"] for sound in cue["sounds"]]
    names = {sound["key"]: sound["name"] for sound in sounds}
    assert names["alert"] == "Alarmsirene" and names["beep"] == "Übertragungston"
    assert names["jump"] is None  # the hyperspace jump is not named
    script = "\n".join(server.request(f"/assets/{name}").text for name in PAGE_SCRIPTS)
    assert not [words for words in ("⚠ ALERT", "◉ TRANSFER", "Transfer beep", "Alert klaxon", "◉ beep", "⚠ klaxon")
                if words in script]  # no English of its own


def test_the_served_sound_is_the_render_mix_byte_for_byte(server, tmp_path):
    game = new_game(server, "builtin:test-run-1")
    full = server.request(f"/api/games/{game['id']}/sound.wav")
    assert full.status == 200 and full.headers["Accept-Ranges"] == "bytes"
    rendered = tmp_path / "t.wav"
    assert timekeeper("render", "test-run-1", "-o", str(rendered)).returncode == 0
    with wave.open(io.BytesIO(full.body)) as served, wave.open(str(rendered)) as reference:
        assert served.getframerate() == reference.getframerate()
        assert served.readframes(served.getnframes()) == reference.readframes(reference.getnframes())
    assert game["timeline"]["duration_ms"] == pytest.approx(len(full.body[44:]) / 2 / 44.1, abs=1)


def test_byte_ranges_let_players_seek(server):
    game = new_game(server, "builtin:test-run-1")
    path = f"/api/games/{game['id']}/sound.wav"
    full = server.request(path).body
    middle = server.request(path, headers={"Range": "bytes=1000001-1003000"})
    assert middle.status == 206 and middle.body == full[1000001:1003001]
    assert middle.headers["Content-Range"] == f"bytes 1000001-1003000/{len(full)}"
    tail = server.request(path, headers={"Range": "bytes=-100"})
    assert tail.body == full[-100:]
    assert server.request(path, headers={"Range": f"bytes={len(full)}-"}).status == 416


def test_downloads_card_track_and_code(server):
    from pypdf import PdfReader

    game = new_game(server, "builtin:mission-3")
    pdf = server.request(f"/api/games/{game['id']}/card.pdf")
    assert pdf.headers["Content-Disposition"] == "attachment; filename=\"Mission-3.pdf\"; filename*=UTF-8''Mission-3.pdf"
    spanish = new_game(server, "builtin:mission-3", language="es")  # saved under the crew's words
    named = server.request(f"/api/games/{spanish['id']}/card.pdf").headers["Content-Disposition"]
    assert named == "attachment; filename=\"Mision-3.pdf\"; filename*=UTF-8''Misi%C3%B3n-3.pdf"
    assert server.request(f"/api/games/{spanish['id']}/track.yaml").headers["Content-Disposition"].endswith("Misi%C3%B3n-3.yaml")
    assert server.request("/api/log.pdf?lang=pl").headers["Content-Disposition"].endswith("''Dziennik-pok%C5%82adowy.pdf")
    text = PdfReader(io.BytesIO(pdf.body)).pages[0].extract_text()
    assert "Mission 3" in text and "0:10 T+2 Internal threat" in text
    html = server.request(f"/api/games/{game['id']}/card.html").text
    assert "Mission 3" in html and html.count("<tr") > 10
    code = server.request(f"/api/games/{game['id']}/track.txt").text.strip()
    exported = timekeeper("export", "mission-3").stdout.strip()
    assert code == exported
    assert "title: " in server.request(f"/api/games/{game['id']}/track.yaml").text


def test_soundtrack_download_renders_with_progress(server, tmp_path):
    game = new_game(server, "builtin:test-run-1", background=False)
    job = server.request(f"/api/games/{game['id']}/renders", method="POST", json_body={"format": "ogg"}).json()
    seen = []
    deadline = time.monotonic() + 120
    while not job["finished"] and time.monotonic() < deadline:
        seen.append(job["done"])
        time.sleep(0.2)
        job = server.request(f"/api/renders/{job['id']}").json()
    assert job["ready"], job
    assert seen and max(seen) <= job["total"]
    ogg = server.request(f"/api/games/{game['id']}/soundtrack.ogg")
    assert ogg.status == 200 and ogg.body[:4] == b"OggS"
    (tmp_path / "t.ogg").write_bytes(ogg.body)
    assert len(decode(tmp_path / "t.ogg")) * 1000 / RATE == pytest.approx(game["timeline"]["duration_ms"], abs=100)


def test_commands_keep_the_clock_and_refuse_an_early_end(server):
    game = new_game(server)
    path = f"/api/games/{game['id']}/command"
    played = read_timed(lambda: server.request(path, method="POST", json_body={"type": "play"}).json())
    assert played.value["status"] == "playing"
    time.sleep(0.3)  # (the position is checked against the time that really passed)
    paused = read_timed(lambda: server.request(path, method="POST", json_body={"type": "pause"}).json())
    assert paused.value["status"] == "paused"
    assert least_ms_between(played, paused) - 50 <= paused.value["position_ms"] <= most_ms_between(played, paused) + 50
    early = server.request(path, method="POST", json_body={"type": "end"})
    assert early.status == 409 and "second phase" in early.json()["error"]
    server.request(path, method="POST", json_body={"type": "seek", "at_ms": 451_000})
    ended = server.request(path, method="POST", json_body={"type": "end"}).json()
    assert ended["status"] == "ended" and ended["position_ms"] == 451_000


def test_paths_outside_the_named_folders_are_refused(server):
    for path in ("/assets/..%2F..%2F..%2Fetc%2Fpasswd", "/assets/../../etc/passwd", "/assets/index.html",
                 "/api/games/..%2F..%2Fetc%2Fpasswd", "/api/games/../../../etc/passwd/card.html"):
        reply = server.request(path)
        assert reply.status in (403, 404) and b"root:" not in reply.body, path
    for track in ("folder:../../../etc/passwd", "builtin:../../etc/passwd", "added:../../x", "/etc/passwd"):
        reply = server.request("/api/games", method="POST", json_body={"track": track})
        assert reply.status == 404 and "no such track" in reply.json()["error"], track
    for voice in ("/etc", "pack:../../..", "../x"):
        reply = server.request("/api/games", method="POST", json_body={"track": "builtin:mission-1",
                                                                        "settings": {"voice": voice}})
        assert reply.status == 400 and "not offered" in reply.json()["error"]


def test_other_sites_cannot_use_the_server(server):
    assert server.request("/api/tracks", headers={"Host": "evil.example:80"}).status == 403
    assert server.request("/api/games", method="POST", json_body={"track": "builtin:mission-1"},
                          headers={"X-Timekeeper": "0"}).status == 403
    reply = server.request("/api/games", method="POST", json_body={"track": "builtin:mission-1"},
                           headers={"Origin": "http://evil.example"})
    assert reply.status == 403


def test_bad_requests_get_clear_json_errors(server):
    reply = server.request("/api/games", method="POST", data=b"{not json", headers={"Content-Type": "application/json"})
    assert reply.status == 400 and reply.json()["error"] == "the request body is not JSON"
    assert server.request("/api/games/0123456789ab").json()["error"].startswith("game 0123456789ab: no such game")
    reply = server.request("/api/games", method="POST", json_body={"track": "builtin:mission-1",
                                                                    "settings": {"players": 9}})
    assert reply.status == 400 and "players" in reply.json()["error"]


def test_screens_follow_each_other_over_websocket(server):
    import aiohttp

    game = new_game(server)
    url = server.url.replace("http", "ws") + f"api/games/{game['id']}/ws"

    async def state_where(socket, test):
        """The next state message whose playback passes `test` (earlier ones are skipped)."""
        while True:
            message = await socket.receive_json(timeout=5)
            if message["type"] == "state" and test(message["playback"]):
                return message["playback"]

    async def scenario():
        timeout = aiohttp.ClientTimeout(total=20)
        async with aiohttp.ClientSession(timeout=timeout) as session:
            async with session.ws_connect(url) as sound, session.ws_connect(url) as screen:
                assert (await sound.receive_json(timeout=5))["type"] == "state"
                assert (await screen.receive_json(timeout=5))["type"] == "state"
                await sound.send_json({"type": "hello", "client": "phone-a"})
                await sound.send_json({"type": "claim"})
                await screen.receive_json(timeout=5)
                await sound.send_json({"type": "play"})
                playing = await state_where(screen, lambda p: p["status"] == "playing")
                assert playing["speakers"] == ["phone-a"]
                playing_s = time.monotonic()
                await sound.send_json({"type": "report", "at_ms": 5000, "playing": True})  # moves no clock
                await screen.send_json({"type": "report", "at_ms": 9000, "playing": True})  # nor does a screen's
                await screen.send_json({"type": "pause"})
                paused = await state_where(sound, lambda p: p["status"] == "paused")
                assert 0 <= paused["position_ms"] <= 50 + (time.monotonic() - playing_s) * 1000  # the room's clock ran on
                await sound.send_json({"type": "ping", "t": 1})
                pong = await sound.receive_json(timeout=5)
                assert pong["type"] == "pong" and pong["t"] == 1
                await sound.send_str("not json")
                assert (await sound.receive_json(timeout=5))["type"] == "error"

    asyncio.run(asyncio.wait_for(scenario(), 30))


def test_restart_picks_the_mission_up_where_it_is(tmp_path):
    state = tmp_path / "state"
    first = start_server(state)
    game = new_game(first)
    played = read_timed(lambda: first.request(f"/api/games/{game['id']}/command", method="POST", json_body={"type": "play"}))
    assert first.stop() == 130
    second = start_server(state)
    try:
        again = read_timed(lambda: second.request(f"/api/games/{game['id']}").json())
        playback = again.value["playback"]
        now_ms = playback["position_ms"] + (playback["server_ms"] - playback["at_ms"])
        assert playback["status"] == "playing"
        assert least_ms_between(played, again) - 100 <= now_ms <= most_ms_between(played, again) + 100
    finally:
        assert second.stop() == 130


def test_lan_mode_needs_the_token(tmp_path):
    fake_network = "import timekeeper.serve.web.network as network; network.lan_addresses = lambda: ['192.0.2.7']"
    server = start_server(tmp_path / "state", "--lan", prelude=fake_network)
    try:
        assert server.token and len(server.token) >= 20
        assert server.request("/", token=False).status == 403
        assert server.request("/api/tracks", token=False).status == 403
        assert server.request(f"/api/tracks?token={'x' * len(server.token)}", token=False).status == 403
        opened = server.request("/")
        assert opened.status == 200 and f"timekeeper_token={server.token}" in opened.headers.get("Set-Cookie", "")
        cookie = {"Cookie": f"timekeeper_token={server.token}"}
        assert server.request("/api/tracks", token=False, headers=cookie).status == 200
        assert server.request("/api/info").json()["lan"] is True
        game = new_game(server)
        assert game["join_url"] == f"http://192.0.2.7:{server.port}/g/{game['id']}?token={server.token}"
    finally:
        assert server.stop() == 130
    output = "".join(server.output)
    url = f"http://192.0.2.7:{server.port}/?token={server.token}"
    assert f"On phones on this network: {url}" in output and "No network address found" not in output
    import segno

    qr_code = io.StringIO()
    segno.make(url, error="m").terminal(out=qr_code, compact=True)
    assert qr_code.getvalue() in output  # the QR code of the network address, in half blocks


def test_a_port_in_use_is_one_clear_line(server, tmp_path):
    result = timekeeper("serve", "--port", str(server.port), "--state", str(tmp_path), timeout=30)
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{server.port}" in result.stderr and "Traceback" not in result.stderr


def test_serve_help_has_an_example():
    result = timekeeper("serve", "--help")
    assert "timekeeper serve --lan" in result.stdout and "--scenarios" in result.stdout


def test_open_shows_the_page_in_the_browser(tmp_path):
    opened = tmp_path / "opened"
    browser = tmp_path / "browser"
    browser.write_text(f"#!/bin/sh\necho \"$1\" > {opened}\n")
    browser.chmod(0o755)
    server = start_server(tmp_path / "state", "--open", env={"BROWSER": str(browser)})
    try:
        deadline = time.monotonic() + 10
        while not opened.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert opened.read_text().strip() == server.url
    finally:
        assert server.stop() == 130


def test_record_a_played_mission_in_the_ships_log(tmp_path):
    from pypdf import PdfReader

    log = tmp_path / "log.sqlite3"
    server = start_server(tmp_path / "state", "--log", str(log))
    try:
        game = new_game(server, "builtin:mission-4")
        form = server.request(f"/api/games/{game['id']}/log").json()
        names = [field["name"] for field in form["fields"]]
        assert "track" not in names and {"crew", "survived", "damage_red", "visual_confirmation"} <= set(names)
        assert form["values"]["track"] == "mission-4"
        bad = server.request(f"/api/games/{game['id']}/log", method="POST",
                             json_body={"crew": "Ann:captain, Bob", "survived": "-3", "damage_red": "9"})
        assert bad.status == 422 and {"survived", "damage_red"} <= set(bad.json()["fields"])
        assert server.request("/api/log").json()["lines"] == []  # nothing stored
        entry = server.request(f"/api/games/{game['id']}/log", method="POST", json_body={
            "crew": "Ann:captain, Bob:co, Cid:sc, Dee", "survived": "4", "destroyed": "10", "damage_red": "2",
            "damage_blue": "1", "knocked_out": "1", "visual_confirmation": "3", "track": "/etc/passwd"})
        assert entry.status == 201
        assert entry.json()["score"] == 4 + 10 - 3 - 2 - 2 + 3  # the rulebook's score
        listed = server.request("/api/log").json()
        assert listed["lines"][0]["cells"][2] == "mission-4"
        assert [g["key"] for g in listed["stats"]["tables"][1]["groups"]] == ["Ann", "Bob", "Cid", "Dee"]
        pdf = server.request("/api/log.pdf")
        assert "Mission 4" in PdfReader(io.BytesIO(pdf.body)).pages[0].extract_text()  # the track's title, in words
    finally:
        assert server.stop() == 130
    listed = timekeeper("log", "--db", str(log), "list")
    assert listed.returncode == 0 and "mission-4" in listed.stdout  # the command line reads what the page recorded


def test_a_pack_in_a_language_without_a_table_is_offered_and_plays(tmp_path):
    """A Greek pack (English words as its clips: the language is what matters) adds 'el' to the
    page's languages; a game in it mixes the pack's clips, and the card falls back to English."""
    from timekeeper.voice.export import export_pack

    packs = tmp_path / "voices"
    export_pack("en", packs / "greek")
    manifest = packs / "greek" / "pack.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace("language: en", "language: el"), encoding="utf-8")
    running = start_server(tmp_path / "state", env={"TIMEKEEPER_VOICES": str(packs)})
    try:
        info = running.request("/api/info").json()
        assert {"code": "el", "name": "Greek (voice pack)"} in info["languages"]
        assert {"code": "el", "name": "Griechisch (Stimmpaket)"} in running.request("/api/info?lang=de").json()["languages"]
        assert [v["language"] for v in info["voices"] if v["id"] == "pack:greek"] == ["el"]
        game = new_game(running, language="el", voice="pack:greek")
        sound = running.request(f"/api/games/{game['id']}/sound.wav", headers={"Range": "bytes=0-99"})
        assert sound.status == 206 and sound.body[:4] == b"RIFF"
        card = running.request(f"/api/games/{game['id']}/card.html").text
        assert "Data transfer" in card and "Incoming data" in card  # no Greek table: English words
        refused = running.request("/api/games", method="POST",
                                  json_body={"track": "builtin:mission-1", "settings": {"language": "ja"}})
        assert refused.status == 400 and "expected one of en, de, es, fr, it, pl, cs, el" in refused.text
    finally:
        assert running.stop() == 130


def test_the_page_gets_its_words_in_each_language_and_a_clear_404_for_another(server):
    german = server.request("/api/messages/de")
    assert german.status == 200 and "max-age" in german.headers["Cache-Control"]
    body = german.json()
    assert body["language"] == "de" and body["messages"]["page.game.pause"] == "Pause"
    assert "Rückgängig" in german.text and "\\u" not in german.text  # UTF-8, not escapes
    assert {key.split(".")[0] for key in body["messages"]} == {"page", "log", "a11y", "generate", "error", "title",
                                                                 "problem"}  # not what the server words
    assert body["messages"]["generate.label.outages"] == "Kommunikationsausfälle" and "generate.problem.grid" not in body["messages"]
    english = server.request("/api/messages/en").json()["messages"]
    # every word of an error a crew may see is there too (a file's, a code's, the log's problems): about 33 KB
    assert sorted(english) == sorted(body["messages"]) and len(german.body) < 35_000
    for wrong in ("el", "xx", "..%2Fen"):
        reply = server.request(f"/api/messages/{wrong}")
        assert reply.status == 404 and reply.json()["code"] == "not_found", reply.body
        assert "expected one of en, de, es, fr, it, pl, cs" in reply.json()["error"]


def test_the_voice_list_has_human_names_in_the_page_language_and_the_same_ids(server):
    english = server.request("/api/info?lang=en").json()
    german = server.request("/api/info?lang=de").json()
    assert german["ui_language"] == "de" and english["ui_language"] == "en"
    assert [voice["id"] for voice in german["voices"]] == [voice["id"] for voice in english["voices"]]
    names = {voice["id"]: voice["name"] for voice in german["voices"]}
    assert names[""] == "Eingebaute Stimme"
    assert names["tts:en-029"] == "Englisch (Karibik)" and names["tts:de"] == "Deutsch"
    assert names["tts:en-GB-x-gbclan"] == "Englisch (Vereinigtes Königreich, Lancaster)"
    assert all(name != voice_id.removeprefix("tts:") for voice_id, name in names.items()), names
    browser = server.request("/api/info", headers={"Accept-Language": "cs-CZ,cs;q=0.9,en;q=0.5"}).json()
    assert browser["ui_language"] == "cs" and browser["voices"][0]["name"] == "Vestavěný hlas"
    assert server.request("/api/info?lang=xx").json()["ui_language"] == "en"  # unknown: the browser's, else English


def test_a_training_pace_stretches_the_game_its_card_and_code(server):
    normal = new_game(server, "builtin:mission-1")
    assert server.request("/api/info").json()["pace"] == {"normal": 1.0, "low": 1.0, "high": 2.0}  # the page offers it
    slow = new_game(server, "builtin:mission-1", pace=1.5)
    assert slow["settings"]["pace"] == 1.5 and normal["settings"]["pace"] == 1.0

    def threats(game):
        return [cue["at_ms"] for cue in game["timeline"]["cues"] if cue["kind"] == "threat"]

    assert threats(slow) == [int(ms * 1.5 / 1000 + 0.5) * 1000 for ms in threats(normal)]
    assert slow["timeline"]["phase_ends_ms"] == [338_000, 675_000, 900_000]
    code = server.request(f"/api/games/{slow['id']}/track.txt").text
    assert code.startswith("015") and code.strip().endswith("1500PE3"), code  # 0:10 -> 0:15, 10:00 -> 15:00
    card = server.request(f"/api/games/{slow['id']}/card.html").text
    assert "training pace 1.5×" in card and "15:00" in card
    for wrong in (3, 0.9, "1.5", None, True):
        reply = server.request("/api/games", method="POST", json_body={"track": "builtin:mission-1", "settings": {"pace": wrong}})
        assert reply.status == 400 and "pace" in reply.json()["error"], (wrong, reply.body)


def test_a_lobby_game_waits_for_play_follows_the_set_up_and_shows_who_is_there(server):
    import aiohttp

    reply = server.request("/api/lobby", method="POST", json_body={"track": "builtin:mission-1", "settings": {}})
    assert reply.status == 201, reply.body
    lobby = reply.json()
    assert lobby["status"] == "ready" and re.fullmatch(r"[ACDEFHJKMNPRTUVWXY34679]{5}", lobby["code"])
    assert server.request(f"/api/join/{lobby['code'].lower()}").json() == {"id": lobby["id"]}  # typed in lower case
    missing = server.request("/api/join/QQQQQ")
    assert missing.status == 404 and "no game has the code 'QQQQQ'" in missing.json()["error"]
    url = server.url.replace("http", "ws") + f"api/games/{lobby['id']}/ws"

    async def next_of(socket, kind):
        while True:
            message = await socket.receive_json(timeout=10)
            if message["type"] == kind:
                return message

    async def scenario():
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
            async with session.ws_connect(url) as host, session.ws_connect(url) as phone:
                await host.send_json({"type": "hello", "client": "host", "kind": "screen"})
                await host.send_json({"type": "claim"})
                await next_of(host, "presence")
                await phone.send_json({"type": "hello", "client": "p1", "kind": "phone"})
                seen = await next_of(phone, "presence")
                while len(seen["screens"]) < 2:
                    seen = await next_of(phone, "presence")
                assert seen["screens"] == [{"kind": "screen", "number": 1, "sound": True, "me": False},
                                           {"kind": "phone", "number": 1, "sound": False, "me": True}]
                changed = server.request(f"/api/games/{lobby['id']}/setup", method="POST", json_body={
                    "track": "builtin:mission-2", "settings": {"language": "de"}, "mode": "quiet"})
                assert changed.status == 200 and changed.json()["track_id"] == "builtin:mission-2"
                await next_of(phone, "setup")  # every joined screen is told to take the game again
                game = server.request(f"/api/games/{lobby['id']}").json()
                assert game["settings"]["language"] == "de" and game["mode"] == "quiet" and game["code"] == lobby["code"]
                await host.send_json({"type": "play"})  # one press starts it for all
                state = await next_of(phone, "state")
                while state["playback"]["status"] != "playing":
                    state = await next_of(phone, "state")
                await phone.close()
                left = await next_of(host, "presence")
                while len(left["screens"]) > 1:  # (the lists sent before the phone left, if still unread)
                    left = await next_of(host, "presence")
                assert [s["kind"] for s in left["screens"]] == ["screen"]

    asyncio.run(asyncio.wait_for(scenario(), 40))
    started = server.request(f"/api/games/{lobby['id']}/setup", method="POST", json_body={"track": "builtin:mission-1"})
    assert started.status == 409 and "has started" in started.json()["error"]
    assert server.request("/api/lobby", method="POST", json_body={"track": "builtin:mission-1", "mode": "loud"}).status == 400
    jump = server.request(f"/j/{lobby['code']}")  # the short link opens the game's page
    assert jump.status == 200 and "<title>timekeeper</title>" in jump.text


def test_an_ended_action_round_can_be_taken_back_for_a_few_seconds(server):
    game = new_game(server)
    path = f"/api/games/{game['id']}/command"
    server.request(path, method="POST", json_body={"type": "seek", "at_ms": 451_000})
    server.request(path, method="POST", json_body={"type": "play"})
    ended = server.request(path, method="POST", json_body={"type": "end"}).json()
    assert ended["status"] == "ended" and ended["undo_until_ms"] - ended["at_ms"] == 5000
    back = server.request(path, method="POST", json_body={"type": "undo"}).json()
    assert back["status"] == "playing" and back["undo_until_ms"] is None
    assert abs(back["position_ms"] - ended["position_ms"]) < 1
    again = server.request(path, method="POST", json_body={"type": "undo"})  # nothing to take back (late: test_fast_serve.py)
    assert again.status == 409 and "no longer" in again.json()["error"]


def test_the_page_installs_as_an_app(server):
    page = server.request("/").text
    assert '<link rel="manifest" href="/assets/manifest.webmanifest">' in page
    served = server.request("/assets/manifest.webmanifest")
    assert served.status == 200 and served.headers["Content-Type"] == "application/manifest+json"
    manifest = served.json()
    assert manifest["display"] == "fullscreen" and manifest["theme_color"] == "#070b16" and manifest["start_url"] == "/"
    for icon in manifest["icons"]:
        image = server.request(icon["src"])
        assert image.status == 200 and image.headers["Content-Type"] == icon["type"]
        if icon["type"] == "image/png":  # the size it declares, read from the PNG header
            width, height = int.from_bytes(image.body[16:20], "big"), int.from_bytes(image.body[20:24], "big")
            assert f"{width}x{height}" == icon["sizes"]


def test_open_without_a_browser_says_so(tmp_path):
    """No display and no browser on the PATH (a server, a container): --open says where to go."""
    server = start_server(tmp_path / "state", "--open", env={"BROWSER": "", "DISPLAY": "", "WAYLAND_DISPLAY": "",
                                                             "PATH": str(tmp_path)})
    said = b""
    try:
        deadline = time.monotonic() + 10
        while b"Ctrl-C stops it" not in said and time.monotonic() < deadline:
            if select.select([server.process.stdout], [], [], 0.1)[0]:
                said += os.read(server.process.stdout.fileno(), 4096)
    finally:
        assert server.stop() == 130
    said_text = "".join(server.output) + said.decode()
    assert f"Warning: --open: no web browser found; open {server.url} in a browser yourself." in said_text
