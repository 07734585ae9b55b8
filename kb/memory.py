"""Handing freed memory back to the system after a large load, so a serving process's RSS is what it holds."""

from __future__ import annotations

import contextlib
import ctypes


def return_freed_memory() -> None:
    """glibc keeps freed blocks for reuse: after loading an index (tens of MB of rows read, then dropped) and building
    its inverted file (tens of MB of scores) they would stay in the process's memory for good, 100 MB at 100k chunks
    (bench/search_bench.py). No-op where the C library is not glibc."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
