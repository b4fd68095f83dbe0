"""What the container tests share: the platform's image, built once per module (cold the first time, from cached
layers after)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools import image as image_tool

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def image() -> str:
    """The image `make image` builds; the test fails (never skips) where podman cannot run, saying why."""
    if reason := image_tool.unavailable():
        pytest.fail(f"the container tests need podman: {reason}", pytrace=False)
    try:
        image_tool.make(REPO_ROOT / ".data")
    except image_tool.ImageError as error:
        pytest.fail(str(error), pytrace=False)
    return image_tool.IMAGE
