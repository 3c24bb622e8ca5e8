"""TEST ONLY: a backend whose compile writes down who built what, for the cache warmer's tests
(tests/test_cache_warmer.py).  ``compile(case, cold)`` appends ``pid case_id`` to
``<options["dir"]>/builds.txt``; a case id that starts with ``bad`` raises, as a kernel the
compiler refuses does."""

import os
from dataclasses import dataclass
from pathlib import Path


class Refused(Exception):
    pass


@dataclass(frozen=True)
class MarkedCase:
    case_id: str


class MarkingBackend:
    name = "marking"

    def __init__(self, options):
        self.dir = Path(options.get("dir"))

    def compile(self, case, cold):
        with open(self.dir / "builds.txt", "a") as f:
            f.write(f"{os.getpid()} {case.case_id}\n")
        if case.case_id.startswith("bad"):
            raise Refused(f"{case.case_id}: refused")
        return f"built {case.case_id} in {os.getpid()}"
