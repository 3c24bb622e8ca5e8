"""Results files: load, check and write them, the run journal, merged shards, each item's facts.
"""
