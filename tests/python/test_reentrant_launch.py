"""Launches made during a launch (issue 26): a Python signal handler that the simulator's
interrupt check runs mid-launch, launching the same specialization itself or through a thread it
waits for, gets a pyk2cuda.Error at once (it waited for ever for the launch lock its own launch
held, and Ctrl-C then did nothing); an extension whose prepare_args launches the kernel again
raises RecursionError before the C stack runs out (150-200 levels died of SIGSEGV), in the main
thread and in a thread with a 4 MiB stack. Each runs in a child interpreter with a timeout."""
import subprocess

import pytest

from conftest import run_script


def run(script, *args):
    try:
        return run_script([script, *args], env={"PYK2CUDA_DEVICE": "sim"}, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("the script hung (120 s)")


@pytest.mark.parametrize("how", ["same", "thread"])
def test_signal_handler_launching_during_a_launch_fails_instead_of_hanging(how):
    rc, out, err = run("handler_launch_script.py", how)
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0] == "KeyboardInterrupt", out
    assert lines[1].startswith("[\"sim: simulator: kernel 'busy' cannot launch now: a launch of the "
                               "same module is running host code"), out
    assert lines[2] == "launches again", out


@pytest.mark.parametrize("where", ["main", "thread"])
def test_launches_made_by_launches_raise_recursion_error(where):
    rc, out, err = run("recursive_launch_script.py", where)
    assert rc == 0, (rc, err)
    assert out.startswith("RecursionError maximum recursion depth exceeded while launching kernel "
                          "'k'"), out
