"""Flash attention: one body (body.py) with its dialects, the Hopper bodies, declared in sweep.py;
its suites; and the reader of its records (problem.py, records.py: no tilelang, no torch)."""
