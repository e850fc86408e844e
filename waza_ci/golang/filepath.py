"""Go's path/filepath on Unix, as waza resolves the paths its graders name."""

from __future__ import annotations


def go_clean(path: str) -> str:
    """Go's `filepath.Clean` on Unix: one slash between names, no `.`, `..` resolved
    lexically (never above `/`), `.` for an empty result."""
    rooted = path.startswith("/")
    names: list[str] = []
    for name in path.split("/"):
        if name in ("", "."):
            continue
        if name == "..":
            if names and names[-1] != "..":
                names.pop()
            elif not rooted:
                names.append("..")
            continue
        names.append(name)
    cleaned = "/".join(names)
    if rooted:
        return "/" + cleaned
    return cleaned or "."


def go_abs(path: str, working_directory: str) -> str:
    """Go's `filepath.Abs`, with `working_directory` standing for the process cwd."""
    if path.startswith("/"):
        return go_clean(path)
    return go_clean(f"{working_directory}/{path}")
