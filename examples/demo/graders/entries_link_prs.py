#!/usr/bin/env python3
"""Every entry of the 1.2.0 changelog section names its pull request, e.g. "(#123)".

The project's changelog convention; the saved runs did not follow it, so this grader fails
on both of them (the demo's report shows what a failing grader looks like).
"""

import os
import re
import sys
from pathlib import Path

changelog = Path(os.environ["WAZA_WORKSPACE_DIR"]) / "CHANGELOG.md"
section = re.search(r"^## 1\.2\.0\n(.*?)(?=^## |\Z)", changelog.read_text("utf-8"), re.M | re.S)
if section is None:
    print("CHANGELOG.md has no '## 1.2.0' section", file=sys.stderr)
    sys.exit(1)
entries = [line for line in section.group(1).splitlines() if line.startswith("- ")]
unlinked = [entry for entry in entries if not re.search(r"\(#\d+\)", entry)]
for entry in unlinked:
    print(f"no pull request reference: {entry}", file=sys.stderr)
if unlinked:
    print(
        f"AssertionError: {len(unlinked)} of {len(entries)} entries in '## 1.2.0' "
        "do not name their pull request as (#123)",
        file=sys.stderr,
    )
    sys.exit(1)
print(f"all {len(entries)} entries name their pull request")
