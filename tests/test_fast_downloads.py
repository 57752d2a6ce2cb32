"""How a download is named (serve/web/downloads.py): the track's title in the crew's words, a name
no browser or file system can misread, and a plain ASCII one for older clients."""

from __future__ import annotations

from urllib.parse import unquote

import pytest

from timekeeper.serve.web.downloads import ascii_name, disposition, download_name


@pytest.mark.parametrize(("title", "language", "name"), [
    ("Mission 5", "en", "Mission-5.mp3"),
    ("Mission 5", "es", "Misión-5.mp3"),
    ("Mission 5", "cs", "Mise-5.mp3"),
    ("Double Action Mission 7 (standard set)", "de", "Doppelaktions-Mission-7-Standardreihe.mp3"),
    ("Our own: \"night\" run", "de", "Our-own-night-run.mp3"),  # a crew's own title stays as written
    ("../../etc/passwd", "en", "etc-passwd.mp3"),  # no folder, no dots, no hidden file
    ("...", "en", "track.mp3"),
    ("x" * 200, "en", "x" * 60 + ".mp3"),
])
def test_a_download_is_named_by_its_title_in_the_crews_words(title: str, language: str, name: str) -> None:
    assert download_name(title, ".mp3", language) == name


def test_the_header_gives_the_name_in_utf8_and_in_plain_ascii() -> None:
    header = disposition("Mission 5", ".ogg", "es")
    plain, encoded = header.removeprefix("attachment; ").split("; ")
    assert plain == 'filename="Mision-5.ogg"' and unquote(encoded.removeprefix("filename*=UTF-8''")) == "Misión-5.ogg"
    assert ascii_name("Dziennik-pokładowy.pdf") == "Dziennik-pokladowy.pdf"
    assert ascii_name("Ĉu-ŝi-ĉeestas.pdf") == "Cu-si-ceestas.pdf"
    assert ascii_name("水.pdf") == "track.pdf"
    odd = disposition("Quote \" back\\slash\r\n", ".pdf", "en")  # nothing that ends the header or its quotes
    assert odd == "attachment; filename=\"Quote-back-slash.pdf\"; filename*=UTF-8''Quote-back-slash.pdf"
