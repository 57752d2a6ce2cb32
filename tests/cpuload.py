"""A loaded machine for tests whose races show only under load: processes that each keep a core
busy beside the test (as other work on a shared 2-core machine does), ended when the test ends."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator

from tiers import needs_full_tier

BUSY_S = 600  # a busy process ends by itself after this, whatever happens to the test


@needs_full_tier("starts busy processes")
@contextlib.contextmanager
def busy_cores(count: int = 2) -> Iterator[list[subprocess.Popen]]:
    """`count` processes spinning on a core each while the block runs (killed at its end, and
    ending by themselves after BUSY_S)."""
    spin = f"import time\nend = time.monotonic() + {BUSY_S}\nwhile time.monotonic() < end:\n    pass\n"
    spinning = [subprocess.Popen([sys.executable, "-c", spin], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL) for _ in range(count)]
    try:
        yield spinning
    finally:
        for process in spinning:
            process.kill()
        for process in spinning:
            process.wait(timeout=10)
