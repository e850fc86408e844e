"""Kinds that read the agent's final output: `text`, `json_schema`, and the task's `expected:`
checks."""
