"""What the user asked of the judge (`--judge`, `--judge-model`, …), checked once, and the
credential it needs: read from the one variable the user named (or, for Copilot, the runtime's
own variables), held apart from everything that is printed or passed to graders."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from waza_ci.errors import InputError
from waza_ci.judge.providers import DEFAULT_JOBS, Provider

COPILOT_TOKEN_VARIABLES = ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN")
"""Where the Copilot runtime looks for its token, in its order (a GitHub App's token must be in
the first: the runtime takes a `ghs_` token only there)."""

COPILOT_PERMISSION_FIX = (
    "give the job `permissions: copilot-requests: write` and `GITHUB_TOKEN` (a GitHub App's "
    "token in `COPILOT_GITHUB_TOKEN`); fork pull requests get no such token"
)


@dataclass(frozen=True)
class JudgeOptions:
    provider: Provider = Provider.KEEP
    url: str = ""
    """The BYOK endpoint (`--judge-url`)."""
    model: str = ""
    """The last fallback of a grader's model (`--judge-model`)."""
    key_env: str = ""
    """The name of the variable that holds the BYOK key (`--judge-key-env`), never the key."""
    jobs: int = DEFAULT_JOBS
    cache: Path | None = None
    max_calls: int | None = None
    """At most this many judge sessions (cache hits are free); more is a setup error."""
    required: bool = False
    """Fail (exit 3) when the judge cannot run, instead of keeping the saved verdicts."""

    @property
    def active(self) -> bool:
        return self.provider is not Provider.KEEP

    def check(self) -> None:
        """Usage errors, before anything is loaded; raises InputError."""
        if not self.active:
            used = [
                flag
                for flag, value in (
                    ("--judge-url", self.url),
                    ("--judge-key-env", self.key_env),
                    ("--judge-cache", self.cache),
                    ("--judge-max-calls", self.max_calls),
                    ("--judge-required", self.required),
                )
                if value
            ]
            if used:
                raise InputError(
                    f"{', '.join(used)} given without --judge: name the judge's runtime "
                    "(--judge copilot|openai|azure|anthropic), or leave them out to keep the "
                    "saved verdicts"
                )
            return
        if self.jobs < 1:
            raise InputError(f"--judge-jobs must be 1 or more, got {self.jobs}")
        if self.max_calls is not None and self.max_calls < 0:
            raise InputError(f"--judge-max-calls must be 0 or more, got {self.max_calls}")
        if self.provider.byok:
            if not self.url:
                raise InputError(
                    f"--judge {self.provider} needs --judge-url: the endpoint of your own "
                    "model (e.g. https://api.openai.com/v1)"
                )
            if not self.url.startswith(("https://", "http://")):
                raise InputError(f"--judge-url must be an http(s) URL, got {self.url!r}")
            if not self.key_env:
                raise InputError(
                    f"--judge {self.provider} needs --judge-key-env: the NAME of the "
                    "environment variable that holds the key (the key itself is never an "
                    "argument)"
                )
            if not _is_variable_name(self.key_env):
                raise InputError(
                    "--judge-key-env takes the name of an environment variable (letters, "
                    "digits and _), not the key itself"
                )
        elif self.url or self.key_env:
            raise InputError(
                "--judge copilot authenticates with the job's token (COPILOT_GITHUB_TOKEN, "
                "GH_TOKEN or GITHUB_TOKEN): --judge-url and --judge-key-env are for "
                "--judge openai|azure|anthropic"
            )


def _is_variable_name(name: str) -> bool:
    return name.replace("_", "a").isalnum() and name.isascii() and not name[0].isdigit()


@dataclass(frozen=True)
class Credential:
    """The judge's secret and where it goes; its repr never shows it."""

    secret: str = field(repr=False)
    variable: str
    """Where it was read from (shown in messages: the name, never the value)."""


def credential(options: JudgeOptions, env: Mapping[str, str]) -> Credential | None:
    """The credential the judge needs from the environment, or None when it is not there."""
    names = (options.key_env,) if options.provider.byok else COPILOT_TOKEN_VARIABLES
    for name in names:
        value = env.get(name, "")
        if value.strip():
            return Credential(value.strip(), name)
    return None


def credential_variables(options: JudgeOptions) -> frozenset[str]:
    """The variables that may hold the judge's credential: kept from graders."""
    if not options.active:
        return frozenset()
    return frozenset(
        (options.key_env,) if options.provider.byok and options.key_env else COPILOT_TOKEN_VARIABLES
    )


DEFAULT_TIMEOUT_S = 120.0
"""waza's bound on one send (`defaultPromptGraderTimeout`)."""
TIMEOUT_VARIABLE = "WAZA_PROMPT_GRADER_TIMEOUT"

_GO_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def send_timeout(raw: str | None) -> tuple[float, str]:
    """`WAZA_PROMPT_GRADER_TIMEOUT` as waza reads it: a Go duration (`5m`, `300s`) or whole
    seconds; anything else (zero, negative, unreadable) is 120 s with a warning that does not
    repeat the value (it may be a secret put in the wrong place, as waza's exact mode redacts)."""
    text = (raw or "").strip()
    if not text:
        return DEFAULT_TIMEOUT_S, ""
    seconds = _go_duration(text)
    if seconds is None and text.isdigit():
        seconds = float(int(text))
    if seconds is not None and 0 < seconds < 1e9:
        return seconds, ""
    return DEFAULT_TIMEOUT_S, (
        f"ignoring invalid {TIMEOUT_VARIABLE}, using the default of 120 s (a Go duration "
        "such as 5m, or whole seconds)"
    )


def _go_duration(text: str) -> float | None:
    import re  # noqa: PLC0415 - only when the variable is set

    sign = -1.0 if text.startswith("-") else 1.0
    body = text.lstrip("+-")
    parts = re.findall(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)", body)
    if not parts or "".join(n + u for n, u in parts) != body:
        return None
    return sign * sum(float(n) * _GO_UNITS[u] for n, u in parts)


@dataclass(frozen=True)
class JudgeSetup:
    """What the shell found for the judge: the options, the credential (None when absent),
    the CLI binary ("" when none), the CLI's base environment and the send timeout."""

    options: JudgeOptions
    credential: Credential | None = None
    cli_path: str = ""
    cli_env: Mapping[str, str] = field(default_factory=dict)
    timeout_s: float = DEFAULT_TIMEOUT_S
    no_credential: str = ""
    """Why the credential is missing, in the shell's words (a fork, no permission)."""
    timeout_warning: str = ""
    """Set when WAZA_PROMPT_GRADER_TIMEOUT was unreadable (120 s is used)."""


def judge_setup(
    options: JudgeOptions, env: Mapping[str, str], no_credential: str = ""
) -> JudgeSetup:
    """The judge's setup from the process environment the shell hands over: the credential,
    the CLI binary (`COPILOT_CLI_PATH`, else `copilot` on PATH), the send timeout."""
    import shutil  # noqa: PLC0415 - only with --judge

    timeout, warning = send_timeout(env.get(TIMEOUT_VARIABLE))
    cli = env.get("COPILOT_CLI_PATH", "") or shutil.which("copilot", path=env.get("PATH")) or ""
    return JudgeSetup(
        options=options,
        credential=credential(options, env),
        cli_path=cli,
        cli_env={k: v for k, v in env.items() if k not in credential_variables(options)},
        timeout_s=timeout,
        no_credential=no_credential,
        timeout_warning=warning,
    )
