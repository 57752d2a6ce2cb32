"""The tier of a test is read from its code (tests/tiers.py): what starts a program is full tier."""

from __future__ import annotations

import subprocess
from pathlib import Path

import running
import serving
from tiers import file_reason, full_tier_reason

# Sample test code, compiled as code of this file: a test that named these functions itself
# would be read as using what they use, and be put in the full tier.
SAMPLES = '''
def runs_the_cli():
    result_of("list")

def calls_a_helper_that_runs_the_cli():
    runs_the_cli()

def starts_a_program():
    subprocess.run(["true"], check=True)

def imports_chromium_inside():
    from serving import chromium as browser
    browser((10, 10))

def in_process_only():
    from inprocess import run_cli
    run_cli("list")
'''


SAMPLED: dict = {"result_of": running.result_of, "subprocess": subprocess, "serving": serving}
exec(compile(SAMPLES, __file__, "exec"), SAMPLED)  # at import: the tests below name only the dict


def test_programs_started_directly_or_through_helpers_are_full_tier() -> None:
    code = SAMPLED
    assert full_tier_reason(code["runs_the_cli"]) == "runs the CLI in its own process"
    assert full_tier_reason(code["calls_a_helper_that_runs_the_cli"]) == "runs the CLI in its own process"
    assert full_tier_reason(code["starts_a_program"]) == "starts a program"
    assert full_tier_reason(code["imports_chromium_inside"]) == "drives Chromium"


def test_in_process_work_stays_in_the_fast_tier() -> None:
    assert full_tier_reason(SAMPLED["in_process_only"]) is None
    assert full_tier_reason(test_in_process_work_stays_in_the_fast_tier) is None


def test_whole_files_by_name() -> None:
    assert file_reason(Path("tests/test_voice_neural.py")) == "Piper synthesis"
    assert file_reason(Path("tests/test_fast_cli.py")) is None
