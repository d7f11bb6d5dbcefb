#!/bin/sh
# A host C++ compiler that never finishes (tests/sim/cli_run.py): like GCC's driver, it starts
# a worker (here a sleep) and waits; the worker's pid goes to $SLOW_CXX_PIDS.
sleep 300 &
echo $! > "$SLOW_CXX_PIDS"
wait
