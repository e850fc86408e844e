#!/usr/bin/env python3
"""The workspace's CHANGELOG.md has a 1.2.0 section, and the agent edited it with a tool."""

import json
import os
import sys
from pathlib import Path

workspace = Path(os.environ["WAZA_WORKSPACE_DIR"])
changelog = workspace / "CHANGELOG.md"
if not changelog.is_file():
    print("CHANGELOG.md not found in the workspace", file=sys.stderr)
    sys.exit(1)
text = changelog.read_text(encoding="utf-8")
if "## 1.2.0" not in text:
    print("CHANGELOG.md has no '## 1.2.0' section", file=sys.stderr)
    sys.exit(1)

with open(os.environ["WAZA_GRADING_CONTEXT"], encoding="utf-8") as f:
    ctx = json.load(f)
edits = [
    t
    for t in ctx["tool_calls"]
    if t["name"] in {"edit_file", "create_file"}
    and (t.get("arguments") or {}).get("path", "").endswith("CHANGELOG.md")
    and t["success"]
]
if not edits:
    print("the agent never edited CHANGELOG.md successfully", file=sys.stderr)
    sys.exit(1)
print(f"1.2.0 section present; {len(edits)} successful edit(s) of CHANGELOG.md")
