"""The runner's environment, workflow commands and env files, byte for byte."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.runner_files import parse_github_output as parse_output_file
from waza_ci.errors import InputError
from waza_ci.github import env_files
from waza_ci.github.commands import WorkflowCommands
from waza_ci.github.env_files import append_summary, write_outputs
from waza_ci.github.environment import RunnerEnv, input_value, resolve_head_sha

HEAD = "1111111111111111111111111111111111111111"
MERGE = "2222222222222222222222222222222222222222"
RUN_HEAD = "3333333333333333333333333333333333333333"


def env_with_event(tmp_path: Path, event_name: str, event: Any, **overrides: str) -> RunnerEnv:
    event_path = tmp_path / "event.json"
    event_path.write_text(json.dumps(event), encoding="utf-8")
    mapping = {
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_SHA": MERGE,
        "GITHUB_REPOSITORY": "octo/widgets",
        **overrides,
    }
    return RunnerEnv.from_mapping(mapping)


def pr_event(head_repo: str | None = "octo/widgets") -> dict[str, Any]:
    head: dict[str, Any] = {"sha": HEAD, "ref": "feature"}
    head["repo"] = None if head_repo is None else {"full_name": head_repo}
    return {"pull_request": {"number": 7, "head": head, "base": {"sha": MERGE}}}


def test_the_default_branch_comes_from_the_event(tmp_path: Path) -> None:
    event_path = tmp_path / "event.json"
    event_path.write_text(json.dumps({"repository": {"default_branch": "trunk"}}))
    env = RunnerEnv.from_mapping({"GITHUB_EVENT_PATH": str(event_path), "GITHUB_REF": "refs/x"})
    assert (env.default_branch, env.ref) == ("trunk", "refs/x")


# --- inputs ------------------------------------------------------------------------------------


def test_input_keeps_hyphens_like_the_runner() -> None:
    env = {"INPUT_GITHUB-TOKEN": "hyphen", "INPUT_GITHUB_TOKEN": "underscore"}
    assert input_value(env, "github-token") == "hyphen"


def test_input_falls_back_to_the_underscore_spelling() -> None:
    assert input_value({"INPUT_GITHUB_TOKEN": "underscore"}, "github-token") == "underscore"
    assert input_value({"INPUT_GITHUB-TOKEN": "", "INPUT_GITHUB_TOKEN": "u"}, "github-token") == "u"


@pytest.mark.parametrize(
    ("env", "name", "expected"),
    [
        ({"INPUT_CHECK-NAME": "waza"}, "check-name", "waza"),
        ({"INPUT_CHECK-NAME": "waza"}, "Check-Name", "waza"),  # upper-cased
        ({"INPUT_MY_INPUT": "spaced"}, "my input", "spaced"),  # spaces become "_"
        ({"INPUT_COMMIT": "  abc \n"}, "commit", "abc"),  # trimmed like getInput
        ({"INPUT_COMMIT": ""}, "commit", None),
        ({"INPUT_COMMIT": "   "}, "commit", None),
        ({}, "commit", None),
        ({"COMMIT": "bare"}, "commit", None),  # only INPUT_* is an input
    ],
)
def test_input_value(env: dict[str, str], name: str, expected: str | None) -> None:
    assert input_value(env, name) == expected


# --- RunnerEnv ---------------------------------------------------------------------------------


def test_runner_env_from_a_full_mapping(tmp_path: Path) -> None:
    event_path = tmp_path / "event.json"
    event_path.write_text(json.dumps(pr_event()), encoding="utf-8")
    env = RunnerEnv.from_mapping(
        {
            "GITHUB_ACTIONS": "true",
            "GITHUB_API_URL": "https://ghe.example/api/v3/",
            "GITHUB_SERVER_URL": "https://ghe.example/",
            "GITHUB_REPOSITORY": "octo/widgets",
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_SHA": MERGE,
            "GITHUB_WORKSPACE": "/github/workspace",
            "GITHUB_OUTPUT": "/github/file_commands/set_output_1",
            "GITHUB_STEP_SUMMARY": "/github/file_commands/step_summary_1",
            "GITHUB_RUN_ID": "987",
            "GITHUB_RUN_ATTEMPT": "2",
            "GITHUB_JOB": "grade",
            "GITHUB_ACTOR": "octocat",
            "GITHUB_REF": "refs/pull/7/merge",
        }
    )
    assert env == RunnerEnv(
        in_actions=True,
        api_url="https://ghe.example/api/v3",
        server_url="https://ghe.example",
        repository="octo/widgets",
        event_name="pull_request",
        event=pr_event(),
        event_path=str(event_path),
        sha=MERGE,
        workspace="/github/workspace",
        output_path="/github/file_commands/set_output_1",
        summary_path="/github/file_commands/step_summary_1",
        run_id="987",
        run_attempt="2",
        job="grade",
        actor="octocat",
        ref="refs/pull/7/merge",
    )
    assert env.default_branch == ""  # the event names none
    assert env.event == pr_event()  # `event` is left out of ==, so check it on its own
    assert HEAD not in repr(env)  # the (large, user-controlled) payload stays out of repr


def test_runner_env_defaults_outside_actions() -> None:
    env = RunnerEnv.from_mapping({})
    assert env.in_actions is False
    assert env.api_url == "https://api.github.com"
    assert env.server_url == "https://github.com"
    assert env.event == {} and env.event_path is None
    assert env.output_path is None and env.summary_path is None
    assert (env.repository, env.sha, env.event_name) == ("", "", "")


def test_runner_env_only_believes_an_exact_true() -> None:
    assert RunnerEnv.from_mapping({"GITHUB_ACTIONS": "True"}).in_actions is False


def test_a_missing_event_file_reads_as_no_event(tmp_path: Path) -> None:
    env = RunnerEnv.from_mapping({"GITHUB_EVENT_PATH": str(tmp_path / "absent.json")})
    assert env.event == {}


@pytest.mark.parametrize(
    ("content", "expected"),
    [("{not json", "not valid JSON"), ("[1, 2]", "not hold a JSON object")],
)
def test_a_bad_event_file_is_an_error_naming_it(
    tmp_path: Path, content: str, expected: str
) -> None:
    event_path = tmp_path / "event.json"
    event_path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=expected) as caught:
        RunnerEnv.from_mapping({"GITHUB_EVENT_PATH": str(event_path)})
    assert str(event_path) in str(caught.value)


def test_an_unreadable_event_file_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="must be a regular file, but this is a folder") as caught:
        RunnerEnv.from_mapping({"GITHUB_EVENT_PATH": str(tmp_path)})  # a directory
    assert str(tmp_path) in str(caught.value)


# --- head SHA ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "event_name", ["pull_request", "pull_request_target", "pull_request_review"]
)
def test_pull_requests_report_on_the_head_not_the_merge_commit(
    tmp_path: Path, event_name: str
) -> None:
    assert resolve_head_sha(env_with_event(tmp_path, event_name, pr_event()), None) == HEAD


def test_workflow_run_reports_on_the_triggering_runs_head(tmp_path: Path) -> None:
    event = {"workflow_run": {"head_sha": RUN_HEAD, "pull_requests": []}}
    assert resolve_head_sha(env_with_event(tmp_path, "workflow_run", event), None) == RUN_HEAD


def test_push_reports_on_github_sha(tmp_path: Path) -> None:
    assert resolve_head_sha(env_with_event(tmp_path, "push", {"after": HEAD}), None) == MERGE


@pytest.mark.parametrize("event_name", ["pull_request", "workflow_run", "push"])
def test_an_explicit_commit_wins(tmp_path: Path, event_name: str) -> None:
    env = env_with_event(tmp_path, event_name, pr_event())
    assert resolve_head_sha(env, " cafe0123 ") == "cafe0123"


def test_a_blank_commit_input_is_no_input(tmp_path: Path) -> None:
    env = env_with_event(tmp_path, "pull_request", pr_event())
    assert resolve_head_sha(env, "  ") == HEAD


@pytest.mark.parametrize(
    ("event_name", "event", "overrides"),
    [
        ("pull_request", {"pull_request": {"head": {}}}, {}),
        ("pull_request", {}, {}),
        ("workflow_run", {"workflow_run": {"head_sha": ""}}, {}),
        ("push", {}, {"GITHUB_SHA": ""}),
    ],
)
def test_missing_pieces_are_a_clear_error(
    tmp_path: Path, event_name: str, event: dict[str, Any], overrides: dict[str, str]
) -> None:
    env = env_with_event(tmp_path, event_name, event, **overrides)
    with pytest.raises(InputError, match="commit"):
        resolve_head_sha(env, None)


def test_a_missing_pr_head_names_the_event_file(tmp_path: Path) -> None:
    env = env_with_event(tmp_path, "pull_request", {})
    with pytest.raises(InputError) as caught:
        resolve_head_sha(env, None)
    assert "pull_request.head.sha" in str(caught.value)
    assert str(tmp_path / "event.json") in str(caught.value)


# --- workflow commands -------------------------------------------------------------------------


def commands() -> tuple[WorkflowCommands, io.StringIO]:
    stream = io.StringIO()
    return WorkflowCommands(stream), stream


def test_annotation_commands_exact_bytes() -> None:
    gha, out = commands()
    gha.error("boom", file="evals/task.yaml", line=12, title="grader failed")
    gha.warning("careful")
    gha.notice("fyi", file="a.yaml")
    assert out.getvalue() == (
        "::error title=grader failed,file=evals/task.yaml,line=12::boom\n"
        "::warning::careful\n"
        "::notice file=a.yaml::fyi\n"
    )


def test_message_data_is_escaped() -> None:
    gha, out = commands()
    gha.error("100% sure\r\nsecond line: a, b")
    # Data escapes %, CR and LF only; ":" and "," stay as they are in the message.
    assert out.getvalue() == "::error::100%25 sure%0D%0Asecond line: a, b\n"


def test_property_values_are_escaped() -> None:
    gha, out = commands()
    gha.warning("m", file="C:/x,y%z.yaml", title="a: b, c\nd\re")
    assert out.getvalue() == ("::warning title=a%3A b%2C c%0Ad%0De,file=C%3A/x%2Cy%25z.yaml::m\n")


def test_injected_commands_in_a_message_stay_inert() -> None:
    gha, out = commands()
    gha.error("bad\n::add-mask::x\n::error::forged")
    assert out.getvalue().count("\n") == 1  # one command line, nothing smuggled onto a new one


def test_debug_and_group() -> None:
    gha, out = commands()
    with gha.group("Grading 3 tasks"):
        gha.issue("debug", "task a: 2 graders")
    assert out.getvalue() == "::group::Grading 3 tasks\n::debug::task a: 2 graders\n::endgroup::\n"


def test_a_group_is_closed_when_its_block_raises() -> None:
    gha, out = commands()
    with pytest.raises(RuntimeError), gha.group("g"):
        raise RuntimeError("inside")
    assert out.getvalue().endswith("::endgroup::\n")


def test_add_mask_masks_every_line_of_a_multiline_value() -> None:
    gha, out = commands()
    gha.add_mask("single")
    gha.add_mask("line one\n\nline%two\r\n   \nlast")
    gha.add_mask("")
    assert out.getvalue() == (
        "::add-mask::single\n::add-mask::line one\n::add-mask::line%25two\n::add-mask::last\n"
    )


def test_stop_commands_fences_with_a_fresh_random_token() -> None:
    gha, out = commands()
    with gha.stop_commands() as first:
        out.write("::error::from the grader\n")
    with gha.stop_commands() as second:
        pass
    assert re.fullmatch(r"[0-9a-f]{32}", first) and re.fullmatch(r"[0-9a-f]{32}", second)
    assert first != second
    assert out.getvalue() == (
        f"::stop-commands::{first}\n::error::from the grader\n::{first}::\n"
        f"::stop-commands::{second}\n::{second}::\n"
    )


def test_the_fence_is_closed_when_its_block_raises() -> None:
    gha, out = commands()
    with pytest.raises(ValueError), gha.stop_commands() as token:
        raise ValueError("x")
    assert out.getvalue().endswith(f"::{token}::\n")


def test_echo_untrusted_fences_the_text() -> None:
    gha, out = commands()
    gha.echo_untrusted("::add-mask::nope\n::error::forged")
    lines = out.getvalue().splitlines()
    token = lines[0].removeprefix("::stop-commands::")
    assert lines == [
        f"::stop-commands::{token}",
        "::add-mask::nope",
        "::error::forged",
        f"::{token}::",
    ]


# --- GITHUB_OUTPUT -----------------------------------------------------------------------------


def test_outputs_single_and_multi_line_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "output"
    path.write_text("earlier=kept\n", encoding="utf-8")
    values = {
        "passed": "false",
        "score": "0.75",
        "equation": "a=b<<c",
        "empty": "",
        "report": "# Results\n\nline=two\nEOF\n  ünïcödé ✓",
    }
    write_outputs(str(path), values)

    text = path.read_text(encoding="utf-8")
    assert text.startswith("earlier=kept\npassed=false\nscore=0.75\nequation=a=b<<c\nempty=\n")
    assert re.search(r"^report<<ghadelimiter_[0-9a-f-]{36}$", text, re.MULTILINE)
    assert parse_output_file(text) == {"earlier": "kept", **values}
    assert "ünïcödé ✓".encode() in path.read_bytes()


def test_each_multiline_output_gets_its_own_delimiter(tmp_path: Path) -> None:
    path = tmp_path / "output"
    write_outputs(str(path), {"a": "1\n2", "b": "3\n4"})
    delimiters = re.findall(r"<<(ghadelimiter_\S+)", path.read_text(encoding="utf-8"))
    assert len(set(delimiters)) == 2


def test_a_value_holding_the_delimiter_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(env_files, "_new_delimiter", lambda: "ghadelimiter_fixed")
    path = tmp_path / "output"
    path.write_text("before=1\n", encoding="utf-8")
    with pytest.raises(ValueError, match="delimiter"):
        write_outputs(str(path), {"ok": "fine", "evil": "x\nghadelimiter_fixed\ninjected=1"})
    assert path.read_text(encoding="utf-8") == "before=1\n"  # nothing half-written


@pytest.mark.parametrize("name", ["", "a=b", "a<<b", "two\nlines", "9lives"])
def test_an_unparseable_output_name_is_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(ValueError, match="output name"):
        write_outputs(str(tmp_path / "output"), {name: "v"})


def test_a_carriage_return_forces_the_heredoc_form(tmp_path: Path) -> None:
    path = tmp_path / "output"
    write_outputs(str(path), {"v": "a\rb"})
    assert path.read_bytes().startswith(b"v<<ghadelimiter_")


# --- GITHUB_STEP_SUMMARY -----------------------------------------------------------------------


def test_summary_is_appended_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "summary.md"
    path.write_text("## From an earlier action\n", encoding="utf-8")
    append_summary(str(path), "## waza-ci\n\n✅ 3 passed")
    append_summary(str(path), "more\n")
    assert path.read_text(encoding="utf-8") == (
        "## From an earlier action\n## waza-ci\n\n✅ 3 passed\nmore\n"
    )


def test_summary_creates_the_file_when_missing(tmp_path: Path) -> None:
    path = tmp_path / "summary.md"
    append_summary(str(path), "hello")
    assert path.read_bytes() == b"hello\n"
