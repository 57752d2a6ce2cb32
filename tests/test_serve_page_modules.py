"""The page's scripts as native ES modules (timekeeper/serve/assets): each one listed once
(routes.PAGE_SCRIPTS: served, kept offline), every import resolving to a listed module, no module
importing one that imports it back (a module that must reach up the chain is handed a callback),
the elements looked up only in dom.js, no HTML made from strings; and the unit tests of the pure
modules (tests/js) run by Node's own test runner."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from circles import described_circles
from realparts import needs, program

from timekeeper.serve.web.offline import SHELL_ASSETS
from timekeeper.serve.web.routes import ASSETS, ASSETS_DIR, PAGE_SCRIPTS

ROOT = Path(__file__).resolve().parent.parent
IMPORT = re.compile(r'^import\s[^;]*?from\s+"([^"]+)";', re.M)
# every way one module reaches another: import ... from, export ... from, a bare import, import()
REACHES = re.compile(r'^(?:import|export)\s[^;]*?from\s+"([^"]+)"|^import\s+"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)', re.M)


def script(name: str) -> str:
    return (ASSETS_DIR / name).read_text(encoding="utf-8")


def test_every_module_is_listed_once_served_as_a_script_and_kept_offline():
    on_disk = {path.name for path in ASSETS_DIR.glob("*.js")} - {"sw.js"}  # the worker is served from the root
    assert sorted(PAGE_SCRIPTS) == sorted(on_disk) and len(set(PAGE_SCRIPTS)) == len(PAGE_SCRIPTS)
    assert all(ASSETS[name] == "text/javascript" for name in PAGE_SCRIPTS)
    assert set(PAGE_SCRIPTS) <= set(SHELL_ASSETS)


def test_the_page_loads_one_module_that_imports_every_other():
    page = script("index.html")
    assert re.findall(r"<script[^>]*>", page) == ['<script type="module" src="/assets/app.js">']
    reached, waiting = set(), ["app.js"]
    while waiting:
        name = waiting.pop()
        reached.add(name)
        for target in IMPORT.findall(script(name)):
            assert target.startswith("./") and target[2:] in PAGE_SCRIPTS, (name, target)
            if target[2:] not in reached:
                waiting.append(target[2:])
    assert reached == set(PAGE_SCRIPTS)  # no module left out, none loaded another way


def reached(source: str) -> frozenset[str]:
    """The modules (file names) a module's `source` imports."""
    return frozenset(target.removeprefix("./") for found in REACHES.findall(source) for target in found if target)


def test_the_reader_sees_every_kind_of_import():
    sources = {"a.js": 'import { b } from "./b.js";\nimport "./c.js";\nexport { d } from "./d.js";\n'
                       'const e = () => import("./e.js");\n// "./f.js" named in a comment\n',
               "b.js": "import {\n  x,\n  y,\n} from \"./a.js\";\n"}
    graph = {name: reached(text) for name, text in sources.items()}
    assert graph == {"a.js": {"b.js", "c.js", "d.js", "e.js"}, "b.js": {"a.js"}}
    assert described_circles(graph) == ["a.js, b.js (for one: a.js -> b.js -> a.js)"]


def test_no_page_module_imports_one_that_imports_it():
    graph = {name: reached(script(name)) for name in PAGE_SCRIPTS}
    assert graph["app.js"] and graph["mission.js"]  # (read)
    found = described_circles(graph)
    assert not found, "import circles among the page's modules: " + "; ".join(found)


def test_elements_are_looked_up_once_and_no_html_is_made_from_strings():
    for name in PAGE_SCRIPTS:
        text = script(name)
        if name != "dom.js":
            assert "getElementById" not in text and not re.search(r'querySelector(All)?\("#', text), name
        assert "insertAdjacentHTML" not in text and "outerHTML" not in text, name
        # the one HTML the page takes whole is the card the server makes (and escapes)
        assert len(re.findall(r"\.innerHTML\s*=", text)) == (1 if name == "after.js" else 0), name
    assert "page.card.innerHTML = await api(" in script("after.js")


@needs("node")
def test_the_pure_modules_pass_their_node_tests():
    run = subprocess.run([program("node"), "--test", "tests/js/"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    passed = re.search(r"^# pass (\d+)$", run.stdout, re.M)
    assert passed and int(passed.group(1)) >= 15 and "# fail 0" in run.stdout
