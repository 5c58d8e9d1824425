"""The review page in a real headless Chromium: label three items by keyboard, watch the
precision change, run a backtest.

`supervise review` runs as a subprocess on 127.0.0.1 with a free port; Playwright drives
the system's Chromium (Debian's `chromium` package), never a browser of its own. Skipped,
saying why, when either is missing. With SUPERVISE_REVIEW_SCREENSHOTS set to a directory,
the queue and the entry view are saved there (docs/img holds the ones in docs/review.md).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = Path(os.environ.get("SUPERVISE_CHROMIUM", "/usr/bin/chromium"))
if not CHROMIUM.exists():
    pytest.skip(
        f"browser test SKIPPED: no Chromium at {CHROMIUM} (apt-get install -y chromium, or set "
        "SUPERVISE_CHROMIUM)",
        allow_module_level=True,
    )
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="browser test SKIPPED: playwright is not installed"
)
pytest.importorskip("starlette", reason="browser test SKIPPED: the review extra is not installed")

from supervisor import Supervisor  # noqa: E402
from tests.integration.test_review import ACTIONS, FORCE  # noqa: E402

ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
WAIT_MS = 15_000  # generous: the machine is shared; nothing waits this long when it works


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, list]]:
    home = tmp_path / "home"
    with Supervisor.from_taxonomy("coding", home=home) as sup:
        decisions = [sup.check(action, context) for action, context in ACTIONS]
    env = {**os.environ, "SUPERVISE_LABELLER": "browser-test"}
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from supervisor.cli import main; main()",
            *("review", "--home", str(home), "--port", "0"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        url = None
        deadline = time.monotonic() + 30
        assert process.stdout is not None
        while url is None and time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            found = re.search(r"open (http://127\.0\.0\.1:\d+/\?token=\S+)", line)
            url = found.group(1) if found else None
        if url is None:
            process.kill()
            _, errors = process.communicate(timeout=10)
            pytest.fail(f"supervise review printed no URL: {errors}")
        yield url, decisions
    finally:
        process.terminate()
        process.communicate(timeout=10)  # waits, and closes the pipes


def test_label_three_by_keyboard_and_backtest(server):
    url, decisions = server
    shots = os.environ.get("SUPERVISE_REVIEW_SCREENSHOTS")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(WAIT_MS)
            page.goto(url)  # the token sets the cookie; the redirect drops it from the address
            assert "token=" not in page.url
            base = page.url.split("?")[0].rstrip("/")
            page.goto(f"{base}/?entry={FORCE}")
            items = page.locator("article.item")
            assert items.count() == 3
            precision = page.locator(f'td[data-precision="{FORCE}"]')
            assert precision.inner_text() == "-"
            page.keyboard.press("r")  # the first: right
            sync_api.expect(items.nth(0).locator("[data-label]")).to_have_text("right")
            sync_api.expect(precision).to_have_text("100%")
            page.keyboard.press("w")  # the second (selected after the first label): wrong
            sync_api.expect(items.nth(1).locator("[data-label]")).to_have_text("wrong → ok")
            sync_api.expect(precision).to_have_text("50%")
            page.keyboard.press("e")  # a note, then wrong verdict: should have been a flag
            page.keyboard.type("feature branch, not shared")
            page.keyboard.press("Enter")
            page.keyboard.press("v")
            page.keyboard.press("f")
            sync_api.expect(items.nth(2).locator("[data-label]")).to_have_text("wrong → flag")
            sync_api.expect(precision).to_have_text("33%")
            # The labels are in the store: a fresh load shows them.
            page.reload()
            sync_api.expect(page.locator(f'td[data-precision="{FORCE}"]')).to_have_text("33%")
            if shots:
                page.goto(f"{base}/")
                page.screenshot(path=str(Path(shots) / "review-queue.png"), full_page=True)

            page.goto(f"{base}/entry/{FORCE}")
            sync_api.expect(page.locator(f'td[data-precision="{FORCE}"]')).to_have_text("33%")
            editor = page.locator("#entry-yaml")
            edited = editor.input_value().replace(
                "default_verdict: nudge", "default_verdict: block"
            )
            editor.fill(edited)
            page.locator("#backtest").click()
            sync_api.expect(page.locator("[data-flips]")).to_have_text("3")
            for index in (1, 4, 5):
                sync_api.expect(
                    page.locator("#backtest-result").get_by_text(decisions[index].decision_id)
                ).to_be_visible()
            if shots:
                page.screenshot(path=str(Path(shots) / "review-entry.png"), full_page=True)
        finally:
            browser.close()
