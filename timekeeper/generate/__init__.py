"""The mission generator: random.Random(seed) + options -> a Scenario that plays like an official track.

    from timekeeper.generate import GenerateOptions, generate, options_from_text
    scenario = generate(4711, GenerateOptions(kind="mission", players=5))
    options = options_from_text({"length": "12:00", "threat_colors": "white,yellow"})  # raw form values

`OPTION_SPECS` describes every setting (for command-line options and forms); `relaxations`
names the official rules a set of options relaxes.
"""

from __future__ import annotations

from timekeeper.generate.batch import batch, write_batch
from timekeeper.generate.options import OPTION_SPECS, OptionSpec, check_options, options_from_text
from timekeeper.generate.relax import relaxations
from timekeeper.generate.sampler import generate
from timekeeper.generate.settings import GenerateOptions

__all__ = ["OPTION_SPECS", "GenerateOptions", "OptionSpec", "batch", "check_options", "generate", "options_from_text",
           "relaxations", "write_batch"]
