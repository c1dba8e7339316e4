"""Runs the fuzz pipeline over one file in a fresh process and reports the memory it took.

``python -m tests.fuzz.memprobe FILE`` prints one JSON object: the file's size, the peak of
Python allocations during the run (``tracemalloc``) and how much the process's resident set
grew (its peak resident set, which also sees what Pillow and msgspec allocate outside Python's
allocator). A fresh process keeps the figures clear of what other tests left behind.
"""

from __future__ import annotations

import json
import resource
import sys
import time
import tracemalloc
from pathlib import Path


def peak_rss() -> int:
    """The process's peak resident set in bytes: ``VmHWM`` (reset by ``exec``, unlike
    ``ru_maxrss``, which a child inherits from the process that forked it)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def main(argv: list[str]) -> int:
    """Exercise ``argv[0]`` (sampling its items) and print the figures as JSON."""
    path = Path(argv[0])
    # Everything the run imports is imported before the baseline is taken.
    import PIL.Image  # noqa: F401
    import PIL.PngImagePlugin  # noqa: F401

    import piview.cli  # noqa: F401
    import piview.commands.print  # noqa: F401
    import piview.export.text  # noqa: F401
    from tests.fuzz.pipeline import exercise

    base = peak_rss()
    tracemalloc.start()
    start = time.perf_counter()
    report = exercise(path, sample=150)
    seconds = time.perf_counter() - start
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    top = peak_rss()
    figures = {
        "size": path.stat().st_size,
        "peak": peak,
        "rss_growth": top - base,
        "seconds": round(seconds, 2),
        "entries": report.entries,
        "items": report.items_rendered,
    }
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
