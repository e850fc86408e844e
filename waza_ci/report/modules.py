"""The grader modules of `ref:` graders in the report: which module, pinned at which commit and
digest, graded through which graders (with their YAML lines). Every report says it, whether the
graders passed or not: it is where the grading came from.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from waza_ci.report.model import ModuleUse, Report, Source
from waza_ci.report.sources import Where
from waza_ci.waza.modules.ref import ModulePin
from waza_ci.waza.scoring import TaskGrade

SHORT_COMMIT = 12
SHORT_DIGEST = len("sha256:") + 12


def module_uses(tasks: Sequence[TaskGrade], where: Where) -> tuple[ModuleUse, ...]:
    """Each pinned module once, by ref, with the graders that used it (each once)."""
    graders: dict[ModulePin, dict[tuple[str, Source], None]] = {}
    for task in tasks:
        for ref in task.graders.values():
            if ref.module is not None:
                source = where.source(ref.location)
                graders.setdefault(ref.module, {})[(ref.name, source)] = None
    return tuple(
        ModuleUse(pin.ref, pin.commit, pin.digest, tuple(graders[pin]))
        for pin in sorted(graders, key=lambda pin: (pin.ref, pin.commit, pin.digest))
    )


def modules_parts(report: Report, quote: Callable[[str], str]) -> list[str]:
    """One part per module: `name (file:line) ← ref at commit, digest`; `quote` makes a text
    safe for the medium."""
    parts = []
    for use in report.modules:
        users = ", ".join(
            f"{quote(name or '(no name)')} ({quote(str(s))})" for name, s in use.graders
        )
        pin = f"{quote(use.commit[:SHORT_COMMIT])}, {quote(use.digest[:SHORT_DIGEST] + '…')}"
        parts.append(f"{users} ← {quote(use.ref)} at {pin}")
    return parts


def modules_text(report: Report, quote: Callable[[str], str]) -> str:
    """`Graders by reference: …`, or "" when no grader came from a module."""
    parts = modules_parts(report, quote)
    return ("Graders by reference: " + "; ".join(parts)) if parts else ""
