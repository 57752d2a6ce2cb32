"""The README is for players, and every link of the project's pages leads somewhere.

The README stays short and free of mastering jargon, and keeps the two commands that set up a fresh
machine (tests/test_pip_install.py runs what they run); a link to a page or a section (README,
ARCHITECTURE.md, docs/) names a file that exists and a heading that file has, as GitHub makes
its anchors.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *sorted((ROOT / "docs").glob("*.md"))]
README_MAX_BYTES = 15_000
SET_UP_COMMANDS = (
    "python3 -m venv .venv || { S=$(command -v sudo); $S apt-get update && $S apt-get install -y python3-venv && python3 -m venv .venv; }",
    ".venv/bin/pip install -e . && .venv/bin/timekeeper render mission-1 -o mission-1.mp3",
    "bash .ci/run",
)
# words a player does not know, which belong in docs/performance.md and docs/voices.md
JARGON = re.compile(r"\bLUFS\b|\bdBTP\b|\bLU\b|measured phrase lengths|\bp99\b|fast tier")
LINK = re.compile(r"\]\(([^)\s]+)\)|<img src=\"([^\"]+)\"")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text, flags=re.UNICODE)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return {anchor(line.lstrip("#")) for line in text.splitlines() if line.startswith("#")}


def links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return [a or b for a, b in LINK.findall(text)]


def test_the_readme_is_short_and_keeps_the_set_up_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode("utf-8")) <= README_MAX_BYTES
    for command in SET_UP_COMMANDS:
        assert f"\n{command}\n" in readme, command


def test_the_readme_speaks_to_players() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert JARGON.findall(readme) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_link_leads_to_a_file_and_a_heading(page: Path) -> None:
    broken = []
    for target in links(page):
        if re.match(r"[a-z]+:", target):
            continue  # http(s), mailto: not followed here
        path, _, section = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(target)
        elif section and linked.suffix == ".md" and section not in anchors(linked):
            broken.append(target)
    assert broken == []
