"""Kinds that read the saved session: `behavior`, `tool_calls`, `tool_constraint`,
`action_sequence`, `skill_invocation`; digest.py reads the run's session digest, tool events
and skill invocations as `waza grade` reads them; argmatcher.py and argmatcher_decode.py are
the argument matchers, tool_names.py waza's canonical tool names."""
