"""The action's image re-judges `prompt` graders with what it carries: the Copilot SDK (a
runtime dependency, from the lock) and the Copilot CLI (the pinned npm package, unpacked into
/usr/local/bin by the image's build stage). The container is started as the runner starts it
(tests/action/test_container.py), on the host network, against the fake model on loopback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.action.test_container import (
    DEMO_DIR,
    DEMO_EXIT,
    DEMO_INPUTS,
    Runner,
    _docker,
    ensure_image,
)
from tests.fake_github import FakeGitHub
from tests.judge.fake_model import FakeModel
from tests.judge.test_grade_judge import demo
from waza_ci.judge.cli_pin import parse_pin

pytestmark = [pytest.mark.docker, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-container-judge-0123456789abcdef"


@pytest.fixture(scope="module")
def image() -> str:
    return ensure_image()


@pytest.fixture
def model() -> Iterator[FakeModel]:
    fake = FakeModel()
    yield fake
    fake.close()


def test_the_image_carries_the_pinned_cli_on_path_and_the_sdk(image: str) -> None:
    arch = _docker("run", "--rm", "--entrypoint", "uname", image, "-m")
    assert arch.returncode == 0, arch.stderr
    pin = parse_pin((ROOT / "waza_ci/judge/copilot-cli.env").read_text(), arch.stdout.strip())
    assert pin is not None
    version = _docker(
        "run", "--rm", "--network", "none", "--entrypoint", "copilot", image, "--version"
    )
    assert version.returncode == 0, version.stderr
    assert f"GitHub Copilot CLI {pin.version}." in version.stdout
    script = (
        "import shutil, copilot, importlib.metadata as m;"
        "print(shutil.which('copilot'), m.version('github-copilot-sdk'))"
    )
    found = _docker(
        "run", "--rm", "--network", "none", "--entrypoint", "python", image, "-c", script
    )
    assert found.returncode == 0, found.stderr
    assert found.stdout.split() == ["/usr/local/bin/copilot", "1.0.27"]


def test_the_action_rejudges_the_demos_tone_grader_through_the_cli_in_the_image(
    tmp_path: Path, image: str, model: FakeModel
) -> None:
    with FakeGitHub() as fake:
        runner = Runner(tmp_path, image, fake)
        demo(runner.workspace)  # the `tone` judge, as runner.workspace/demo
        inputs = dict(
            DEMO_INPUTS,
            judge="openai",
            **{
                "judge-url": model.url,
                "judge-model": "judge-model",
                "judge-key-env": "JUDGE_TEST_KEY",
                "judge-required": "true",
                "output": f"{DEMO_DIR}/regraded.json",
            },
        )
        result = runner.run(inputs, env={"JUDGE_TEST_KEY": KEY})
    assert result.exit_code == DEMO_EXIT, result.log
    openings = model.openings()
    assert len(openings) == 2
    assert all(
        FakeModel.tool_names(r) == ["set_waza_grade_fail", "set_waza_grade_pass"] for r in openings
    )
    assert all(r["auth"] == f"Bearer {KEY}" for r in model.requests)
    spend = json.loads(result.outputs["judge-spend"])
    assert (spend["sessions"], spend["rejudged"]) == (2, 2)
    regraded = json.loads((runner.workspace / DEMO_DIR / "regraded.json").read_text())
    task = next(t for t in regraded["tasks"] if t["test_id"] == "write-changelog")
    verdicts = [run["validations"]["tone"] for run in task["runs"]]
    assert [v["details"]["passes"] for v in verdicts] == ["pass: fake-judge: fine"] * 2
    assert KEY not in result.log and KEY not in result.summary
    assert KEY not in json.dumps(result.outputs)
