"""Chromium plays the page's mp3 on time: after a seek, each cue is heard where the element's
clock says, as with the WAV of the same mix (the exact reference)."""

from __future__ import annotations

import statistics

import pytest
from heard import lateness_ms, open_plain
from serving import LAPTOP, start_server


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    running = start_server(tmp_path_factory.mktemp("state"), "--sound-cache", str(tmp_path_factory.mktemp("sound")))
    yield running
    assert running.stop() == 130


def test_chromium_hears_each_cue_of_the_mp3_when_its_clock_says_as_with_the_wav(server, open_browsers):
    reply = server.request("/api/games", method="POST",
                           json_body={"track": "builtin:mission-1", "settings": {"background": False}})
    game = reply.json()
    assert server.request(game["sound"]["url"]).status == 200  # made: the seeks below need not wait
    cues = [cue["at_ms"] for cue in game["timeline"]["cues"][1:4]]
    late = {}
    for name, url in (("wav", f"/api/games/{game['id']}/sound.wav"), ("mp3", game["sound"]["url"])):
        driver = open_browsers(LAPTOP)  # a fresh browser: nothing of the other file in its cache
        open_plain(driver, server)
        late[name] = lateness_ms(driver, url, cues + cues)
    difference = statistics.median(late["mp3"]) - statistics.median(late["wav"])
    assert abs(difference) < 8, late  # a frame late (24 ms) would be the delay not accounted for
