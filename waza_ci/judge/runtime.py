"""The GitHub Copilot runtime, driven through its Python SDK (a dependency): one Copilot
CLI process for a whole grading, one ephemeral session per judgement, at most `jobs` of them
talking to the model at once.

The only module that imports the SDK. Each session is locked down as waza's exact mode locks
it: only the tools offered are available (the SDK's allow-list), the permission handler and a
pre-tool hook refuse everything else (each refusal recorded), skills, instructions, file hooks,
git, the session store and telemetry are off (`SESSION_LOCKDOWN`), the CLI runs in an empty
folder with a private home, and the session is deleted afterwards. The credential reaches only
the CLI: a BYOK key through the session's `provider`, a Copilot token through the one variable
the CLI reads."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from waza_ci.judge.options import Credential, JudgeOptions
from waza_ci.judge.providers import Provider
from waza_ci.judge.spend import Usage
from waza_ci.judge.tools import Calls, ToolSpec

SESSIONS_PER_JOB = 2
"""How many sessions may be open per `--judge-jobs` slot. Only the send holds a slot: the
CLI opens the next sessions and deletes finished ones meanwhile, work of the CLI's alone
(about a tenth of a CPU second each) that would otherwise keep a slot idle while the model
could be answering."""

SESSION_LOCKDOWN: dict[str, bool] = {
    "enable_skills": False,
    "skip_custom_instructions": True,
    "enable_config_discovery": False,
    "enable_on_demand_instruction_discovery": False,
    "enable_file_hooks": False,
    "enable_host_git_operations": False,
    "enable_session_store": False,
    "enable_session_telemetry": False,
    "skip_embedding_retrieval": True,
}
"""Every source of instructions, hooks and state the runtime could read besides our message
(a transcript judge's session is rooted in the user's workspace, whose `.github/hooks/` or
instruction files must not reach it), and what it would send or keep beyond the judgement."""

READ_ONLY_TOOLS = ("view", "grep", "glob")
"""The runtime's built-ins a transcript judge may use in the workspace: nothing that writes
or runs."""

_PASSED_TO_CLI = (
    "PATH",
    "LANG",
    "LC_ALL",
    "TZ",
    "HTTPS_PROXY",
    "HTTP_PROXY",
    "NO_PROXY",
    "https_proxy",
    "http_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "NODE_EXTRA_CA_CERTS",
)
"""What the CLI inherits of our environment: no token of any kind unless it is the one the
judge uses."""


_UNKNOWN_MODEL = ("not found", "unknown", "not supported", "not available")
_NETWORK = ("could not connect", "econnrefused", "enotfound", "fetch failed", "network")


class SdkMissing(Exception):
    """The SDK is not installed (a source install without its dependencies)."""


@dataclass(frozen=True)
class Send:
    """One message to one fresh session."""

    message: str
    tools: tuple[ToolSpec, ...]
    model: str
    reasoning_effort: str = ""
    workspace: str | None = None
    """For a transcript judge: read-only built-ins rooted here."""


@dataclass
class Answer:
    calls: Calls = field(default_factory=Calls)
    response: str = ""
    error: str = ""
    """Why the send did not finish (a model error, a timeout): "" when it did."""
    error_kind: str = ""
    """`auth`, `quota`, `model`, `network`, `timeout` or `other`."""
    usage: list[Usage] = field(default_factory=list)


@dataclass(frozen=True)
class RuntimeSetup:
    options: JudgeOptions
    credential: Credential
    cli_path: str
    env: Mapping[str, str]
    """The environment the CLI's own is made from (PATH, proxies, …)."""
    timeout_s: float
    temp_dir: str


def sdk_available() -> bool:
    try:
        import copilot  # noqa: F401, PLC0415 - the optional extra
    except ImportError:
        return False
    return True


def run_sends(setup: RuntimeSetup, sends: Sequence[Send]) -> list[Answer]:
    """Every send, at most `options.jobs` at once, answers in the same order."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_run_all(setup, sends))
    # The caller's own event loop runs on this thread (an async application, a notebook,
    # Playwright's sync API): asyncio.run would refuse, so the judge's loop gets its own thread.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="waza-ci-judge") as pool:
        return pool.submit(asyncio.run, _run_all(setup, sends)).result()


async def _run_all(setup: RuntimeSetup, sends: Sequence[Send]) -> list[Answer]:
    try:
        from copilot import CopilotClient, RuntimeConnection  # noqa: PLC0415 - the extra
    except ImportError as err:
        raise SdkMissing(str(err)) from None
    home = tempfile.mkdtemp(prefix="waza-ci-judge-", dir=setup.temp_dir)
    empty = os.path.join(home, "cwd")
    os.mkdir(empty)
    client = CopilotClient(
        connection=RuntimeConnection.for_stdio(path=setup.cli_path),
        working_directory=empty,
        env=_cli_env(setup, home),
        base_directory=os.path.join(home, "copilot"),
        use_logged_in_user=False,
        log_level="error",
    )
    jobs = max(1, setup.options.jobs)
    talking, open_sessions = asyncio.Semaphore(jobs), asyncio.Semaphore(jobs * SESSIONS_PER_JOB)
    try:
        await client.start()

        async def one(send: Send) -> Answer:
            async with open_sessions:
                return await _judge(client, setup, send, empty, talking)

        return list(await asyncio.gather(*(one(s) for s in sends)))
    finally:
        try:
            await asyncio.wait_for(client.stop(), 20)
        except Exception:
            await client.force_stop()
        shutil.rmtree(home, ignore_errors=True)


def _cli_env(setup: RuntimeSetup, home: str) -> dict[str, str]:
    env = {k: v for k, v in setup.env.items() if k in _PASSED_TO_CLI}
    env.update(HOME=home, TMPDIR=home, COPILOT_HOME=os.path.join(home, "copilot"))
    env["COPILOT_SKIP_CLI_DOWNLOAD"] = "1"
    if setup.options.provider is Provider.COPILOT:
        env["COPILOT_GITHUB_TOKEN"] = setup.credential.secret
    return env


class _Guard:
    """One session's callbacks: its grade tools record calls, everything else is refused (and
    the refusal recorded), and what the runtime reports is collected."""

    def __init__(self, send: Send) -> None:
        self.answer = Answer()
        self.model = send.model
        self.offered = {t.name for t in send.tools}
        self.read_only = set(READ_ONLY_TOOLS) if send.workspace else set()

    def handler_for(self, name: str) -> Any:
        from copilot.tools import ToolInvocation, ToolResult  # noqa: PLC0415 - the extra

        def handle(invocation: ToolInvocation) -> ToolResult:
            self.answer.calls.record(name, invocation.arguments)
            return ToolResult()

        return handle

    def on_permission(self, request: Any, _invocation: Any) -> Any:
        from copilot.generated.rpc import (  # noqa: PLC0415 - the extra
            PermissionDecisionApproveOnce,
            PermissionDecisionReject,
        )

        raw_kind = getattr(request, "kind", "")
        kind = str(getattr(raw_kind, "value", raw_kind))
        tool = str(getattr(request, "tool_name", "") or "")
        if (kind == "custom-tool" and tool in self.offered) or (kind == "read" and self.read_only):
            return PermissionDecisionApproveOnce()
        self.answer.calls.denied.append(f"{kind}:{tool}" if tool else kind or "unknown")
        return PermissionDecisionReject(feedback="waza-ci's judge may only grade")

    def pre_tool(self, data: Any, _invocation: Any) -> Any:
        name = str(data.get("toolName", ""))
        if name in self.offered or name in self.read_only:
            return None
        self.answer.calls.denied.append(name or "unknown")
        return {"permissionDecision": "deny", "permissionDecisionReason": "not a grade tool"}

    def on_event(self, event: Any) -> None:
        from copilot.session_events import (  # noqa: PLC0415 - the extra
            AssistantMessageData,
            AssistantUsageData,
            SessionErrorData,
        )

        data, answer = event.data, self.answer
        if isinstance(data, AssistantMessageData) and data.content:
            answer.response = data.content
        elif isinstance(data, AssistantUsageData):
            answer.usage.append(
                Usage(data.model or self.model, data.input_tokens, data.output_tokens, data.cost)
            )
        elif isinstance(data, SessionErrorData) and not answer.error:
            answer.error, answer.error_kind = data.message, _error_kind(data)


async def _judge(
    client: Any, setup: RuntimeSetup, send: Send, empty: str, talking: asyncio.Semaphore
) -> Answer:
    from copilot.tools import Tool  # noqa: PLC0415 - the extra

    guard = _Guard(send)
    available = [f"custom:{t.name}" for t in send.tools]
    available += [f"builtin:{t}" for t in sorted(guard.read_only)]
    tools = [
        Tool(t.name, t.description, handler=guard.handler_for(t.name), parameters=t.parameters)
        for t in send.tools
    ]
    kwargs: dict[str, Any] = {}
    if setup.options.provider.byok:
        kwargs["provider"] = _provider(setup)
    if send.model:
        kwargs["model"] = send.model
    if send.reasoning_effort:
        kwargs["reasoning_effort"] = send.reasoning_effort
    session = await client.create_session(
        on_permission_request=guard.on_permission,
        tools=tools,
        available_tools=available,
        hooks={"on_pre_tool_use": guard.pre_tool},
        working_directory=send.workspace or empty,
        streaming=True,
        on_event=guard.on_event,
        **SESSION_LOCKDOWN,
        **kwargs,
    )
    answer = guard.answer
    try:
        async with talking:
            await session.send_and_wait(send.message, mode="enqueue", timeout=setup.timeout_s)
    except TimeoutError:
        answer.error = f"the judge did not answer within {setup.timeout_s:g} s"
        answer.error_kind = "timeout"
        with contextlib.suppress(Exception):  # the session is deleted next either way
            await asyncio.wait_for(session.abort(), 5)
    except Exception as err:  # the runtime's words, classified below
        if not answer.error:
            answer.error, answer.error_kind = str(err) or type(err).__name__, "other"
    finally:
        with contextlib.suppress(Exception):  # ephemeral: the private home is removed anyway
            await asyncio.wait_for(session.disconnect(), 10)
            await asyncio.wait_for(client.delete_session(session.session_id), 10)
    return answer


def _provider(setup: RuntimeSetup) -> dict[str, Any]:
    provider: dict[str, Any] = {
        "type": str(setup.options.provider),
        "base_url": setup.options.url,
        "api_key": setup.credential.secret,
    }
    return provider


def _error_kind(data: Any) -> str:
    status = data.status_code
    text = f"{data.error_type} {data.error_code or ''} {data.message}".lower()
    if status in (401, 403) or "auth" in text or "unauthorized" in text:
        return "auth"
    if status == 429 or "quota" in text or "rate limit" in text:
        return "quota"
    if status == 404 or ("model" in text and any(w in text for w in _UNKNOWN_MODEL)):
        return "model"
    if any(w in text for w in _NETWORK):
        return "network"
    return "other"
