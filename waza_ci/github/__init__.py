"""All GitHub I/O: the runner's environment, workflow commands, env files, the Checks API."""
