"""The browser of the report's browser test: one headless Chromium for the session (see
chromium_harness.py)."""

from __future__ import annotations

import pytest

from .chromium_harness import start_browser


@pytest.fixture(scope="session")
def browser():
    driver = start_browser()
    try:
        yield driver
    finally:
        driver.quit()
