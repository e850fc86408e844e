"""Running one program safely: exactly the stdin, environment and directory it is given, a
private context directory, a timeout and a process group that dies with it, and nothing left
behind when waza-ci is stopped or killed. Knows nothing of waza.

program.py       the supervisor: start, feed, capture, time out, kill the group
capture.py       one output stream kept within a cap: its head and its tail, the cut counted
outcome.py       what one run produced
privatedir.py    the private 0700 directory and 0600 file; verified, then removed
groupguard.py    the group guard that kills graders' groups if waza-ci dies
orphans.py       escaped grandchildren: adopted, killed and reaped
cancellation.py  SIGINT/SIGTERM while grading: stop every program now
signals.py       SIGINT/SIGTERM outside grading: one line, exit 130/143
goexec.py        Go's os/exec lookup, with its error texts
startcheck.py    why a program could not start, from its file (CRLF, no #! line, noexec)
isolation.py     secrets out of our own environment, and out of the graders'
"""
