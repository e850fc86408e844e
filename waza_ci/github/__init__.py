"""All GitHub I/O: the runner's environment, workflow commands and env files (runner.py), and
the REST API (http.py under retry.py's rules; checks.py, comments.py)."""
