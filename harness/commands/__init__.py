"""``tlbench`` subcommands, one module each; ``harness.cli`` registers them and dispatches."""
