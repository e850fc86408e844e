#!/usr/bin/env python3
"""version.txt in the workspace says 1.2.0 and the final answer mentions the new version."""

import os
import sys
from pathlib import Path

output = sys.stdin.read()
version_file = Path(os.environ["WAZA_WORKSPACE_DIR"]) / "version.txt"
if not version_file.is_file():
    print("version.txt not found in the workspace", file=sys.stderr)
    sys.exit(1)
version = version_file.read_text(encoding="utf-8").strip()
if version != "1.2.0":
    print(f"version.txt says {version!r}, expected '1.2.0'", file=sys.stderr)
    sys.exit(1)
if "1.2.0" not in output:
    print("the final answer does not mention 1.2.0", file=sys.stderr)
    sys.exit(1)
print("version.txt is 1.2.0 and the answer says so")
