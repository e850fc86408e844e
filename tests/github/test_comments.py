"""The sticky pull-request comment against the loopback GitHub API: create, update, no
duplicates, pagination past 100 comments, concurrent runs, human edits, 403."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.fake_github import FakeGitHub, Fault
from tests.github.conftest import REPOSITORY, TOKEN, FakeTime
from waza_ci.gate.baseline import PassCount, Side, compare
from waza_ci.gate.baseline_io import BaselineUse
from waza_ci.github.comments import (
    CommentsUnavailable,
    StickyCommentClient,
    comment_marker,
)
from waza_ci.github.http import GitHubHttp
from waza_ci.publish.comment import CommentContext, publish_comment
from waza_ci.publish.options import CommentMode
from waza_ci.report.comment import render_comment
from waza_ci.report.evaluation import Evaluation
from waza_ci.waza.scoring import (
    GraderVerdict,
    GradeSummary,
    RunGrade,
    Status,
    TaskGrade,
)

ISSUE = 42
MARKER = comment_marker("CI\nwaza program graders")
BOT = "github-actions[bot]"


def _session(fake: FakeGitHub, fake_time: FakeTime) -> GitHubHttp:
    """A client on the fake, on the fake clock: retries wait no real time."""
    return GitHubHttp(
        fake.url,
        TOKEN,
        sleep=fake_time.sleep,
        clock=fake_time.clock,
        monotonic=fake_time.clock,
        deadline_s=3600,
        write_interval_s=0,
    )


@pytest.fixture
def http(github: FakeGitHub, fake_time: FakeTime) -> Iterator[GitHubHttp]:
    session = _session(github, fake_time)
    yield session
    session.close()


@pytest.fixture
def sticky(http: GitHubHttp) -> StickyCommentClient:
    return StickyCommentClient(http, REPOSITORY)


def body(text: str) -> str:
    return f"{MARKER}\n{text}"


def ours(github: FakeGitHub) -> list[dict[str, Any]]:
    return [c for c in github.comments if str(c["body"]).startswith(MARKER)]


def as_listed(comment: dict[str, Any]) -> dict[str, Any]:
    """A stored comment as the list answers it (without the fake's `issue` key)."""
    return {key: value for key, value in comment.items() if key != "issue"}


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
    lists = [r for r in github.requests_for("GET") if r.path.endswith("/comments")]
    assert [r.query.get("page") for r in lists] == [["1"], ["2"]]
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


# --- whose comment it is, and answers that lag, shift, vanish or make no sense ---------------


PAT_USER = "octocat"


@pytest.fixture
def pat_github() -> Iterator[FakeGitHub]:
    """The API as a personal access token sees it: `GET /user` answers, comments are a User's."""
    with FakeGitHub(token=TOKEN, login=PAT_USER) as fake:
        yield fake


@pytest.fixture
def pat_sticky(pat_github: FakeGitHub, fake_time: FakeTime) -> Iterator[StickyCommentClient]:
    session = _session(pat_github, fake_time)
    yield StickyCommentClient(session, REPOSITORY)
    session.close()


def test_a_personal_token_updates_its_own_comment_instead_of_posting_one_per_run(
    pat_github: FakeGitHub, pat_sticky: StickyCommentClient
) -> None:
    first = pat_sticky.upsert(ISSUE, MARKER, body("run 1"))
    second = pat_sticky.upsert(ISSUE, MARKER, body("run 2"))
    assert first is not None and second is not None
    assert (first.action, second.action) == ("created", "updated")
    (comment,) = ours(pat_github)
    assert comment["body"] == body("run 2") and comment["user"]["login"] == PAT_USER
    assert len(pat_github.requests_for("POST")) == 1


def test_a_personal_token_never_edits_a_marked_comment_another_account_wrote(
    pat_github: FakeGitHub, pat_sticky: StickyCommentClient
) -> None:
    bot_copy = pat_github.add_comment(ISSUE, body("the bot's"), login=BOT, repository=REPOSITORY)
    mine = pat_github.add_comment(ISSUE, body("mine"), login=PAT_USER, repository=REPOSITORY)
    someone = pat_github.add_comment(ISSUE, body("pasted"), login="mallory", repository=REPOSITORY)
    result = pat_sticky.upsert(ISSUE, MARKER, body("new"))
    assert result is not None and (result.id, result.action) == (mine, "updated")
    bodies = {c["id"]: c["body"] for c in pat_github.comments}
    assert bodies == {bot_copy: body("the bot's"), mine: body("new"), someone: body("pasted")}
    assert not pat_github.requests_for("DELETE")


def test_the_app_token_never_edits_a_marked_comment_a_person_wrote(
    github: FakeGitHub, sticky: StickyCommentClient
) -> None:
    person = github.add_comment(ISSUE, body("by hand"), login=PAT_USER, repository=REPOSITORY)
    result = sticky.upsert(ISSUE, MARKER, body("new"))
    assert result is not None and result.action == "created" and result.id != person
    assert {c["id"]: c["body"] for c in github.comments}[person] == body("by hand")
    (user_request,) = [r for r in github.requests_for("GET") if r.path == "/user"]
    assert user_request is not None  # asked once: 403 for an app's token, so any bot is ours


@pytest.mark.parametrize("token", ["app", "personal"])
def test_a_list_that_lags_the_create_is_no_crash_and_no_duplicate(
    token: str,
    github: FakeGitHub,
    sticky: StickyCommentClient,
    pat_github: FakeGitHub,
    pat_sticky: StickyCommentClient,
) -> None:
    fake, client = (github, sticky) if token == "app" else (pat_github, pat_sticky)
    # Both lists answer "none yet": the one before the create, and the one after it.
    fake.add_fault(Fault("GET", "*/comments", status=200, body=[], times=2))
    result = client.upsert(ISSUE, MARKER, body("run 1"))
    assert result is not None and result.action == "created"
    (comment,) = ours(fake)
    assert result.id == comment["id"]
    assert not fake.requests_for("DELETE")
    again = client.upsert(ISSUE, MARKER, body("run 2"))
    assert again is not None and (again.id, again.action) == (result.id, "updated")
    assert len(ours(fake)) == 1


def test_a_list_that_shifts_while_paged_shows_ours_twice_and_it_is_not_deleted(
    github: FakeGitHub, sticky: StickyCommentClient
) -> None:
    others = [github.add_comment(ISSUE, f"c{i}", repository=REPOSITORY) for i in range(100)]
    mine = github.add_comment(ISSUE, body("old"), login=BOT, repository=REPOSITORY)
    listed = {c["id"]: as_listed(c) for c in github.comments}
    # Page 1 as it looked a moment earlier: ours was still on it (a comment above it has been
    # deleted since); page 2, real, shows it again.
    page_one = [listed[i] for i in others[1:]] + [listed[mine]]
    github.add_fault(Fault("GET", "*/comments", status=200, body=page_one))
    result = sticky.upsert(ISSUE, MARKER, body("new"))
    assert result is not None and (result.id, result.removed_duplicates) == (mine, 0)
    assert not github.requests_for("DELETE")
    assert [c["body"] for c in ours(github)] == [body("new")]


def _phantom(comment_id: int, login: str = BOT) -> dict[str, object]:
    """A marked comment as a list showed it, though it has been deleted since."""
    return {"id": comment_id, "body": body("old"), "user": {"login": login, "type": "Bot"}}


@pytest.mark.parametrize("create", [True, False])
def test_a_comment_deleted_between_list_and_update_is_treated_as_absent(
    github: FakeGitHub, sticky: StickyCommentClient, create: bool
) -> None:
    github.add_fault(Fault("GET", "*/comments", status=200, body=[_phantom(99)]))
    result = sticky.upsert(ISSUE, MARKER, body("new"), create=create)
    (patch,) = github.requests_for("PATCH")
    assert patch.path.endswith("/issues/comments/99")  # answered 404: gone
    if create:
        assert result is not None and result.action == "created"
        assert [c["body"] for c in ours(github)] == [body("new")]
    else:
        assert result is None and not github.comments
    github.take_invalid_requests()  # the PATCH of a comment that is gone is a 404, as on GitHub


def test_a_duplicate_already_deleted_by_a_concurrent_run_is_no_error(
    github: FakeGitHub, sticky: StickyCommentClient
) -> None:
    mine = github.add_comment(ISSUE, body("old"), login=BOT, repository=REPOSITORY)
    (listed,) = [as_listed(c) for c in github.comments]
    github.add_fault(Fault("GET", "*/comments", status=200, body=[listed, _phantom(mine + 5)]))
    result = sticky.upsert(ISSUE, MARKER, body("new"))
    assert result is not None and (result.id, result.removed_duplicates) == (mine, 0)
    assert [c["body"] for c in ours(github)] == [body("new")]
    github.take_invalid_requests()


@pytest.mark.slow
@pytest.mark.parametrize(
    "fault",
    [
        Fault("GET", "*/comments", status=200, body={"message": "not a list"}),
        Fault("GET", "*/comments", status=200, body=[{"id": "x", "body": body("?")}]),
        Fault("GET", "*/comments", status=200, body="a string"),
        Fault("POST", "*/comments", status=201, body=["not", "an", "object"]),
        Fault("POST", "*/comments", status=201, body={"body": "no id"}),
        Fault("GET", "/user", status=200, body={"no": "login"}),
        Fault("GET", "*/comments", status=418, body={"message": "I'm a teapot"}),
        Fault.server_error("POST", "*/comments", times=10),
    ],
    ids=lambda fault: f"{fault.method}-{fault.status}-{str(fault.body)[:20]}",
)
def test_any_unexpected_answer_is_one_warning_and_never_a_duplicate(
    github: FakeGitHub, http: GitHubHttp, fault: Fault
) -> None:
    if fault.path == "/user":  # asked only when a marked comment exists
        github.add_comment(ISSUE, body("old"), login=BOT, repository=REPOSITORY)
    github.add_fault(fault)
    notices: list[str] = []
    warnings: list[str] = []
    result = publish_comment(
        CommentMode.ALWAYS,
        _context(http),
        evaluation=Evaluation.build(_summary(False)),
        notice=notices.append,
        warn=warnings.append,
        log=notices.append,
    )
    assert result is None
    assert len(warnings) == 1 and not notices
    assert warnings[0].startswith("the pull-request comment could not be posted")
    assert len(ours(github)) <= 1


# --- the step and the body ----------------------------------------------------------------------


def _run(number: int, ok: bool) -> RunGrade:
    """A graded run: one program verdict, passing or not."""
    verdict = GraderVerdict("check", "program", float(ok), 1.0, ok, "" if ok else "boom", True)
    return RunGrade(number, Status.PASSED if ok else Status.FAILED, (verdict,))


def _summary(*runs: bool) -> GradeSummary:
    graded = tuple(_run(i + 1, ok) for i, ok in enumerate(runs))
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
    logged: list[str] = []

    def run(mode: CommentMode, summary: GradeSummary, event_name: str = "pull_request") -> None:
        publish_comment(
            mode,
            _context(http, event_name),
            evaluation=Evaluation.build(summary),
            notice=notices.append,
            warn=warnings.append,
            log=logged.append,
        )

    run(CommentMode.ON_CHANGE, _summary(True))  # all green, nothing there: nothing posted
    assert not github.comments
    run(CommentMode.ON_CHANGE, _summary(False))
    run(CommentMode.ON_CHANGE, _summary(True))  # existing one brought up to date
    (comment,) = github.comments
    lines = str(comment["body"]).splitlines()
    assert "✅" in lines[1] and lines[3].startswith("**✅ Passed** · 1 task")  # no baseline
    run(CommentMode.ON_CHANGE, _summary(True), event_name="push")  # no PR: the log only
    assert logged == ["no pull-request comment: this is not a pull_request event"]
    assert not notices
    run(CommentMode.ALWAYS, _summary(True), event_name="push")  # asked for: an annotation
    github.add_fault(Fault.integration_refused("GET", "*/comments"))
    run(CommentMode.ALWAYS, _summary(False))
    assert len(notices) == 2 and not warnings
    assert "not a pull_request event" in notices[0]
    assert "pull-requests: write" in notices[1]
    run(CommentMode.OFF, _summary(False))
    assert len(github.comments) == 1 and len(notices) == 2 and len(logged) == 1


@pytest.mark.slow
def test_the_body_has_verdict_table_links_and_fits_the_limit() -> None:
    tasks = tuple(
        TaskGrade(
            f"task-{i:05d}",
            "r.json",
            f"task-{i:05d}",
            "",
            (_run(1, True), _run(2, False)),
        )
        for i in range(3000)
    )
    summary = GradeSummary("e", "e.yaml", ("r.json",), tasks)
    sides = [Side(t.key, t.key, "", PassCount(1, 2), {}) for t in tasks[:2]]
    comparison = compare(sides[:1], [Side("gone", "gone", "", PassCount(1, 1), {}), *sides[1:]])
    text = render_comment(
        MARKER,
        check_name="waza program graders",
        evaluation=Evaluation.build(summary, baseline=BaselineUse(comparison)),
        check_url="https://github.example/o/r/runs/1",
        summary_url="https://github.example/o/r/actions/runs/2",
    )
    assert text.startswith(MARKER + "\n### ")
    assert len(text) <= 65_536
    assert "more row(s) — see the [job summary](https://github.example/o/r/actions/runs/2)" in text
    assert text.rstrip().endswith(
        "[Check run](https://github.example/o/r/runs/1) · "
        "[Job summary](https://github.example/o/r/actions/runs/2)"
    )
    assert "**Regression gate:" in text
    assert "| 〰️ flaky | `task-00000` |" in text


def test_a_server_that_answers_404_for_user_counts_as_an_app_token(
    github: FakeGitHub, sticky: StickyCommentClient
) -> None:
    mine = github.add_comment(ISSUE, body("old"), login=BOT, repository=REPOSITORY)
    github.add_fault(Fault("GET", "/user", status=404, body={"message": "Not Found"}))
    result = sticky.upsert(ISSUE, MARKER, body("new"))
    assert result is not None and (result.id, result.action) == (mine, "updated")
