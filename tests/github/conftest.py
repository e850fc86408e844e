"""Fixtures for the GitHub I/O tests: the loopback fake API, a fake clock, a client on both."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.fake_github import FakeGitHub
from tests.github_description import (
    DescriptionMissing,
    RestDescription,
    in_ci,
    load_description,
)
from waza_ci.github.checks import CheckRunClient

TOKEN = "ghs_TESTtoken0123456789abcdefABCDEF"
REPOSITORY = "octo-org/widgets"


class FakeTime:
    """An injected clock and sleep: sleeping records the wait and moves the clock, instantly."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start
        self.sleeps: list[float] = []
        # Runs inside sleep(): lets a test act "while the client waits" (e.g. another writer).
        self.on_sleep: Callable[[float], None] | None = None

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        if self.on_sleep is not None:
            self.on_sleep(seconds)


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    """The fake API, requiring our token; leaving it fails the test if a request broke GitHub's
    REST description or limits (see tests/fake_github.py)."""
    with FakeGitHub(token=TOKEN) as fake:
        yield fake


@pytest.fixture(scope="session")
def description() -> RestDescription:
    """GitHub's REST description (tests/github_description.py). Not installed: a failure when
    CI is set, else a skip that says how to install it."""
    try:
        return load_description()
    except DescriptionMissing as missing:
        if in_ci():
            pytest.fail(f"{missing} CI is set, so this is a failure, not a skip.")
        pytest.skip(str(missing))


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()


MakeClient = Callable[..., CheckRunClient]


@pytest.fixture
def make_client(github: FakeGitHub, fake_time: FakeTime) -> Iterator[MakeClient]:
    """Build clients on the fake API with the fake clock; options override the defaults."""
    made: list[CheckRunClient] = []

    def make(**options: Any) -> CheckRunClient:
        settings: dict[str, Any] = {
            "sleep": fake_time.sleep,
            "clock": fake_time.clock,
            "monotonic": fake_time.clock,
            "deadline_s": 3600,
            "write_interval_s": 0,
        }
        settings.update(options)
        api_url = settings.pop("api_url", github.url)
        client = CheckRunClient.connect(
            api_url, settings.pop("repository", REPOSITORY), TOKEN, **settings
        )
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


@pytest.fixture
def client(make_client: MakeClient) -> CheckRunClient:
    return make_client()
