"""The web front end against the whole platform as processes (as `make run` starts it), and a real browser.

The browser is Debian's `chromium`, driven by Playwright for Python; no browser is ever downloaded. Missing,
the browser tests fail with the command that installs it (CI installs it in `.ci/run`), never skip.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from libs.devservers.processes import SERVICES, ServiceProcess, web_process
from tests.conftest import Infrastructure, Platform, running_platform

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
INSTALL_HINT = "apt-get install -y chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TINY_GAME = "tests.rules.tinygame"
REPO = Path(__file__).resolve().parents[2]
SCREENS = Path(os.environ.get("SPEED_SCREENS") or REPO / ".screens")
"""Where the browser tests save their screenshots: `.screens/` (not tracked), so `make test` leaves the tree
clean; `make screens` runs them with SPEED_SCREENS=docs/screens to renew the set the README shows."""
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 360, "height": 740}


@dataclass
class WebPlatform:
    platform: Platform
    web: ServiceProcess

    @property
    def url(self) -> str:
        return self.web.url

    def service(self, name: str) -> str:
        return self.platform.url(name)


@pytest.fixture(scope="module")
def web_platform(infra: Infrastructure, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebPlatform]:
    """The five services (with the tiny test game loaded: a game without a board of its own, playable through
    the generic renderer) and the web front end as processes; stopped after the module."""
    logs = tmp_path_factory.mktemp("web-logs")
    with running_platform(infra, logs, {name: {"RULE_PLUGINS": TINY_GAME} for name in SERVICES}) as platform:
        urls = {name: platform.url(name) for name in ("lobby", "table", "leaderboard", "bot")}
        # The browser tests play the tiny test game: the web offers it only with its development setting.
        web = web_process({**infra.env(), "WEB_SHOW_TEST_GAMES": "true"}, urls, logs=logs).start()
        try:
            web.wait_ready(timeout=60)
            yield WebPlatform(platform, web)
        finally:
            web.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's chromium through Playwright, headless, with a fresh profile."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"The browser tests need Debian's chromium at {CHROMIUM}; install it with: {INSTALL_HINT}",
                    pytrace=False)
    from playwright.sync_api import sync_playwright

    # `launch` starts chromium with a fresh, throwaway user-data dir of Playwright's own (it refuses one given
    # in the arguments); each test then opens its own context (cookies, storage) in it.
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield instance
        finally:
            instance.close()
