"""``tlbench dashboard DB --out site/``: the static HTML dashboard of a history database.

Contract: opens DB read-only in intent (it must exist; a missing file is exit 2 with how
to make one), writes the site (``harness.dashboard.site.build_site``), prints the path of
``index.html`` (open it with a browser from ``file://``) and exits 0.
"""

from __future__ import annotations

import argparse
from typing import Any

from tlbench.harness.results.history.schema import DEFAULT_HISTORY


def register(sub: Any) -> None:
    dash = sub.add_parser("dashboard", help="write a static HTML dashboard (no server, no network) from the history")
    dash.add_argument("history", nargs="?", default=DEFAULT_HISTORY, metavar="DB", help=f"history database (default {DEFAULT_HISTORY})")
    dash.add_argument("--out", default="site", metavar="DIR", help="folder for the site (default site/)")
    dash.set_defaults(handler=run_dashboard)


def run_dashboard(args: argparse.Namespace) -> int:
    from tlbench.harness.dashboard.site import build_site
    from tlbench.harness.results.history.schema import open_history

    conn = open_history(args.history, create=False)
    try:
        written = build_site(conn, args.out, source=args.history)
    finally:
        conn.close()
    print(f"wrote {len(written)} files; open {written[0].resolve().as_uri()}")
    return 0
