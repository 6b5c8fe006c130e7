"""Headless Chromium for the site's browser tests and screenshots (never for building it).

Debian's `chromium` driven by the Python `playwright` package through its executable path:
playwright's own browser download is never used. The flags keep the browser from reaching
the network on its own (no updates, no sync, no background requests) and a fresh, empty
profile keeps each run independent of the last.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = os.environ.get("ESCOBA_CHROMIUM", "/usr/bin/chromium")
ARGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
)  # fmt: skip


def chromium_path() -> str | None:
    """The browser, if it is installed."""
    found = shutil.which(CHROMIUM) if not os.path.isabs(CHROMIUM) else (CHROMIUM if os.access(CHROMIUM, os.X_OK) else None)
    return found


@contextmanager
def browser_context(width: int = 1280, height: int = 900) -> Iterator[Any]:
    """A playwright browser context on a fresh profile; closed, with its profile, on exit."""
    from playwright.sync_api import sync_playwright

    path = chromium_path()
    if path is None:
        raise RuntimeError(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    with tempfile.TemporaryDirectory(prefix="escoba-chromium-") as profile, sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            profile, executable_path=path, args=list(ARGS), headless=True,
            viewport={"width": width, "height": height}, device_scale_factor=1,
        )  # fmt: skip
        try:
            yield context
        finally:
            context.close()


def file_url(path: Path) -> str:
    return path.resolve().as_uri()
