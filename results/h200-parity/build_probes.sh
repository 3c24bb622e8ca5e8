#!/usr/bin/env bash
# The build probes of the H200 worker stall (README.md there): real tilelang builds of the tile
# sweep in N spawned children (child), or four cold builds serial / on threads / in processes (threads).
# The tools are the package modules tlbench.backends.tools.child_builds and .thread_builds.
# usage (repo root, tilelang importable): bash results/h200-parity/build_probes.sh child 16
#                                         bash results/h200-parity/build_probes.sh threads serial|threads|procs
set -eu
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
case ${1:-} in
  child) shift; exec python3 -m tlbench.backends.tools.child_builds "$@" ;;
  threads) shift; exec python3 -m tlbench.backends.tools.thread_builds "$@" ;;
  *) echo "usage: bash results/h200-parity/build_probes.sh child N | threads serial|threads|procs" >&2; exit 2 ;;
esac
