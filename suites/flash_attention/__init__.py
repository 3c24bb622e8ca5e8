"""Flash attention: one body (body.py) with its dialects, the Hopper bodies, build, validation,
footprint, reference and vendor items, declared in sweep.py; its suites; and what reading its
records needs (problem.py, records.py: no tilelang, no torch)."""
