"""DIAGNOSIS ONLY (not part of tlbench): periodic stacks of every Python process of a run.

With this folder first on PYTHONPATH and ``STACK_PROBE_DIR`` / ``STACK_PROBE_EVERY`` (seconds)
set, each Python process that starts - pytest, a device worker, each build child - writes its
command line to ``$STACK_PROBE_DIR/<pid>.txt`` and then, every ``STACK_PROBE_EVERY`` seconds,
all its threads' Python stacks (``faulthandler.dump_traceback_later``, which runs on a C thread
of its own and needs no GIL-free Python code).  Used by the H200 scripts (``PREPEND_PATH``) to
see where a run that measures nothing is waiting.
"""

import faulthandler
import os

_dir = os.environ.get("STACK_PROBE_DIR", "")
_every = float(os.environ.get("STACK_PROBE_EVERY", "0") or 0)
if _dir and _every > 0:
    os.makedirs(_dir, exist_ok=True)
    _out = open(os.path.join(_dir, f"{os.getpid()}.txt"), "a", buffering=1)
    try:
        with open("/proc/self/cmdline", "rb") as _cmd:
            _out.write("cmdline: " + _cmd.read().replace(b"\0", b" ").decode(errors="replace") + "\n")
    except OSError:
        pass
    faulthandler.dump_traceback_later(_every, repeat=True, file=_out)
