"""tlbench's backend-neutral core: types, sweeps, budget, stats, records, the pytest plugin,
compare/report tools and the pipeline models.  Imports no tilelang, tvm, torch or backends."""
