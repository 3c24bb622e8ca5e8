"""Rendering comparisons and runs: terminal tables, markdown, PNG plots, the ``--json``
documents and the end-of-run summary.  Formats only: the data comes from compare and files.
"""
