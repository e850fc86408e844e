"""Kinds that read the workspace: `file`, `diff`, and the path rules and rooted reads they
share (paths.py)."""
