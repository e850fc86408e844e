"""All GitHub I/O: the runner's environment (environment.py), workflow commands (commands.py) and
env files (env_files.py), and the REST API (http.py under retry.py's rules; checks.py,
comments.py; contents.py, a repository's file at a commit)."""
