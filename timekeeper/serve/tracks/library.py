"""The tracks the page offers: the built-in ones, a folder the user named, and tracks added in the
page (generated, uploaded, imported from FlashPlayerCode), which are kept in the state folder.

A request names a track by its id and never by a path: ids are looked up in indexes built here,
so no request can reach a file outside those folders.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from timekeeper.errors import OutputError, ScenarioError
from timekeeper.files.atomicfile import write_atomic
from timekeeper.files.userfiles import read_user_file
from timekeeper.generate.options import KINDS
from timekeeper.grammar.times import format_time
from timekeeper.i18n import Said, said, said_json
from timekeeper.model import Scenario
from timekeeper.scenario.catalog import builtin_paths
from timekeeper.scenario.dump import dump_scenario
from timekeeper.scenario.load import LoadResult, load_file, load_text
from timekeeper.scenario.problems import Problem, errors
from timekeeper.scenario.yamlnodes import MAX_FILE_BYTES
from timekeeper.titles import title_json

MAX_FOLDER_FILES = 500  # scenario files listed from --scenarios DIR
MAX_ADDED_TRACKS = 500  # tracks made in the page that are kept (the oldest go first)
_ADDED_ID = re.compile(r"[0-9a-f]{16}")  # a track made in the page, matched whole (fullmatch)


class InvalidTrack(ScenarioError):
    """A scenario that failed to load; `problems` keeps each one with its line and column."""

    def __init__(self, problems: list[Problem]) -> None:
        shown = [str(p) for p in problems]
        super().__init__("\n".join(shown), lines=shown)
        self.problems = problems


@dataclass(frozen=True)
class Track:
    """One track of the list. `group` is where it comes from: a kind of official track, "folder" or
    "added"; `origin` says how an added track was made. A file of the folder that is not a valid
    scenario is listed too, not playable: `problem` is its first one (file:line:column: message)."""

    id: str
    group: str
    title: str
    kind: str
    length: str
    seed: int | None = None
    origin: str = ""
    problem: str = ""
    origin_said: Said | None = None  # `origin` in words the page says in its language
    problem_said: Said | None = None  # `problem` in words the page says in its language

    def as_json(self) -> dict:
        """The track as the page lists it: `title_said` and `origin_said` are its words in any
        language (None: the title is the track's own; the origin is a file name)."""
        return {"id": self.id, "group": self.group, "title": self.title, "title_said": title_json(self.title),
                "kind": self.kind, "length": self.length, "seed": self.seed, "origin": self.origin,
                "origin_said": said_json(self.origin_said) if self.origin_said else None, "problem": self.problem,
                "problem_said": said_json(self.problem_said) if self.problem_said else None}


@dataclass(frozen=True)
class LoadedTrack:
    track: Track
    scenario: Scenario
    yaml_text: str


def _valid(result: LoadResult) -> Scenario:
    problems = errors(result.problems)
    if problems or result.scenario is None:
        raise InvalidTrack(problems or [Problem.of(result.path, 0, 0, said("problem.file.invalid"))])
    return result.scenario


def _track(track_id: str, group: str, scenario: Scenario, origin: str = "") -> Track:
    return Track(track_id, group, scenario.title, scenario.kind.value, format_time(scenario.duration_ms),
                 scenario.seed, origin, origin_said=origin_said(origin, scenario) if group == "added" else None)


def problem_said(problem: Problem) -> Said | None:
    """A folder file's first problem as the page lists it: its file, line and column, and its words."""
    if problem.said is None:
        return None
    where = said("page.problems.line", line=problem.line, column=problem.column, message=problem.said) if problem.line \
        else problem.said
    return said("page.problems.in_file", file=problem.path, problem=where)


GENERATED, UPLOADED, FLASHCODE = "generated:", "uploaded ", "FlashPlayerCode"  # how an added track's origin begins


def origin_said(origin: str, scenario: Scenario) -> Said | None:
    """How an added track was made (`origin`, as its file's first line says it), in words: a
    generated mission's seed, kind and crew from the scenario itself, an uploaded file's name."""
    generator = dict(scenario.generator)
    if origin.startswith(GENERATED) and scenario.seed is not None and generator.get("kind") in KINDS:
        return said("page.origin.generated", seed=scenario.seed, kind=said(f"generate.kind.{generator['kind']}"),
                    players=generator.get("players", ""))
    if origin.startswith(UPLOADED):
        return said("page.origin.uploaded", name=origin.removeprefix(UPLOADED))
    if origin == FLASHCODE:
        return said("page.origin.flashcode")
    return None


class Library:
    """Every track one server offers. `folder` is --scenarios DIR (or None); added tracks are
    written to `store` as YAML files named by their content."""

    kept: int | None = None  # added tracks kept (None: MAX_ADDED_TRACKS; a crew's library of hosted mode keeps fewer)

    def __init__(self, folder: Path | None, store: Path) -> None:
        self.folder = folder.resolve() if folder is not None else None
        self.store = store
        self._builtin = builtin_paths()
        self._builtin_tracks: list[Track] | None = None
        self._read: dict[Path, tuple[float, Track | Problem]] = {}  # file -> (mtime, track or its first problem)

    # --- listing -------------------------------------------------------------------------------
    def tracks(self) -> list[Track]:
        return [*self.builtin_tracks(), *self._folder_tracks(), *self._added_tracks()]

    def builtin_tracks(self) -> list[Track]:
        if self._builtin_tracks is None:
            found = []
            for name, path in self._builtin.items():
                result = load_file(path, name)
                if result.scenario is not None:
                    group = "example" if path.parent.name == "examples" else result.scenario.kind.value
                    found.append(_track(f"builtin:{name}", group, result.scenario))
            self._builtin_tracks = found
        return self._builtin_tracks

    def _folder_files(self) -> dict[str, Path]:
        """folder-relative name -> file, for the scenario files below --scenarios (no links out)."""
        if self.folder is None:
            return {}
        return files_below(self.folder, (".yaml", ".yml"), MAX_FOLDER_FILES)

    def _folder_tracks(self) -> list[Track]:
        tracks = []
        for name, path in self._folder_files().items():
            found = self._cached(path, name, lambda s, n=name: _track(f"folder:{n}", "folder", s, n))
            tracks.append(found if isinstance(found, Track) else
                          Track(f"folder:{name}", "folder", name, "", "", problem=str(found), problem_said=problem_said(found)))
        return tracks

    def _added_files(self) -> dict[str, Path]:
        folder = self.store / "tracks"
        if not folder.is_dir():
            return {}
        return {path.stem: path for path in folder.glob("*.yaml") if _ADDED_ID.fullmatch(path.stem)}

    def _added_tracks(self) -> list[Track]:
        files = sorted(self._added_files().items(), key=lambda item: _mtime(item[1]), reverse=True)
        tracks = []
        for digest, path in files:
            if not path.is_file():
                continue  # forgotten meanwhile
            track = self._cached(path, path.name, lambda s, d=digest, p=path: _track(f"added:{d}", "added", s, _origin(p)))
            if isinstance(track, Track):
                tracks.append(track)
        return tracks

    def _cached(self, path: Path, display: str, make) -> Track | Problem:
        """The track `make` makes of the scenario in `path` (read again when the file changed), or
        the file's first problem."""
        try:
            mtime = path.stat().st_mtime
        except OSError as failure:  # removed or unreadable since it was listed
            return Problem(display, 0, 0, f"cannot read: {failure.strerror or failure}")
        seen = self._read.get(path)
        if seen is None or seen[0] != mtime:
            result = load_file(path, display)
            problems = errors(result.problems)
            if result.scenario is None or problems:
                seen = (mtime, (problems or [Problem.of(display, 0, 0, said("problem.file.invalid"))])[0])
            else:
                seen = (mtime, make(result.scenario))
            self._read[path] = seen
        return seen[1]

    # --- loading -------------------------------------------------------------------------------
    def load(self, track_id: str) -> LoadedTrack:
        """The track `track_id` names; ScenarioError when there is none or it is not valid."""
        group, _, name = track_id.partition(":")
        path = None
        if group == "builtin":
            path = self._builtin.get(name)
        elif group == "folder":
            path = self._folder_files().get(name)
        elif group == "added":
            path = self._added_files().get(name)
        if path is None:
            raise ScenarioError("no such track; pick one from the list", path=track_id, missing=True)
        display = name if group != "added" else f"{name}.yaml"
        data = read_user_file(path, MAX_FILE_BYTES, what="a scenario file (.yaml)", display=display, error=ScenarioError)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ScenarioError("not UTF-8 text; a scenario file is YAML", path=display) from None
        scenario = _valid(load_text(text, display))
        origin = _origin(path) if group == "added" else (name if group == "folder" else "")
        return LoadedTrack(_track(track_id, group if group != "builtin" else scenario.kind.value, scenario, origin),
                           scenario, text)

    def track_reference(self, track_id: str) -> str:
        """How the ship's log names a track: a built-in name, or the track's scenario file."""
        group, _, name = track_id.partition(":")
        if group == "builtin" and name in self._builtin:
            return name
        path = (self._folder_files() if group == "folder" else self._added_files() if group == "added" else {}).get(name)
        if path is None:
            raise ScenarioError("no such track; it may have been removed", path=track_id, missing=True)
        return str(path)

    # --- adding --------------------------------------------------------------------------------
    def add_yaml(self, text: str, name: str = "upload.yaml") -> LoadedTrack:
        """Check scenario YAML sent by the page; InvalidTrack (every problem) when it is not valid,
        and then nothing is stored."""
        scenario = _valid(load_text(text, name))
        return self._store(scenario, text, f"{UPLOADED}{name}")

    def add_scenario(self, scenario: Scenario, origin: str) -> LoadedTrack:
        """Store a scenario made in the page (generated, imported); it is checked like a file."""
        text = dump_scenario(scenario)
        scenario = _valid(load_text(text, "generated.yaml"))
        return self._store(scenario, text, origin)

    def _store(self, scenario: Scenario, text: str, origin: str) -> LoadedTrack:
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
        folder = self.store / "tracks"
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as failure:
            raise OutputError.cannot_create(folder, failure, "the state folder") from failure
        header = f"# timekeeper serve: {_one_line(origin)}\n"
        write_atomic(folder / f"{digest}.yaml", header + text)
        self._forget_oldest_added()
        return LoadedTrack(_track(f"added:{digest}", "added", scenario, origin), scenario, text)

    def _forget_oldest_added(self) -> None:
        """Keep the `kept` most recent added tracks (their files); older ones go."""
        files = sorted(self._added_files().values(), key=_mtime, reverse=True)
        for path in files[self.kept if self.kept is not None else MAX_ADDED_TRACKS:]:
            with contextlib.suppress(OSError):
                path.unlink()
            self._read.pop(path, None)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def files_below(root: Path, suffixes: tuple[str, ...], limit: int) -> dict[str, Path]:
    """root-relative name -> resolved file, for the regular files below `root` with one of
    `suffixes` (at most `limit`, by name). Links are followed only to files inside `root`; a
    linked folder is not entered, so a loop of links cannot trap the walk, and a name the system
    cannot resolve is skipped."""
    found: dict[str, Path] = {}
    try:
        base = root.resolve(strict=True)
    except (OSError, RuntimeError):
        return found
    for folder, subfolders, names in os.walk(base, followlinks=False):
        subfolders.sort()
        for name in sorted(names):
            if len(found) >= limit:
                return found
            if not name.lower().endswith(suffixes):
                continue
            path = Path(folder) / name
            try:
                resolved = path.resolve(strict=True)
                regular = resolved.is_file()
            except (OSError, RuntimeError):
                continue
            if regular and resolved.is_relative_to(base):
                found[path.relative_to(base).as_posix()] = resolved
    return found


def _one_line(text: str) -> str:
    return " ".join(text.split())[:200]


def _origin(path: Path) -> str:
    """How an added track was made: the first line of its file (`# timekeeper serve: ...`)."""
    with open(path, encoding="utf-8") as handle:
        first = handle.readline(300)
    prefix = "# timekeeper serve: "
    return first[len(prefix):].strip() if first.startswith(prefix) else ""
