"""The chat page in a real headless Chromium (Debian's chromium and chromium-driver) against the real app."""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import shutil
import tempfile
from typing import Any

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def browser(profile: str) -> webdriver.Chrome:
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        if os.environ.get("CI"):
            pytest.fail("CI must provide chromium and chromium-driver (scripts/test.sh installs them)")
        pytest.skip("chromium and chromium-driver are not installed (scripts/test.sh installs them)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def ask(driver: webdriver.Chrome, text: str, turn: int) -> Any:
    """Send a message through the page and return the finished answer's turn element."""
    box = driver.find_element(By.ID, "message")
    box.send_keys(text)
    driver.find_element(By.ID, "send").click()
    wait = WebDriverWait(driver, 90)
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".turn.assistant")) >= turn)
    answer = driver.find_elements(By.CSS_SELECTOR, ".turn.assistant")[turn - 1]
    wait.until(
        lambda d: "streaming" not in answer.find_element(By.CSS_SELECTOR, ".answer").get_attribute("class")
    )
    return answer


def drive(url: str, day: dt.date) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as profile:
        driver = browser(profile)
        try:
            driver.get(url)
            WebDriverWait(driver, 30).until(ec.text_to_be_present_in_element((By.ID, "status"), "connected"))
            first = ask(driver, "What should I pack for a humid tropical trip?", 1)
            body = first.find_element(By.CSS_SELECTOR, ".answer")
            out: dict[str, Any] = {
                "chunks": int(body.get_attribute("data-chunks") or 0),
                "text": body.text,
                "sources": [li.text for li in first.find_elements(By.CSS_SELECTOR, ".sources li")],
                "tools_in_first": len(first.find_elements(By.CSS_SELECTOR, ".tool-calls li")),
            }
            second = ask(driver, f"flights from London to Tokyo on {day.isoformat()}", 2)
            out["tool_calls"] = [li.text for li in second.find_elements(By.CSS_SELECTOR, ".tool-calls li")]
            out["live_sources"] = [li.text for li in second.find_elements(By.CSS_SELECTOR, ".sources li")]
            out["second_text"] = second.find_element(By.CSS_SELECTOR, ".answer").text
            out["errors"] = len(driver.find_elements(By.CSS_SELECTOR, ".turn.error"))
            return out
        finally:
            driver.quit()


async def test_the_page_streams_an_answer_with_sources_and_tool_calls(client) -> None:  # type: ignore[no-untyped-def]
    page = await client.get("/")
    assert page.status == 200 and "text/html" in page.headers["Content-Type"]
    day = dt.datetime.now(dt.UTC).date() + dt.timedelta(days=30)
    seen = await asyncio.to_thread(drive, str(client.make_url("/")), day)
    assert seen["chunks"] > 1  # the answer arrived in several streamed frames
    assert "[1]" in seen["text"] and "Sources:" in seen["text"]
    assert seen["sources"] and seen["sources"][0].startswith("[1]") and "document" in seen["sources"][0]
    assert seen["tools_in_first"] == 0 and seen["errors"] == 0
    [call] = seen["tool_calls"]
    assert call.startswith("flight_search via amadeus") and "results" in call
    assert any("flight_offer" in s and "live" in s for s in seen["live_sources"])
    assert "sandbox" in seen["second_text"]
