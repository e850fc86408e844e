"""Writing a 40 MB regraded results file, against `json.dumps` of the same document.

The document is shaped like a regraded results file (100 tasks x 4 runs, 100 kB transcripts
with `<`, `>` and `&` in tool output, integral and fractional float scores). waza-ci's writer
(`waza_ci.waza.results.write_results`, Go-style indented JSON, streamed) writes it to a file; the
baseline is `json.dumps(document, ensure_ascii=False)` (compact, the standard library's C
encoder) written to a file, measured alternately in the same process, median of --repeats.

    python benchmarks/writer.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from _project import Row, median, transcript

from waza_ci.waza.results import write_results

GOAL = 2.0


def document() -> dict[str, Any]:
    events = transcript(100_000)
    verdict = {"score": 1.0, "weight": 1.0, "passed": True, "details": {"stdout": "<ok> & done"}}
    return {
        "schemaVersion": "1.5",
        "summary": {"total_tests": 100, "success_rate": 0.75},
        "tasks": [
            {
                "test_id": f"t{task}",
                "stats": {"pass_rate": 1.0, "avg_score": 0.5},
                "runs": [
                    {"run_number": run + 1, "transcript": events, "validations": {"g": verdict}}
                    for run in range(4)
                ],
            }
            for task in range(100)
        ],
    }


def measure(repeats: int) -> tuple[float, float, int]:
    """(writer seconds, json.dumps seconds, bytes written by the writer)."""
    doc = document()
    ours, theirs = [], []
    with tempfile.TemporaryDirectory() as temp:
        target = Path(temp) / "out.json"
        for _ in range(repeats):
            started = time.perf_counter()
            with target.open("wb") as stream:
                write_results(doc, stream)
            ours.append(time.perf_counter() - started)
            size = target.stat().st_size
            started = time.perf_counter()
            with target.open("w", encoding="utf-8") as stream:
                stream.write(json.dumps(doc, ensure_ascii=False))
            theirs.append(time.perf_counter() - started)
    return median(ours), median(theirs), size


def rows(repeats: int) -> list[Row]:
    ours, theirs, size = measure(repeats)
    return [
        Row(
            f"write a {size / 1e6:.0f} MB regraded file",
            f"{ours:.2f} s",
            f"json.dumps+write {theirs:.2f} s",
            ours / theirs,
            "<= 2x",
            ours / theirs <= GOAL,
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    ours, theirs, size = measure(parser.parse_args().repeats)
    print(
        f"{size / 1e6:.1f} MB: writer {ours:.2f} s, json.dumps {theirs:.2f} s, {ours / theirs:.2f}x"
    )


if __name__ == "__main__":
    main()
