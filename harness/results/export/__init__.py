"""Results written for others: github-action-benchmark's JSON and the best-config file.
"""
