"""``tlbench`` subcommands, one module each (``register(subparsers)`` and a handler); ``common``
holds their one grammar; ``harness.cli`` registers them and dispatches."""
