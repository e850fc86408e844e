"""`trigger`: the task's prompt against the skill's SKILL.md (skill_md.py reads it)."""
