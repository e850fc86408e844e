"""The sticky pull-request comment against the loopback GitHub API: create, update, no
duplicates, pagination past 100 comments, concurrent runs, human edits, 403."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fake_github import FakeGitHub, Fault
from tests.github.conftest import REPOSITORY, TOKEN, FakeTime
from waza_ci.gate.baseline import PassCount, Side, compare
from waza_ci.github.comments import (
    CommentsUnavailable,
    StickyCommentClient,
    comment_marker,
)
from waza_ci.github.http import GitHubHttp
from waza_ci.publish.comment import CommentContext, publish_comment
from waza_ci.publish.options import CommentMode
from waza_ci.report.comment import render_comment
from waza_ci.waza.scoring import STATUS_FAILED, STATUS_PASSED, GradeSummary, RunGrade, TaskGrade

ISSUE = 42
MARKER = comment_marker("CI\nwaza program graders")
BOT = "github-actions[bot]"


@pytest.fixture
def http(github: FakeGitHub, fake_time: FakeTime) -> Iterator[GitHubHttp]:
    session = GitHubHttp(
        github.url,
        TOKEN,
        sleep=fake_time.sleep,
        clock=fake_time.clock,
        monotonic=fake_time.clock,
        deadline_s=3600,
        write_interval_s=0,
    )
    yield session
    session.close()


@pytest.fixture
def sticky(http: GitHubHttp) -> StickyCommentClient:
    return StickyCommentClient(http, REPOSITORY)


def body(text: str) -> str:
    return f"{MARKER}\n{text}"


def ours(github: FakeGitHub) -> list[dict[str, object]]:
    return [c for c in github.comments if str(c["body"]).startswith(MARKER)]


def test_creates_then_updates_in_place_never_a_second_copy(
    github: FakeGitHub, sticky: StickyCommentClient
) -> None:
    first = sticky.upsert(ISSUE, MARKER, body("run 1"))
    second = sticky.upsert(ISSUE, MARKER, body("run 2"))
    third = sticky.upsert(ISSUE, MARKER, body("run 2"))
    assert first is not None and second is not None and third is not None
    assert (first.action, second.action, third.action) == ("created", "updated", "unchanged")
    assert first.id == second.id == third.id
    (comment,) = github.comments
    assert comment["body"] == body("run 2")
    assert comment["issue"] == ISSUE
    assert len(github.requests_for("POST")) == 1
    assert len(github.requests_for("PATCH")) == 1


def test_finds_its_comment_past_the_first_100(
    github: FakeGitHub, sticky: StickyCommentClient
) -> None:
    for index in range(130):
        github.add_comment(ISSUE, f"comment {index}", repository=REPOSITORY)
    existing = github.add_comment(ISSUE, body("old"), login=BOT, repository=REPOSITORY)
    for index in range(20):
        github.add_comment(ISSUE, f"later {index}", repository=REPOSITORY)
    result = sticky.upsert(ISSUE, MARKER, body("new"))
    assert result is not None and result.id == existing and result.action == "updated"
    assert [c["body"] for c in ours(github)] == [body("new")]
    pages = [r.query.get("page") for r in github.requests_for("GET")]
    assert pages == [["1"], ["2"]]
    assert not github.requests_for("POST")


def test_a_create_whose_answer_is_lost_is_not_sent_twice(
    github: FakeGitHub, sticky: StickyCommentClient
) -> None:
    github.add_fault(Fault.apply_then_drop("POST", "*/comments"))
    result = sticky.upsert(ISSUE, MARKER, body("once"))
    assert result is not None
    assert len(ours(github)) == 1
    assert len(github.requests_for("POST")) == 1


def test_a_concurrent_run_s_copy_is_removed_and_the_oldest_kept(
    github: FakeGitHub, sticky: StickyCommentClient
) -> None:
    # Another run's comment exists, but our first listing misses it (it was created between
    # our list and our create): we create, list again, keep the oldest, delete ours.
    older = github.add_comment(ISSUE, body("other run"), login=BOT, repository=REPOSITORY)
    github.add_fault(Fault("GET", "*/comments", status=200, body=[]))
    result = sticky.upsert(ISSUE, MARKER, body("this run"))
    assert result is not None and result.id == older and result.removed_duplicates == 1
    assert [(c["id"], c["body"]) for c in ours(github)] == [(older, body("this run"))]
    assert len(github.requests_for("DELETE")) == 1


def test_humans_comments_are_never_taken_over_and_a_human_edit_is_replaced(
    github: FakeGitHub, sticky: StickyCommentClient
) -> None:
    github.add_comment(ISSUE, f"> {MARKER}\n> quoted", repository=REPOSITORY)
    github.add_comment(ISSUE, body("pasted by a person"), login="octocat", repository=REPOSITORY)
    edited = github.add_comment(ISSUE, body("edited by hand"), login=BOT, repository=REPOSITORY)
    result = sticky.upsert(ISSUE, MARKER, body("fresh"))
    assert result is not None and result.id == edited
    bodies = {c["id"]: c["body"] for c in github.comments}
    assert bodies[edited] == body("fresh")
    assert sorted(bodies.values()) == sorted(
        [f"> {MARKER}\n> quoted", body("pasted by a person"), body("fresh")]
    )


def test_nothing_is_created_when_not_asked(github: FakeGitHub, sticky: StickyCommentClient) -> None:
    assert sticky.upsert(ISSUE, MARKER, body("x"), create=False) is None
    assert not github.comments and not github.requests_for("POST")


def test_a_read_only_token_is_comments_unavailable(
    github: FakeGitHub, sticky: StickyCommentClient
) -> None:
    github.add_fault(Fault.integration_refused("GET", "*/comments"))
    with pytest.raises(CommentsUnavailable, match="pull-requests: write"):
        sticky.upsert(ISSUE, MARKER, body("x"))


# --- the step and the body ----------------------------------------------------------------------


def _summary(*runs: bool) -> GradeSummary:
    graded = tuple(
        RunGrade(i + 1, STATUS_PASSED if ok else STATUS_FAILED, ()) for i, ok in enumerate(runs)
    )
    return GradeSummary(
        "e", "e.yaml", ("r.json",), (TaskGrade("t1", "r.json", "t1", "T1", graded),)
    )


def _context(http: GitHubHttp, event_name: str = "pull_request") -> CommentContext:
    return CommentContext(
        http=http,
        repository=REPOSITORY,
        has_token=True,
        event_name=event_name,
        event={"pull_request": {"number": ISSUE}},
        workflow="CI",
        check_name="waza program graders",
        check_url="https://github.example/octo-org/widgets/runs/1",
        summary_url="https://github.example/octo-org/widgets/actions/runs/9",
    )


def test_the_step_posts_once_and_the_403_fallback_is_one_notice(
    github: FakeGitHub, http: GitHubHttp
) -> None:
    notices: list[str] = []
    warnings: list[str] = []

    def run(mode: CommentMode, summary: GradeSummary, event_name: str = "pull_request") -> None:
        publish_comment(
            mode,
            _context(http, event_name),
            summary=summary,
            comparison=None,
            baseline_note=None,
            notice=notices.append,
            warn=warnings.append,
        )

    run(CommentMode.ON_CHANGE, _summary(True))  # all green, nothing there: nothing posted
    assert not github.comments
    run(CommentMode.ON_CHANGE, _summary(False))
    run(CommentMode.ON_CHANGE, _summary(True))  # existing one brought up to date
    (comment,) = github.comments
    lines = str(comment["body"]).splitlines()
    assert "✅" in lines[1] and lines[3] == "**✅ Passed**"  # no baseline asked for
    run(CommentMode.ON_CHANGE, _summary(True), event_name="push")
    github.add_fault(Fault.integration_refused("GET", "*/comments"))
    run(CommentMode.ALWAYS, _summary(False))
    assert len(notices) == 2 and not warnings
    assert "not a pull_request event" in notices[0]
    assert "pull-requests: write" in notices[1]
    run(CommentMode.OFF, _summary(False))
    assert len(github.comments) == 1 and len(notices) == 2


def test_the_body_has_verdict_table_links_and_fits_the_limit() -> None:
    tasks = tuple(
        TaskGrade(
            f"task-{i:05d}",
            "r.json",
            f"task-{i:05d}",
            "",
            (RunGrade(1, STATUS_PASSED, ()), RunGrade(2, STATUS_FAILED, ())),
        )
        for i in range(3000)
    )
    summary = GradeSummary("e", "e.yaml", ("r.json",), tasks)
    sides = [Side(t.key, t.key, "", PassCount(1, 2), {}) for t in tasks[:2]]
    comparison = compare(sides[:1], [Side("gone", "gone", "", PassCount(1, 1), {}), *sides[1:]])
    text = render_comment(
        MARKER,
        check_name="waza program graders",
        summary=summary,
        comparison=comparison,
        baseline_note=None,
        check_url="https://github.example/o/r/runs/1",
        summary_url="https://github.example/o/r/actions/runs/2",
    )
    assert text.startswith(MARKER + "\n### ")
    assert len(text) <= 65_536
    assert "more row(s) — see the check run" in text
    assert text.rstrip().endswith(
        "[Check run](https://github.example/o/r/runs/1) · "
        "[Job summary](https://github.example/o/r/actions/runs/2)"
    )
    assert "**Regression gate:" in text
    assert "| 〰️ flaky | `task-00000` |" in text
