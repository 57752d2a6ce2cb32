"""The words the server sends the page as data (`*_said`: a catalogue key and its values), which
the page says in its own language (i18n.js `say`): track titles and how a track was made, a
game's title, the log's tracks. Through aiohttp's test client, in the test's own process."""

from __future__ import annotations

import pytest
from aiohttp.test_utils import TestClient
from app_client import served
from test_fast_serve import POST, config, new_game  # noqa: F401 (config: the fixture)

from timekeeper.i18n import say


def said(data: dict | list | None, language: str) -> str:
    """What the page says of `data` (i18n.js `say`, mirrored): a Said's words, filled."""
    from timekeeper.i18n import translate

    if data is None:
        return ""
    if isinstance(data, list):
        return ", ".join(said(item, language) for item in data)
    if not isinstance(data, dict):
        return str(data)
    return translate(language, data["key"], **{name: said(value, language) for name, value in data["values"].items()})


def test_tracks_come_with_their_titles_words(config) -> None:  # noqa: F811
    async def check(client: TestClient) -> None:
        tracks = {track["id"]: track for track in (await (await client.get("/api/tracks")).json())["tracks"]}
        assert said(tracks["builtin:test-run-1"]["title_said"], "de") == "Erster Testlauf"
        assert said(tracks["builtin:double-action-easy-2"]["title_said"], "cs") == "Mise dvojité akce 2 (snazší sada)"
        assert tracks["builtin:house-rules"]["title_said"] is None  # its own title: "Hausregeln"
        made = await client.post("/api/tracks/generate?lang=de", headers=POST, json={
            "seed": 338695, "count": 1, "campaign": False, "kind": "double-action", "players": "4"})
        assert made.status == 201, await made.text()
        track = (await made.json())["tracks"][0]
        assert track["title"] == "Generated double-action 338695"
        assert said(track["title_said"], "de") == "Generierte Doppelaktion 338695"
        assert said(track["origin_said"], "de") == "generiert: Startwert 338695, Doppelaktion, 4 Spieler"
        listed = {t["id"]: t for t in (await (await client.get("/api/tracks")).json())["tracks"]}[track["id"]]
        assert said(listed["origin_said"], "pl") == "wygenerowana: ziarno 338695, podwójna akcja, graczy: 4"
        upload = await client.post("/api/tracks/upload?name=mine.yaml", headers=POST,
                                   data=b"title: Mine\nphase_ends: ['3:00', '6:00']\nevents: []\n")
        assert upload.status == 201, await upload.text()
        mine = (await upload.json())["track"]
        assert mine["title_said"] is None and said(mine["origin_said"], "fr") == "téléversée : mine.yaml"
        code = await client.post("/api/tracks/flashcode", headers=POST, json={"code": "010AL1TW,120DT,340PE1,660PE2"})
        assert code.status == 201, await code.text()
        assert said((await code.json())["track"]["origin_said"], "it") == "importata da FlashPlayerCode"

    served(config, check)


def test_a_game_and_the_log_name_the_track_in_words(config) -> None:  # noqa: F811
    async def check(client: TestClient) -> None:
        game = await new_game(client, "builtin:double-action-3", language="de")
        assert game["title"] == "Double Action Mission 3 (standard set)"
        assert said(game["title_said"], "de") == "Doppelaktions-Mission 3 (Standardreihe)"
        form = await (await client.get(f"/api/games/{game['id']}/log")).json()
        assert said(form["track_said"], "es") == "Misión de doble acción 3 (serie estándar)"
        recorded = await client.post(f"/api/games/{game['id']}/log", headers=POST, json={
            "crew": "Ann, Bob", "survived": "4", "destroyed": "6"})
        assert recorded.status == 201, await recorded.text()
        log = await (await client.get("/api/log")).json()
        line, = log["lines"]
        assert line["cells"][log["columns"].index("track")] == "double-action-3"  # the log's own name for it
        assert said(line["track_said"], "de") == "Doppelaktions-Mission 3 (Standardreihe)"
        by_track, = (table for table in log["stats"]["tables"] if table["by"] == "track")
        assert [said(group["said"], "cs") for group in by_track["groups"]] == ["Mise dvojité akce 3 (standardní sada)"]
        entry = await (await client.get(f"/api/log/{line['id']}")).json()
        assert say(entry["track"], "de") == "double-action-3" and said(entry["track_said"], "de").startswith("Doppelaktions")

    served(config, check)


@pytest.mark.parametrize("language", ["de", "cs"])
def test_the_card_the_page_shows_is_in_the_game_s_language(config, language) -> None:  # noqa: F811
    async def check(client: TestClient) -> None:
        game = await new_game(client, "builtin:test-run-2", language=language)
        card = await (await client.get(f"/api/games/{game['id']}/card.html")).text()
        assert {"de": "Zweiter Testlauf", "cs": "Druhý zkušební let"}[language] in card and "Second Test Run" not in card

    served(config, check)


def test_a_log_entry_s_problems_come_in_words_and_name_the_form_s_fields(config) -> None:  # noqa: F811
    async def check(client: TestClient) -> None:
        game = await new_game(client, "builtin:mission-1", language="de")
        refused = await client.post(f"/api/games/{game['id']}/log", headers=POST, json={
            "crew": "Ann:pilot", "date": "2020-13-01", "common": "3", "damage_red": "9", "destroyed": "x",
            "notes": "a\u0007b"})
        assert refused.status == 422
        body = await refused.json()
        assert "damage_red: expected a whole number from 0 to 6, got 9" in body["error"]  # the command line's English
        assert body["fields"]["damage_red"] == "expected a whole number from 0 to 6, got 9"
        german = {name: said(words, "de") for name, words in body["fields_said"].items()}
        assert german == {
            "crew": "Ann: unbekannte Rolle 'pilot' (erwartet: captain, co oder sc)",
            "date": "erwartet ein Datum als JJJJ-MM-TT, erhalten '2020-13-01'",
            "common": "erwartet 1, 2 oder 1+2, erhalten '3'",
            "damage_red": "erwartet eine ganze Zahl von 0 bis 6, erhalten 9",
            "destroyed": "erwartet eine ganze Zahl ab 0, erhalten 'x'",
            "notes": "enthält das Steuerzeichen U+0007 an Zeichen 2 (erwartet druckbaren Text)"}
        checked = said(body["said"], "de")
        assert checked.startswith("Bitte prüfen: ") and set(checked.removeprefix("Bitte prüfen: ").rstrip(".").split(", ")) == {
            "Besatzung", "Schwierigkeit normaler Bedrohungen", "Spieldatum", "Schaden in Zone Rot",
            "Punkte für zerstörte Bedrohungen", "Notizen"}
        assert "damage_red" not in said(body["said"], "cs") and "Poškození v zóně" not in said(body["said"], "en")

    served(config, check)


BAD_FILE = b"""title: Bad
phase_ends: ['3:00', '2:00']
events:
  - {at: '1:00', type: threat, t: 9, zone: green}
  - {at: '1:70', type: data_transfer}
  - {at: '1:20', type: nope}
  - {at: '1:30', type: comms_down, untill: '1:50'}
  - [oops]
"""


def test_an_uploaded_file_s_problems_and_a_pasted_code_s_come_in_words(config) -> None:  # noqa: F811
    async def check(client: TestClient) -> None:
        upload = await client.post("/api/tracks/upload?name=bad.yaml", headers=POST, data=BAD_FILE)
        assert upload.status == 422
        problems = (await upload.json())["problems"]
        english = [problem["message"] for problem in problems]
        assert "unknown zone 'green' (expected red, white, blue); did you mean 'red'?" not in english  # no near match
        assert "unknown zone 'green' (expected red, white, blue)" in english
        german = [said(problem["said"], "de") for problem in problems]
        assert german == [
            "t: 9 liegt außerhalb des Bereichs (erwartet 1 bis 8)",
            "unbekannter Wert 'green' für zone (erwartet: red, white, blue)",
            "at: die Sekunden müssen unter 60 liegen in '1:70'",
            "unbekannter Wert 'nope' für Ereignistyp (erwartet: threat, internal, incoming_data, data_transfer, "
            "comms_down, announce)",
            "unbekanntes Feld 'untill' für comms_down (meinten Sie 'until'?)",
            "comms_down: genau eines von 'until' (eine Zeit) oder 'duration' (Sekunden) angeben",
            "event: erwartet eine Zuordnung wie {at: \"1:30\", type: data_transfer}, gefunden eine Liste",
            "Phase 2 endet um 2:00, nicht nach Phase 1 (3:00)"]
        assert all(problem["said"] for problem in problems)
        broken = await client.post("/api/tracks/upload?name=broken.yaml", headers=POST, data=b"title: [unclosed\n")
        assert broken.status == 422
        problem, = (await broken.json())["problems"]
        assert problem["message"].startswith("YAML syntax error: ")  # the parser's English, for the command line
        assert said(problem["said"], "pl") == "tu nie jest poprawny YAML (sprawdź wcięcia, dwukropki i cudzysłowy)"
        code = await client.post("/api/tracks/flashcode", headers=POST, json={"code": "010AL1TW,050XX,120AL9TR"})
        assert code.status == 400
        body = await code.json()
        assert [said(p["said"], "cs") for p in body["problems"]] == [
            "položka 2 (sloupec 10) '050XX': neznámý kód 'XX' (očekáváno AL, UR, ID, DT, CS, PE)",
            "položka 3 (sloupec 16) '120AL9TR': T+9 není kolo (očekáváno 1 až 8)"]
        empty = await client.post("/api/tracks/flashcode", headers=POST, json={"code": "  "})
        assert said((await empty.json())["said"], "fr") == "collez un FlashPlayerCode comme 010AL1TW,050ID,120AL2TR,..."
        one = await client.post("/api/tracks/flashcode", headers=POST, json={"code": "010AL1TW,340PE1"})
        assert said((await one.json())["said"], "it").startswith("una sola fine fase (PE1 alle 3:40)")

    served(config, check)


def test_every_stable_error_code_has_words_in_every_language() -> None:
    """A refusal without words of its own is said by its code (i18n.js errorText): every code the
    server answers with has an error.<code> entry (and so one in every language)."""
    import re
    from pathlib import Path

    from timekeeper.i18n import messages
    from timekeeper.serve.web.routes import ERROR_CODES

    serve = Path(__file__).resolve().parent.parent / "timekeeper" / "serve"
    codes = set(ERROR_CODES.values()) | {"game_over", "too_early", "invalid_track"}
    for path in serve.rglob("*.py"):
        codes |= set(re.findall(r'\bcode="([a-z_]+)"', path.read_text(encoding="utf-8")))
    assert len(codes) > 25
    assert sorted(code for code in codes if f"error.{code}" not in messages("en")) == []


def test_the_printed_log_is_in_the_page_s_language(config) -> None:  # noqa: F811
    from pypdf import PdfReader

    async def check(client: TestClient) -> None:
        game = await new_game(client, "builtin:test-run-1", language="de")
        recorded = await client.post(f"/api/games/{game['id']}/log", headers=POST, json={
            "crew": "Ann:captain, Bob", "survived": "2", "destroyed": "5"})
        assert recorded.status == 201, await recorded.text()
        lost = await new_game(client, "builtin:mission-2", language="de")
        assert (await client.post(f"/api/games/{lost['id']}/log", headers=POST, json={
            "crew": "Ann:captain, Bob", "destroyed_by": "Behemoth"})).status == 201
        import io

        german = await client.get("/api/log.pdf?lang=de")
        assert german.status == 200
        text = PdfReader(io.BytesIO(await german.read())).pages[0].extract_text()
        for words in ("Logbuch", "Besatzung: Ann (C), Bob", "Erster Testlauf", "Mission 2", "zerstört von: Behemoth",
                      "C Kapitän", "Seite 1/1", "Überstanden"):
            assert words in text, (words, text[:400])
        for english in ("Ship's Log", "Crew", "First Test Run", "destroyed by", "captain", "Survived"):
            assert english not in text, english
        english = PdfReader(io.BytesIO(await (await client.get("/api/log.pdf?lang=en")).read())).pages[0].extract_text()
        assert "Ship's Log" in english and "First Test Run" in english and "Crew: Ann (C), Bob" in english

    served(config, check)


def test_a_folder_file_with_a_problem_is_listed_with_it_in_words(config, tmp_path) -> None:  # noqa: F811
    import dataclasses

    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "broken.yaml").write_text("title: Broken\nphase_ends: ['3:00', '6:00']\nevents:\n"
                                        "  - {at: '1:00', type: threat, t: 9, zone: red}\n", encoding="utf-8")

    async def check(client: TestClient) -> None:
        tracks = {t["id"]: t for t in (await (await client.get("/api/tracks")).json())["tracks"]}
        broken = tracks["folder:broken.yaml"]
        assert broken["problem"] == "broken.yaml:4:35: t: 9 is out of range (expected 1 to 8)"
        assert said(broken["problem_said"], "de") == (
            "broken.yaml: Zeile 4, Spalte 35: t: 9 liegt außerhalb des Bereichs (erwartet 1 bis 8)")

    served(dataclasses.replace(config, scenarios=folder), check)
