"""The ship's log over HTTP and WebSocket: a game is recorded once (a second screen gets 409 and
every joined screen is told), missions are corrected and removed as `timekeeper log edit/remove`
do, with the page's header, bounded and checked bodies, and the statistics as data."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from running import timekeeper
from serving import start_server

from timekeeper.logbook.fields import MISSION_FORM
from timekeeper.logbook.rows import COLUMNS

HEADER = {"X-Timekeeper": "1", "Content-Type": "application/json"}
VALUES = {"crew": "Ann:captain, Bob:co, Cid:sc, Dee", "survived": "4", "destroyed": "10", "damage_red": "2"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("log")
    running = start_server(folder / "state", "--log", str(folder / "log.sqlite3"))
    running.log = folder / "log.sqlite3"
    yield running
    assert running.stop() == 130
    assert "Traceback" not in "".join(running.output)


def new_game(server, track="builtin:mission-4") -> dict:
    reply = server.request("/api/games", method="POST", json_body={"track": track, "settings": {}})
    assert reply.status == 200, reply.body
    return reply.json()


def send(server, path: str, method: str, body: object = None, headers: dict | None = None):
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    return server.request(path, method=method, data=data, headers=HEADER if headers is None else headers)


def test_a_game_is_recorded_once_and_every_screen_is_told(server):
    import aiohttp

    game = new_game(server)
    url = server.url.replace("http", "ws") + f"api/games/{game['id']}/ws"
    path = f"/api/games/{game['id']}/log"

    async def scenario():
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=20)) as session:
            async with session.ws_connect(url) as other:
                assert (await other.receive_json(timeout=5))["type"] == "state"
                first = await asyncio.to_thread(server.request, path, method="POST", json_body=VALUES)
                assert first.status == 201, first.body
                told = await other.receive_json(timeout=5)
                assert told == {"type": "logged", "recorded": first.json()}
                return first.json()

    entry = asyncio.run(asyncio.wait_for(scenario(), 30))
    second = server.request(path, method="POST", json_body={**VALUES, "survived": "9"})
    assert second.status == 409
    assert f"mission #{entry['id']}" in second.json()["error"] and second.json()["recorded"] == entry
    assert server.request(path).json()["recorded"] == entry  # a screen opened later sees it too
    [line] = [line for line in server.request("/api/log").json()["lines"] if line.get("id") == entry["id"]]
    assert line["crew"] == ["Ann", "Bob", "Cid", "Dee"] and line["notes"] == ""  # the page's crew and notes columns


def test_screens_recording_at_the_same_moment_store_one_mission(server):
    game = new_game(server, "builtin:mission-5")
    path = f"/api/games/{game['id']}/log"
    with ThreadPoolExecutor(6) as pool:
        replies = list(pool.map(lambda n: server.request(path, method="POST", json_body={**VALUES, "survived": str(n)}),
                                range(6)))
    assert sorted(r.status for r in replies) == [201] + [409] * 5
    lines = server.request("/api/log").json()["lines"]
    assert sum(line.get("cells", [""] * 3)[2] == "mission-5" for line in lines) == 1


def test_correct_and_remove_a_mission_as_the_command_line_does(server):
    game = new_game(server, "builtin:mission-6")
    entry = server.request(f"/api/games/{game['id']}/log", method="POST", json_body=VALUES).json()
    path = f"/api/log/{entry['id']}"
    shown = server.request(path).json()
    assert shown["values"]["survived"] == "4" and shown["removable"] and shown["track"] == "mission-6"
    assert "track" not in shown["values"] and "track" not in [f["name"] for f in shown["fields"]]

    assert send(server, path, "PATCH", {"destroyed": "12"}, headers={"Content-Type": "application/json"}).status == 403
    assert send(server, path, "DELETE", headers={}).status == 403  # other web pages cannot send these
    changed = send(server, path, "PATCH", {"destroyed": "12", "damage_red": "0"})
    assert changed.status == 200 and changed.json()["score"] == 4 + 12
    bad = send(server, path, "PATCH", {"knocked_out": "9", "damage_blue": "x"})
    assert bad.status == 422 and {"knocked_out", "damage_blue"} <= set(bad.json()["fields"])
    for body, status, code, field in (
            ({"track": "/etc/passwd"}, 400, "invalid_field", "track"),  # a mission keeps its game's track
            ({"campaign": "2"}, 400, "invalid_field", "campaign"), ({"colour": "red"}, 400, "invalid_field", "colour"),
            ({"notes": {"deep": [1]}}, 400, "invalid_field", "notes"), ({"notes": "x" * 3000}, 400, "invalid_field", "notes"),
            ({}, 400, "missing_field", None), ([1, 2], 400, "invalid_json", None), (b"{not json", 400, "invalid_json", None),
            (b'{"notes": "' + b"x" * 70_000 + b'"}', 413, "too_large", None), (b"[" * 16_000, 400, "too_deep", None)):
        reply = send(server, path, "PATCH", body)
        assert (reply.status, reply.json()["code"], reply.json().get("field")) == (status, code, field), (body, reply.body[:200])
    assert server.request(path).json()["score"] == 16  # none of them changed anything
    listed = timekeeper("log", "--db", str(server.log), "show", str(entry["id"]))
    assert listed.returncode == 0 and "12" in listed.stdout  # the command line reads the change

    assert send(server, "/api/log/999999", "PATCH", {"notes": "x"}).status == 404
    assert send(server, "/api/log/999999", "DELETE").status == 404
    assert server.request("/api/log/0").status == 404 and server.request("/api/log/1234567890").status == 404
    removed = send(server, path, "DELETE")
    assert removed.status == 200 and removed.json() == {"removed": entry["id"]}
    assert server.request(path).status == 404
    assert server.request(f"/api/games/{game['id']}/log").json()["recorded"] is None  # the game may be recorded again
    assert server.request(f"/api/games/{game['id']}/log", method="POST", json_body=VALUES).status == 201


def test_a_campaign_mission_is_corrected_but_not_removed_alone(server):
    started = timekeeper("log", "--db", str(server.log), "campaign", "start", "--crew", "Ann, Bob, Cid, Dee",
                         "--track", "mission-7")
    assert started.returncode == 0, started.stderr
    game = new_game(server, "builtin:mission-7")
    form = server.request(f"/api/games/{game['id']}/log").json()
    campaign = form["values"]["campaign"]
    entry = server.request(f"/api/games/{game['id']}/log", method="POST",
                           json_body={"campaign": campaign, "survived": "3", "destroyed": "5"}).json()
    assert entry["campaign"] == int(campaign) and entry["score"] is None
    assert server.request(f"/api/log/{entry['id']}").json()["removable"] is False
    refused = send(server, f"/api/log/{entry['id']}", "DELETE")
    assert refused.status == 409 and "campaign" in refused.json()["error"]
    assert refused.json()["said"]["key"] == "log.problem.in_campaign"  # the page says it in its language
    assert send(server, f"/api/log/{entry['id']}", "PATCH", {"notes": "close call"}).status == 200
    [line] = [line for line in server.request("/api/log").json()["lines"] if line.get("id") == entry["id"]]
    assert line["notes"] == "close call"


def test_the_statistics_are_data_for_a_table_and_a_chart(server):
    stats = server.request("/api/log").json()["stats"]
    assert stats["overall"]["missions"] >= 3
    tables = {table["by"]: table["groups"] for table in stats["tables"]}
    assert {"crew", "player", "track"} <= set(tables)
    track = next(g for g in tables["track"] if g["key"] == "mission-4")
    assert track == {"key": "mission-4", "said": {"key": "title.official.mission", "values": {"number": 4}},
                     "missions": 1, "wins": 1, "best": 4 + 10 - 2 - 2, "mean": 10.0, "open": 0}
    assert all({"date", "crew", "score"} == set(point) for point in stats["scores"])


def test_every_word_of_the_log_page_is_in_the_english_catalogue():
    """Every key log.js asks the catalogue for, and every key the page's HTML names, has English words."""
    import re
    from pathlib import Path

    assets = Path(__file__).resolve().parent.parent / "timekeeper" / "serve" / "assets"
    catalogue = (assets.parent.parent / "locales" / "en.po").read_text(encoding="utf-8")
    english = dict(re.findall(r'^msgid "([^"]+)"\nmsgstr "((?:[^"\\]|\\.)+)"$', catalogue, re.M))
    script = (assets / "log.js").read_text(encoding="utf-8")
    used = set(re.findall(r'"((?:log|a11y)\.[a-z0-9_.]+)"', script))  # t("log.x"), t(won ? "log.y" : "log.z")
    assert len(used) > 25
    for family, names in (("stats", ["crew", "player", "track", "campaigns", "missions", "finished", "won", "best",
                                     "mean", "open"]), ("status", ["open", "ended", "complete", "lost"])):
        used |= {f"log.{family}.{name}" for name in names}  # t(`log.stats.${by}`) ...
    for family, names in (("field", [f.name for f in MISSION_FORM if f.name not in ("track", "seed")]),
                          ("hint", [f.name for f in MISSION_FORM if f.hint and f.name not in ("track", "seed")]),
                          ("column", [re.sub(r"[^a-z]+", "_", c, flags=re.I).strip("_") or "number" for c in COLUMNS])):
        used |= {f"log.{family}.{name}" for name in names}  # t(`log.field.${field.name}`) ...
    page = (assets / "index.html").read_text(encoding="utf-8")
    used |= set(re.findall(r'data-i18n="((?:log|a11y)\.[a-z0-9_.]+)"', page))
    used |= set(re.findall(r'data-i18n-attr="[^"]*?:((?:log|a11y)\.[a-z0-9_.]+)"', page))
    assert sorted(used - set(english)) == []
