"""The README's picture of the chat page, taken from the real page.

    .venv-test/bin/python scripts/screenshot.py [--out docs/page.png]

(the test environment: it has selenium, and `bash scripts/test.sh` installs Chromium).

The service runs in this process on the embedded defaults (the offline sandbox for the travel tools),
seeded once into a cached data directory; headless Chromium (Debian's ``chromium`` and
``chromium-driver``, as the page's tests use) opens the page, asks for hotels and the weather on a
Lisbon trip, and saves what it shows (the end of the
conversation, the trip above it). Dates are nine days from today, so the picture changes with
the day it is taken.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from scripts._common import seeded_service  # noqa: E402

CACHE = Path.home() / ".cache" / "wayfarer" / "screenshot"
SETTINGS = {"WAYFARER_CONNECTORS__MODE": "sandbox", "WAYFARER_LOG_LEVEL": "WARNING"}
ROOT = Path(__file__).resolve().parent.parent


def shoot(url: str, out: Path) -> None:
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    chromedriver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    day = dt.date.today() + dt.timedelta(days=9)  # the forecast reaches 16 days
    with tempfile.TemporaryDirectory() as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1100,1900"):
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={profile}")
        driver = webdriver.Chrome(service=Service(chromedriver), options=options)
        try:
            driver.get(url)
            driver.execute_script("localStorage.setItem('wayfarer.user', 'screenshot-' + Date.now());")
            driver.refresh()
            wait = WebDriverWait(driver, 60)
            wait.until(lambda d: d.find_element(By.ID, "status").text == "connected")
            questions = [
                f"Hotels in Lisbon from {day.isoformat()} for 3 nights for 2 adults",
                f"weather in Lisbon from {day.isoformat()} to {(day + dt.timedelta(days=3)).isoformat()}",
            ]
            for n, question in enumerate(questions, 1):
                driver.find_element(By.ID, "message").send_keys(question)
                driver.find_element(By.ID, "send").click()
                wait.until(
                    lambda d, n=n: len(d.find_elements(By.CSS_SELECTOR, ".turn.assistant .actions")) >= n
                )
            # The offers' table, the forecast's chart and the trip above them.
            driver.execute_script("document.getElementById('scroller').scrollTop = 99999;")
            out.parent.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(out))
        finally:
            driver.quit()


async def main(args: argparse.Namespace) -> None:
    async with seeded_service(CACHE, SETTINGS) as base:
        await asyncio.to_thread(shoot, base + "/", args.out)
    print(f"saved {args.out}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "page.png", help="where to save it")
    asyncio.run(main(parser.parse_args()))
