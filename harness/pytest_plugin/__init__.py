"""pytest layer: the pieces behind ``harness.plugin``.  May import every layer below it."""
