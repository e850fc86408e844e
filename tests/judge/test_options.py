"""What the user asks of the judge, and where its credential goes (and never goes)."""

from __future__ import annotations

import pytest

from waza_ci.errors import InputError
from waza_ci.judge.options import (
    JudgeOptions,
    credential,
    credential_variables,
    judge_setup,
    send_timeout,
)
from waza_ci.judge.providers import Provider
from waza_ci.sandbox.isolation import grader_environment


def test_byok_needs_an_endpoint_and_a_variable_name() -> None:
    with pytest.raises(InputError, match="--judge-url"):
        JudgeOptions(Provider.OPENAI, key_env="K").check()
    with pytest.raises(InputError, match="--judge-key-env"):
        JudgeOptions(Provider.OPENAI, url="https://x/v1").check()
    with pytest.raises(InputError, match="not the key itself"):
        JudgeOptions(Provider.OPENAI, url="https://x/v1", key_env="sk-abc.def").check()
    with pytest.raises(InputError, match="without --judge"):
        JudgeOptions(url="https://x/v1").check()
    JudgeOptions(Provider.OPENAI, url="https://x/v1", key_env="K").check()


def test_the_copilot_token_is_read_in_the_runtimes_order() -> None:
    options = JudgeOptions(Provider.COPILOT)
    env = {"GITHUB_TOKEN": "g", "GH_TOKEN": "h", "COPILOT_GITHUB_TOKEN": "c"}
    found = credential(options, env)
    assert found is not None and (found.secret, found.variable) == ("c", "COPILOT_GITHUB_TOKEN")
    found = credential(options, {"GITHUB_TOKEN": "g"})
    assert found is not None and found.variable == "GITHUB_TOKEN"
    assert "g" not in repr(found)
    assert credential(options, {"GITHUB_TOKEN": " "}) is None


def test_no_grader_sees_the_judges_credential() -> None:
    byok = JudgeOptions(Provider.OPENAI, url="https://x/v1", key_env="MY_KEY")
    env = {"MY_KEY": "sk-1", "PATH": "/bin", "COPILOT_GITHUB_TOKEN": "c", "GH_TOKEN": "h"}
    # GitHub's tokens are kept from graders whatever the judge; a BYOK key by its name.
    assert grader_environment(env, also=credential_variables(byok)) == {"PATH": "/bin"}
    copilot = credential_variables(JudgeOptions(Provider.COPILOT))
    assert grader_environment(env, also=copilot) == {"MY_KEY": "sk-1", "PATH": "/bin"}
    setup = judge_setup(byok, env)
    assert "MY_KEY" not in setup.cli_env and setup.credential is not None


@pytest.mark.parametrize(
    ("raw", "seconds", "warned"),
    [
        ("", 120, False),
        ("5m", 300, False),
        ("300", 300, False),
        ("1m30s", 90, False),
        ("0", 120, True),
        ("-5s", 120, True),
        ("sk-secret", 120, True),
        ("99999999999999", 120, True),
    ],
)
def test_the_send_timeout_is_read_as_waza_reads_it(raw: str, seconds: float, warned: bool) -> None:
    value, warning = send_timeout(raw)
    assert value == seconds
    assert bool(warning) is warned
    assert raw not in warning or len(raw) < 3
