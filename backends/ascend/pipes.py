"""Which Ascend pipes are loads: the GM -> L1 and L1 -> L0 copies that feed the Cube (MTE2, MTE1).
Plain values, shared by the traits and the schedule figure (neither imports the other)."""

LOAD_PIPES = frozenset({"MTE1", "MTE2"})
