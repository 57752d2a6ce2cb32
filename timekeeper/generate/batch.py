"""Many missions at once (--count), an exploration campaign (--campaign), and writing them out, one at a time."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from timekeeper.errors import ScenarioError
from timekeeper.generate.options import check_options, check_seed, reproducing_command
from timekeeper.generate.sampler import generate
from timekeeper.generate.settings import GenerateOptions
from timekeeper.model import CAMPAIGN_MISSIONS, Scenario
from timekeeper.scenario.dump import dump_scenario
from timekeeper.titles import campaign_title

MAX_COUNT = 100_000  # missions one --count writes (about 400 MB of files, a few minutes)

Progress = Callable[[int, int], None]  # (missions written, missions in all)


def missions(seed: int, options: GenerateOptions = GenerateOptions(), *, count: int = 1, campaign: bool = False,
             language: str | None = None) -> Iterator[Scenario]:
    """`count` missions of seeds seed, seed+1, ..., each made when it is asked for (so a caller that
    writes or measures one before asking for the next holds one at a time); a campaign is three
    missions in a row. The arguments are checked at once (ScenarioError), before any mission is made.

    Mission n of a campaign is the mission of seed + n - 1, titled and marked as part of the campaign.
    """
    check_options(options)
    check_seed(seed)
    if campaign:
        count = CAMPAIGN_MISSIONS
    if not 1 <= count <= MAX_COUNT:
        raise ScenarioError(f"--count {count} is out of range (expected 1 to {MAX_COUNT})", path="generate")
    check_seed(seed + count - 1)
    return _made(seed, options, count, campaign, language)


def _made(seed: int, options: GenerateOptions, count: int, campaign: bool, language: str | None) -> Iterator[Scenario]:
    for index in range(count):
        if campaign:
            number = f"{index + 1}/{CAMPAIGN_MISSIONS}"
            title = campaign_title(seed, index + 1, CAMPAIGN_MISSIONS)
            mission = generate(seed + index, options, title=title, extra=(("campaign", str(seed)), ("mission", number)))
        else:
            mission = generate(seed + index, options)
        yield dataclasses.replace(mission, language=language) if language else mission


def batch(seed: int, options: GenerateOptions = GenerateOptions(), *, count: int = 1, campaign: bool = False,
          language: str | None = None) -> list[Scenario]:
    """The missions of `missions()` as a list (for a few: the page's form makes at most 20)."""
    return list(missions(seed, options, count=count, campaign=campaign, language=language))


def file_name(scenario: Scenario) -> str:
    """`mission-4711.yaml`, or `campaign-4711-2.yaml` for the second mission of campaign 4711."""
    options = dict(scenario.generator)
    if "campaign" in options:
        return f"campaign-{options['campaign']}-{options['mission'].split('/')[0]}.yaml"
    return f"{options.get('kind', 'mission')}-{scenario.seed}.yaml"


def is_folder(output: str) -> bool:
    return output.endswith(("/", "\\")) or Path(output).is_dir()


@dataclass(frozen=True)
class Written:
    """What write_batch wrote: the first file and how many."""

    first: Path
    count: int


def write_batch(missions: Iterable[Scenario], output: str, count: int, progress: Progress | None = None) -> Written:
    """Write the `count` missions one by one as they come: one mission to the file `output`, or each
    mission into the folder `output` (a file of its own, atomically, before the next is asked for:
    memory does not grow with `count`). `progress(done, count)` is told after each file."""
    from timekeeper.files.atomicfile import write_atomic
    from timekeeper.files.outputpath import check_output_folder

    if count > 1 and not is_folder(output) and output.endswith((".yaml", ".yml")):
        raise ScenarioError(f"{count} missions need a folder; give -o {Path(output).stem}/", path=output)
    folder = check_output_folder(output, what="missions") if count > 1 or is_folder(output) else None
    first: Path | None = None
    done = 0
    try:
        if folder:
            folder.mkdir(parents=True, exist_ok=True)
        for mission in missions:
            target = folder / file_name(mission) if folder else Path(output)
            write_atomic(target, dump_scenario(mission, header=_header(mission)))
            first = first or target
            done += 1
            if progress is not None:
                progress(done, count)
    except OSError as error:
        from timekeeper.errors import OutputError

        raise OutputError.cannot_write(error.filename or output, error) from error
    if first is None or done != count:
        raise AssertionError(f"write_batch was given {done} missions, not {count}")
    return Written(first, done)


def _header(scenario: Scenario) -> str:
    assert scenario.seed is not None  # every generated mission has one
    return (f"Generated by timekeeper: {reproducing_command(scenario.seed, scenario.generator)}\n"
            "Play it: timekeeper live FILE; render it: timekeeper render FILE -o FILE.mp3")
