"""``tlbench dashboard [--history DB] [--out-dir DIR]``: the static HTML dashboard of a history database.

Contract: writes the site (``harness.dashboard.site.build_site``) from an existing database,
prints what it left out and the path of ``index.html``, and exits 0.
"""

from __future__ import annotations

import argparse
from typing import Any

from .common import EXIT_OK, add_history, add_out_dir, exit_codes, parser_args
from ..results.history.schema import DEFAULT_HISTORY


def register(sub: Any) -> None:
    dash = sub.add_parser("dashboard", **parser_args(
        "write a static HTML dashboard (no server, no network) from the history",
        "Trends per case and testbed, detected regressions, stage curves, the best config per problem.",
        exit_codes("written", unusable="no such history database, or an empty one")))
    add_history(dash, DEFAULT_HISTORY, "history database")
    add_out_dir(dash, "site", "folder for the site")
    dash.add_argument("--exclude", action="append", default=[], metavar="SUITE-GLOB",
                      help="leave suites matching this shell-style pattern out of the site (repeatable; default: *tmp*, *scratch*)")
    dash.add_argument("--include-all", action="store_true", help="keep every suite, scratch ones too (overrides the default exclusions)")
    dash.set_defaults(handler=run_dashboard)


def run_dashboard(args: argparse.Namespace) -> int:
    from ..dashboard.site import DEFAULT_EXCLUDE, build_site
    from ..results.history.schema import open_history

    exclude = tuple(args.exclude) + (() if args.include_all else DEFAULT_EXCLUDE)
    conn = open_history(args.history, create=False)
    try:
        site = build_site(conn, args.out_dir, source=args.history, exclude=exclude)
    finally:
        conn.close()
    for line in site.notes:
        print(line)
    print(f"wrote {len(site.written)} files; open {site.written[0].resolve().as_uri()}")
    return EXIT_OK
