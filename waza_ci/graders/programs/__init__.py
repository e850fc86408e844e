"""Kinds that start a process: `program` (a grader program in the sandbox) and `code` (inline
assertions run by python3 or node, through waza-ci's own runners in code_wrappers/; code_io.py
writes what the runners read and reads what they print)."""
