"""launch_log.py's pure part: how a sidecar process ended (the system lane's restart test reads
the line in a real server's log after kill -9)."""

from jupyterlab_project_startup.launch_log import _ending


def test_ending_names_the_signal_or_the_exit_code():
    assert _ending(-9) == "was killed by SIGKILL (signal 9)"
    assert _ending(3) == "exited with code 3"
    assert _ending(None) == "ended"
    assert _ending(-200) == "was killed by signal 200"
