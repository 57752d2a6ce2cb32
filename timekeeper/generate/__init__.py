"""The mission generator: random.Random(seed) + options -> a Scenario that plays like an official track.

    from timekeeper.generate import GenerateOptions, generate
    scenario = generate(4711, GenerateOptions(kind="mission", players=5))
"""

from __future__ import annotations

from timekeeper.generate.batch import batch, write_batch
from timekeeper.generate.options import GenerateOptions, check_options
from timekeeper.generate.sampler import generate

__all__ = ["GenerateOptions", "batch", "check_options", "generate", "write_batch"]
