"""The chat page in a real headless Chromium (Debian's chromium and chromium-driver) against the real app.

One browser and one app serve the whole module (the app's set-up is most of its time); each test has its
own user and asks for its own routes and dates, so no answer comes from another test's ingested results.
Slow answers come from the sandbox's latency fault, hostile provider text from its rewrite fault; each
test's faults are cleared after it. A provider's hostile error comes from a tiny provider on loopback,
behind an app of its own.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import re
import shutil
import tempfile
import unicodedata
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
import pytest_asyncio
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

from connectors.sandbox.app import FAULTS
from connectors.sandbox.faults import SandboxFaults
from rag.i18n.phrases import message, phrases
from rag.settings import SEED_DIR, Settings
from rag.web import keys
from rag.web.app import create_app
from tests.conftest import SMALL_SEED

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
HOSTILE = '<img src=x onerror="window.pwned=1">**bold** [x](javascript:window.pwned=2)'


@pytest.fixture(scope="module")
def driver() -> Iterator[webdriver.Chrome]:
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        if os.environ.get("CI"):
            pytest.fail("CI must provide chromium and chromium-driver (scripts/test.sh installs them)")
        pytest.skip("chromium and chromium-driver are not installed (scripts/test.sh installs them)")
    with tempfile.TemporaryDirectory() as profile:
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
            "--window-size=1100,900",
            f"--user-data-dir={profile}",
        ):
            options.add_argument(flag)
        chrome = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        try:
            yield chrome
        finally:
            chrome.quit()


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def shared_app(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[TestClient]:
    """The real app on a real port, with room for a slow provider (deadlines well past its latency)."""
    tmp = tmp_path_factory.mktemp("page")
    seed = tmp / "seed"
    for rel in SMALL_SEED:
        (seed / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(SEED_DIR / rel, seed / rel)
    settings = Settings(
        _env_file=None,
        server={"data_dir": tmp / "data"},
        index={"seed_dir": seed},
        scheduler={"enabled": False},
        connectors={"min_interval_ms": 0},
        limits={"tool_deadline_seconds": 60, "chat_deadline_seconds": 60},
    )
    async with TestClient(TestServer(create_app(settings))) as client:
        yield client


@pytest_asyncio.fixture(loop_scope="module")
async def page_app(shared_app: TestClient) -> AsyncIterator[TestClient]:
    """The module's app, its sandbox's faults cleared after each test."""
    yield shared_app
    fault = faults(shared_app)
    fault.latency_ms = 0
    fault.rewrite = {}


def faults(client: Any) -> SandboxFaults:
    return client.app[keys.TOOLS].sandbox_runner.app[FAULTS]  # type: ignore[no-any-return]


def ahead(days: int) -> str:
    return (dt.datetime.now(dt.UTC).date() + dt.timedelta(days=days)).isoformat()


def wait(driver: webdriver.Chrome, until: Callable[[webdriver.Chrome], Any], seconds: float = 45) -> Any:
    return WebDriverWait(driver, seconds).until(until)


def visit(driver: webdriver.Chrome, url: str, user: str, steps: Callable[..., Any], *args: Any) -> Any:
    """Run `steps` on the page loaded as `user`, then leave it: the app's shutdown finds no socket open."""
    try:
        open_page(driver, url, user)
        return steps(driver, *args)
    finally:
        driver.get("about:blank")


def open_page(driver: webdriver.Chrome, url: str, user: str) -> None:
    """Load the page as `user` and wait for its connection."""
    driver.get(url)
    driver.execute_script("localStorage.clear(); localStorage.setItem('wayfarer.user', arguments[0]);", user)
    driver.refresh()
    wait(driver, lambda d: d.find_element(By.ID, "status").text == "connected", 30)


def assistant(driver: webdriver.Chrome, turn: int) -> WebElement:
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".turn.assistant")) >= turn)
    return driver.find_elements(By.CSS_SELECTOR, ".turn.assistant")[turn - 1]


def send(driver: webdriver.Chrome, text: str) -> None:
    driver.find_element(By.ID, "message").send_keys(text)
    driver.find_element(By.ID, "send").click()


def ask(driver: webdriver.Chrome, text: str, turn: int) -> WebElement:
    """Send a message through the page and return the finished answer's turn element."""
    send(driver, text)
    answer = assistant(driver, turn)
    wait(
        driver,
        lambda d: "streaming" not in answer.find_element(By.CSS_SELECTOR, ".answer").get_attribute("class"),
    )
    return answer


# What an answer cites, each once, by number: the Sources list's items and the offer rows that are
# their sources' citation targets (an offer the answer cites is its table's row, not listed again).
def cited(box: WebElement) -> list[str]:
    """The texts of what an answer cites, by number ("[1] ...", "[2] ...")."""
    items = box.find_elements(By.CSS_SELECTOR, ".sources li[data-n], tr[data-offer][id]")
    return [e.text for e in sorted(items, key=lambda e: int(e.get_attribute("data-n") or 0))]


def conversation(driver: webdriver.Chrome) -> list[tuple[str, str, list[str]]]:
    """Each turn as (class, visible text, cited items)."""
    return [
        (box.get_attribute("class"), box.find_element(By.CSS_SELECTOR, ".text").text, cited(box))
        for box in driver.find_elements(By.CSS_SELECTOR, "#messages .turn")
    ]


async def history(client: Any, user: str) -> list[dict[str, Any]]:
    resp = await client.get(f"/v1/sessions/{user}")
    assert resp.status == 200
    return (await resp.json())["history"]  # type: ignore[no-any-return]


async def settled_history(client: Any, user: str, turns: int) -> list[dict[str, Any]]:
    """The history once it holds `turns` turns (an answer is saved as it ends, a moment after its frame)."""
    for _ in range(200):
        found = await history(client, user)
        if len(found) >= turns:
            return found
        await asyncio.sleep(0.05)
    return await history(client, user)


def copied(driver: webdriver.Chrome, turn: WebElement) -> str:
    """What the turn's Copy button puts on the clipboard (the page's origin may use it)."""
    driver.execute_cdp_cmd(
        "Browser.grantPermissions",
        {
            "origin": driver.execute_script("return location.origin;"),
            "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"],
        },
    )
    copy = turn.find_element(By.CSS_SELECTOR, "button.copy")
    copy.click()
    wait(driver, lambda d: copy.get_attribute("data-copied") == "true", 10)
    return driver.execute_async_script(  # type: ignore[no-any-return]
        "const done = arguments[0]; navigator.clipboard.readText().then(done, (e) => done('failed: ' + e));"
    )


def drive_answers(driver: webdriver.Chrome, day: dt.date) -> dict[str, Any]:
    assert driver.find_element(By.ID, "welcome").is_displayed()  # an empty conversation says what to ask
    first = ask(driver, "What should I pack for a humid tropical trip?", 1)
    body = first.find_element(By.CSS_SELECTOR, ".answer")
    out: dict[str, Any] = {
        "chunks": int(body.get_attribute("data-chunks") or 0),
        "text": body.text,
        "sources": [li.text for li in first.find_elements(By.CSS_SELECTOR, ".sources li")],
        "tools_in_first": len(first.find_elements(By.CSS_SELECTOR, ".tool-calls li")),
        "welcome_after": driver.find_element(By.ID, "welcome").is_displayed(),
    }
    # The copy button puts the answer's text on the clipboard.
    out["clipboard"] = copied(driver, first)
    # A citation opens its source's excerpt.
    cite = first.find_element(By.CSS_SELECTOR, ".answer a.cite")
    target = first.find_element(By.CSS_SELECTOR, f'.sources li[data-n="{cite.get_attribute("data-n")}"]')
    excerpt = target.find_element(By.CSS_SELECTOR, ".excerpt")
    out["excerpt_hidden_before"] = not excerpt.is_displayed()
    cite.click()
    wait(driver, lambda d: excerpt.is_displayed(), 10)
    out["excerpt"] = excerpt.text

    second = ask(driver, f"flights from London to Tokyo on {day.isoformat()}", 2)
    out["tool_calls"] = [li.text for li in second.find_elements(By.CSS_SELECTOR, ".tool-calls li")]
    out["live_sources"] = [li.text for li in second.find_elements(By.CSS_SELECTOR, ".sources li")]
    out["rows"] = [
        (tr.get_attribute("data-n"), tr.get_attribute("id"), tr.text)
        for tr in second.find_elements(By.CSS_SELECTOR, "tr[data-offer]")
    ]
    # A citation of an offer (in the list of offers, unfolded) brings its row into view, marked.
    second.find_element(By.CSS_SELECTOR, ".answer button.unfold").click()
    row_cite = next(
        a
        for a in second.find_elements(By.CSS_SELECTOR, ".answer a.cite")
        if second.find_elements(By.CSS_SELECTOR, f'tr[data-offer][data-n="{a.get_attribute("data-n")}"]')
    )
    row_cite.click()
    target = second.find_element(
        By.CSS_SELECTOR, f'tr[data-offer][id="{row_cite.get_attribute("href").split("#")[1]}"]'
    )
    wait(driver, lambda d: "target" in (target.get_attribute("class") or ""), 10)
    out["row_focused"] = driver.execute_script("return document.activeElement === arguments[0];", target)
    out["second_text"] = second.find_element(By.CSS_SELECTOR, ".answer").text
    out["markup"] = len(driver.find_elements(By.CSS_SELECTOR, ".answer li, .answer strong, .answer h3"))
    out["visible"] = driver.find_element(By.ID, "messages").text
    out["errors"] = len(driver.find_elements(By.CSS_SELECTOR, ".turn.error"))
    return out


async def test_the_page_renders_answers_with_sources_tool_calls_copy_and_citations(page_app, driver) -> None:  # type: ignore[no-untyped-def]
    page = await page_app.get("/")
    assert page.status == 200 and "text/html" in page.headers["Content-Type"]
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    for asset in (
        "chat.js",
        "render.js",
        "offers.js",
        "chat.css",
        "vendor/markdown-it.min.js",
        "vendor/purify.min.js",
    ):
        assert (await page_app.get(f"/static/{asset}")).status == 200, asset
    assert (await page_app.get("/static/../page.py")).status == 404
    assert (await page_app.get("/static/index.htm")).status == 404
    url = str(page_app.make_url("/"))
    day = dt.datetime.now(dt.UTC).date() + dt.timedelta(days=30)
    seen = await asyncio.to_thread(visit, driver, url, "page-one", drive_answers, day)
    assert seen["chunks"] > 1  # the answer arrived in several streamed frames
    # The sources are the list under the answer, not its text's Sources line too (REST clients keep it).
    assert "[1]" in seen["text"] and "Sources:" not in seen["text"]
    assert seen["sources"] and seen["sources"][0].startswith("[1]") and "document" in seen["sources"][0]
    assert seen["tools_in_first"] == 0 and seen["errors"] == 0 and not seen["welcome_after"]
    assert " ".join(seen["clipboard"].split()) == " ".join(seen["text"].split())
    assert seen["excerpt_hidden_before"] and seen["excerpt"]
    [call] = seen["tool_calls"]
    assert call.startswith("flight_search · sandbox (synthetic)") and "results" in call
    # The offers are rows, each the target of its [n] and badged sandbox; the Sources list does not
    # repeat them.
    assert seen["rows"] and all(n and "sandbox" in text for n, _, text in seen["rows"]), seen["rows"]
    assert all(text.startswith(f"[{n}]") for n, _, text in seen["rows"])
    assert not any("flight_offer" in s for s in seen["live_sources"]) and seen["row_focused"]
    assert "sandbox" in seen["second_text"]
    # Markdown is rendered, not shown raw.
    assert seen["markup"] > 0 and "**" not in seen["visible"]


def offer_rows(turn: WebElement, kind: str) -> list[dict[str, Any]]:
    return [
        {
            "price": float(row.get_attribute("data-price") or "nan"),
            "cells": [td.get_attribute("textContent") for td in row.find_elements(By.CSS_SELECTOR, "td")],
            "badge": len(row.find_elements(By.CSS_SELECTOR, ".sandbox")),
        }
        for row in turn.find_elements(By.CSS_SELECTOR, f'table.offers tr[data-offer="{kind}"]')
    ]


def drive_offers(driver: webdriver.Chrome, day: dt.date) -> dict[str, Any]:
    hotels = ask(driver, f"hotels in Lisbon from {day.isoformat()} for 3 nights", 1)
    out: dict[str, Any] = {"hotels": offer_rows(hotels, "hotel_offer")}
    # The text's list of the same offers is folded away under the table, and unfolds on request.
    folded = hotels.find_element(By.CSS_SELECTOR, ".answer ul[data-folded]")
    out["folded"] = not folded.is_displayed() and len(folded.find_elements(By.TAG_NAME, "li"))
    unfold = hotels.find_element(By.CSS_SELECTOR, ".answer button.unfold")
    out["unfold"] = unfold.text
    unfold.click()
    out["unfolded"] = folded.is_displayed() and not hotels.find_elements(By.CSS_SELECTOR, "button.unfold")
    # Copy takes the whole answer, its folded offers included.
    porto = ask(driver, f"hotels in Porto from {day.isoformat()} for 2 nights", 2)
    out["copied"] = copied(driver, porto)
    out["porto_folded"] = len(porto.find_elements(By.CSS_SELECTOR, ".answer ul[data-folded] li"))
    out["header"] = [th.text for th in hotels.find_elements(By.CSS_SELECTOR, "table.offers th")]
    sort = hotels.find_element(By.CSS_SELECTOR, "table.offers th button.sort")
    sort.click()
    out["ascending"] = [r["price"] for r in offer_rows(hotels, "hotel_offer")]
    sort.click()
    out["descending"] = [r["price"] for r in offer_rows(hotels, "hotel_offer")]
    flights = ask(driver, f"flights from London to Lisbon on {day.isoformat()}", 3)
    out["flights"] = offer_rows(flights, "flight_offer")
    driver.refresh()  # a reopened conversation draws its offers again, from the history
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "table.offers")) == 3)
    out["after_reload"] = len(driver.find_elements(By.CSS_SELECTOR, "table.offers tr[data-offer]"))
    return out


async def test_offers_are_rows_to_compare_sort_by_price_each_marked_sandbox(page_app, driver) -> None:  # type: ignore[no-untyped-def]
    url = str(page_app.make_url("/"))
    day = dt.datetime.now(dt.UTC).date() + dt.timedelta(days=41)
    seen = await asyncio.to_thread(visit, driver, url, "page-offers", drive_offers, day)
    hotels = seen["hotels"]
    assert 1 < len(hotels) <= 5 and all(r["badge"] == 1 for r in hotels)  # every row says sandbox
    assert seen["folded"] == len(hotels) and seen["unfold"] == f"Show the {len(hotels)} offers as text"
    assert seen["unfolded"]
    assert seen["porto_folded"] > 1 and "Show the" not in seen["copied"]
    assert seen["copied"].count("EUR total") == seen["porto_folded"], seen["copied"]
    assert seen["header"] == ["Hotel", "Dates", "Room", "A night", "Price"]
    for row in hotels:
        assert row["cells"][0].endswith(" sandbox")
        assert f"{day.isoformat()} → " in row["cells"][1] and "(3 nights)" in row["cells"][1]
        assert row["cells"][3].startswith("about ") and re.search(r"\d", row["cells"][4])
    assert seen["ascending"] == sorted(r["price"] for r in hotels)
    assert seen["descending"] == sorted((r["price"] for r in hotels), reverse=True)
    flights = seen["flights"]
    assert flights and all(r["badge"] == 1 for r in flights)
    assert all("LON" in r["cells"][0] or "LHR" in r["cells"][0] or "LGW" in r["cells"][0] for r in flights)
    for row in flights:  # a round trip: the hotel's nights made it one
        assert all(way == "nonstop" or " via " in way for way in row["cells"][1].split(" · return "))
    assert seen["after_reload"] == len(hotels) + seen["porto_folded"] + len(flights)


def drive_forecast(driver: webdriver.Chrome, first: dt.date, last: dt.date) -> dict[str, Any]:
    turn = ask(driver, f"weather in Lisbon from {first.isoformat()} to {last.isoformat()}", 1)
    figure = turn.find_element(By.CSS_SELECTOR, "figure.forecast[data-forecast]")
    return {
        "caption": figure.find_element(By.CSS_SELECTOR, "figcaption").text,
        "points": len(figure.find_elements(By.CSS_SELECTOR, "svg circle.high")),
        "bars": len(figure.find_elements(By.CSS_SELECTOR, "svg rect.rain")),
        "svg_hidden": figure.find_element(By.CSS_SELECTOR, "svg").get_attribute("aria-hidden"),
        "rows": [
            [tr.get_attribute("data-day")]
            + [td.get_attribute("textContent") for td in tr.find_elements(By.CSS_SELECTOR, "td")][1:]
            for tr in figure.find_elements(By.CSS_SELECTOR, "table tr[data-day]")
        ],
        "cited_rows": [
            (tr.get_attribute("data-n"), tr.get_attribute("id"), tr.find_element(By.TAG_NAME, "td").text)
            for tr in figure.find_elements(By.CSS_SELECTOR, "table tr[data-day]")
        ],
        "sources": [li.text for li in turn.find_elements(By.CSS_SELECTOR, ".sources li")],
        "unfold": [b.text for b in turn.find_elements(By.CSS_SELECTOR, ".answer button.unfold")],
        "tables": len(turn.find_elements(By.CSS_SELECTOR, "table.offers")),
    }


async def test_a_forecast_is_a_chart_with_its_numbers_for_screen_readers(page_app, driver) -> None:  # type: ignore[no-untyped-def]
    url = str(page_app.make_url("/"))
    first = dt.datetime.now(dt.UTC).date() + dt.timedelta(days=2)
    last = first + dt.timedelta(days=3)
    seen = await asyncio.to_thread(visit, driver, url, "page-forecast", drive_forecast, first, last)
    assert seen["caption"].startswith("Lisbon, Portugal: the forecast, °C (sandbox) · fetched "), seen[
        "caption"
    ]
    days = [row[0] for row in seen["rows"]]
    assert days == sorted(days) and days[0] == first.isoformat() and 1 < len(days) <= 5
    assert seen["points"] == seen["bars"] == len(days) and seen["svg_hidden"] == "true"
    for _, low, high, rain in seen["rows"]:
        assert int(low) <= int(high) and rain.endswith("%")
    assert seen["tables"] == 0
    # Each day the answer cites is its row (the target of its [n]), not a Sources item too; the text's
    # list of days is folded under the chart.
    assert all(n and id_ and day.startswith(f"[{n}] ") for n, id_, day in seen["cited_rows"]), seen
    assert seen["sources"] == [] and seen["unfold"] == [f"Show the {len(days)} days as text"]


def drive_reload_mid_answer(driver: webdriver.Chrome, question: str, fault: SandboxFaults) -> dict[str, Any]:
    send(driver, question)
    turn = assistant(driver, 1)
    wait(driver, lambda d: turn.find_elements(By.CSS_SELECTOR, ".answer .progress"), 30)
    driver.refresh()  # while the hotels are still being searched
    wait(driver, lambda d: d.find_element(By.ID, "status").text == "connected", 30)
    fault.latency_ms = 0
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".turn.assistant .actions"), 60)
    done = driver.find_elements(By.CSS_SELECTOR, ".turn.assistant")
    return {
        "turns": [c.split()[-1] for c, _, _ in conversation(driver)],
        "text": done[-1].find_element(By.CSS_SELECTOR, ".answer").text,
        "rows": len(done[-1].find_elements(By.CSS_SELECTOR, "tr[data-offer]")),
    }


async def test_a_reload_while_an_answer_is_written_shows_it_when_it_completes(page_app, driver) -> None:  # type: ignore[no-untyped-def]
    fault = faults(page_app)
    fault.latency_ms = 4_000  # the search is still running when the page reloads
    url = str(page_app.make_url("/"))
    question = f"hotels in Lisbon from {ahead(47)} for 2 nights"
    try:
        seen = await asyncio.to_thread(
            visit, driver, url, "page-reload-mid", drive_reload_mid_answer, question, fault
        )
    finally:
        fault.latency_ms = 0
    assert seen["turns"] == ["user", "assistant"]  # one question, its answer: no second reload needed
    assert "Hotels" in seen["text"] and seen["rows"] > 0


def trip_line(driver: webdriver.Chrome) -> str | None:
    box = driver.find_element(By.CSS_SELECTOR, "[data-trip]")
    return driver.find_element(By.ID, "trip-summary").text if box.is_displayed() else None


def drive_trip(driver: webdriver.Chrome, day: dt.date) -> dict[str, Any]:
    out: dict[str, Any] = {"empty": trip_line(driver)}
    ask(driver, f"hotels in Lisbon from {day.isoformat()} for 3 nights for 2 adults", 1)
    wait(driver, lambda d: trip_line(d))
    out["lisbon"] = trip_line(driver)
    ask(driver, "what about Porto?", 2)
    wait(driver, lambda d: "Porto" in (trip_line(d) or ""))
    out["porto"] = trip_line(driver)
    driver.refresh()
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".turn.assistant")) == 2)
    out["reloaded"] = trip_line(driver)
    driver.find_element(By.ID, "trip-clear").click()
    wait(driver, lambda d: trip_line(d) is None)
    out["turns_after_clear"] = len(driver.find_elements(By.CSS_SELECTOR, ".turn"))
    return out


async def test_the_trip_is_in_view_follows_the_conversation_and_can_be_cleared(page_app, driver) -> None:  # type: ignore[no-untyped-def]
    url = str(page_app.make_url("/"))
    day = dt.datetime.now(dt.UTC).date() + dt.timedelta(days=44)
    seen = await asyncio.to_thread(visit, driver, url, "page-trip", drive_trip, day)
    assert seen["empty"] is None  # nothing settled yet: nothing shown
    end = (day + dt.timedelta(days=3)).isoformat()
    assert "Lisbon" in seen["lisbon"] and f"{day.isoformat()} to {end} (3 nights)" in seen["lisbon"]
    assert "2 adults" in seen["lisbon"]
    assert "Porto" in seen["porto"] and "Lisbon" not in seen["porto"] and day.isoformat() in seen["porto"]
    assert seen["reloaded"] == seen["porto"]
    assert seen["turns_after_clear"] == 4  # the conversation stays
    body = await (await page_app.get("/v1/sessions/page-trip")).json()
    assert body["trip"] == {} and len(body["history"]) == 4


def listed(driver: webdriver.Chrome) -> list[tuple[str, str, bool]]:
    """The conversation list as (data-conversation, title, open), read in one script (the page redraws
    the list as answers end)."""
    rows = driver.execute_script(
        "return [...document.querySelectorAll('#conversation-list li[data-conversation]')].map((li) =>"
        " [li.dataset.conversation, li.querySelector('button.open').textContent,"
        " li.getAttribute('aria-current') === 'true']);"
    )
    return [(c, t, o) for c, t, o in rows]


def questions_shown(driver: webdriver.Chrome) -> list[str]:
    return driver.execute_script(  # type: ignore[no-any-return]
        "return [...document.querySelectorAll('#messages .turn.user .text')].map((b) => b.textContent);"
    )


def drive_conversations(driver: webdriver.Chrome, day: dt.date) -> dict[str, Any]:
    out: dict[str, Any] = {"first_visit": listed(driver)}
    ask(driver, f"hotels in Lisbon from {day.isoformat()} for 2 nights", 1)
    wait(driver, lambda d: len(listed(d)) == 1)
    out["one"] = listed(driver)
    driver.find_element(By.ID, "new-conversation").click()
    wait(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "#messages .turn"))
    wait(driver, lambda d: d.find_element(By.ID, "status").text == "connected", 30)
    out["new"] = {
        "welcome": driver.find_element(By.ID, "welcome").is_displayed(),
        "trip": trip_line(driver),
        "list": listed(driver),
    }
    ask(driver, "What's the weather in Tokyo?", 1)
    wait(driver, lambda d: len(listed(d)) == 2 and listed(d)[0][1] != "New trip")
    wait(driver, lambda d: "Tokyo" in (trip_line(d) or ""))
    out["two"] = listed(driver)
    driver.refresh()  # the conversation open stays open
    wait(driver, lambda d: questions_shown(d) == ["What's the weather in Tokyo?"] and len(listed(d)) == 2)
    out["reloaded"] = {"list": listed(driver), "trip": trip_line(driver)}
    main = driver.find_element(By.CSS_SELECTOR, '#conversation-list li[data-conversation="main"] button.open')
    main.click()  # reopened with its turns and its trip
    wait(driver, lambda d: questions_shown(d) == [f"hotels in Lisbon from {day.isoformat()} for 2 nights"])
    wait(driver, lambda d: "Lisbon" in (trip_line(d) or ""))
    out["reopened"] = {"list": listed(driver), "trip": trip_line(driver)}
    # Asked there, it goes to that conversation.
    wait(driver, lambda d: d.find_element(By.ID, "status").text == "connected", 30)
    ask(driver, "what about Porto?", 2)
    other = next(c for c, _, _ in listed(driver) if c != "main")
    driver.find_element(
        By.CSS_SELECTOR, f'#conversation-list li[data-conversation="{other}"] button.delete'
    ).click()
    wait(driver, lambda d: len(listed(d)) == 1)
    out["after_delete"] = listed(driver)
    out["turns_after_delete"] = len(driver.find_elements(By.CSS_SELECTOR, "#messages .turn"))
    out["other"] = other
    return out


async def test_conversations_start_list_reopen_and_delete(page_app, driver) -> None:  # type: ignore[no-untyped-def]
    url = str(page_app.make_url("/"))
    day = dt.datetime.now(dt.UTC).date() + dt.timedelta(days=51)
    seen = await asyncio.to_thread(visit, driver, url, "page-convs", drive_conversations, day)
    lisbon = f"hotels in Lisbon from {day.isoformat()} for 2 nights"
    assert seen["first_visit"] == []  # nothing to list yet
    assert seen["one"] == [("main", lisbon, True)]
    # A new trip: an empty conversation, no trip, open in the list, the old one still there.
    assert seen["new"]["welcome"] is True and seen["new"]["trip"] is None
    new, old = seen["new"]["list"]
    assert new[1:] == ("New trip", True) and old == ("main", lisbon, False)
    other = seen["other"]
    assert seen["two"] == [(other, "What's the weather in Tokyo?", True), ("main", lisbon, False)]
    assert seen["reloaded"]["list"] == seen["two"] and "Tokyo" in seen["reloaded"]["trip"]
    assert "Lisbon" in seen["reopened"]["trip"] and "Tokyo" not in seen["reopened"]["trip"]
    assert [open_ for _, _, open_ in seen["reopened"]["list"]] == [False, True]
    assert seen["after_delete"] == [("main", lisbon, True)] and seen["turns_after_delete"] == 4
    # The server agrees: the main conversation has both its questions, the other is gone.
    body = await (await page_app.get("/v1/sessions/page-convs/conversations")).json()
    assert [c["id"] for c in body["conversations"]] == ["main"]
    main = await (await page_app.get("/v1/sessions/page-convs")).json()
    assert [t["text"] for t in main["history"] if t["role"] == "user"] == [lisbon, "what about Porto?"]
    gone = await (await page_app.get(f"/v1/sessions/page-convs?conversation_id={other}")).json()
    assert gone["history"] == [] and gone["trip"] == {}


def drive_stop(driver: webdriver.Chrome, question: str, fault: SandboxFaults) -> dict[str, Any]:
    send(driver, question)
    turn = assistant(driver, 1)
    stop = driver.find_element(By.ID, "stop")
    out: dict[str, Any] = {
        "stop_shown": stop.is_displayed() and not driver.find_element(By.ID, "send").is_displayed()
    }
    # While the provider takes its time, the answer says what it is doing.
    wait(driver, lambda d: turn.find_elements(By.CSS_SELECTOR, ".answer .progress"), 30)
    out["progress"] = turn.find_element(By.CSS_SELECTOR, ".answer .progress").text
    stop.click()
    wait(driver, lambda d: "cancelled" in (turn.get_attribute("class") or ""), 30)
    answer = turn.find_element(By.CSS_SELECTOR, ".answer")
    out["text"] = answer.text
    out["streaming"] = "streaming" in (answer.get_attribute("class") or "")
    out["send_back"] = driver.find_element(By.ID, "send").is_displayed() and not stop.is_displayed()
    fault.latency_ms = 0  # the next message is answered at once
    out["next"] = (
        ask(driver, "What should I pack for a humid tropical trip?", 2)
        .find_element(By.CSS_SELECTOR, ".answer")
        .text
    )
    driver.refresh()  # the stopped turn stays marked when drawn from the history
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#messages .turn")) >= 4, 30)
    out["reloaded"] = [(c.split()[-1], text) for c, text, _ in conversation(driver)]
    return out


async def test_stop_cancels_the_answer_on_the_server_and_the_conversation_goes_on(page_app, driver) -> None:  # type: ignore[no-untyped-def]
    fault = faults(page_app)
    fault.latency_ms = 10_000  # each provider request (token, then search) takes 10 s: Stop comes first
    question = f"flights from London to Paris on {ahead(31)}"
    url = str(page_app.make_url("/"))
    seen = await asyncio.to_thread(visit, driver, url, "page-stop", drive_stop, question, fault)
    assert seen["stop_shown"] and seen["send_back"]
    assert seen["progress"] == "Searching flights London → Paris…"
    assert seen["text"].endswith("(stopped)") and not seen["streaming"]
    assert "[1]" in seen["next"] and "(stopped)" not in seen["next"]
    turns = await settled_history(page_app, "page-stop", 4)
    assert [t["role"] for t in turns] == ["user", "assistant", "user", "assistant"]
    assert turns[0]["text"] == question and turns[1].get("cancelled") is True
    assert not turns[3].get("cancelled")
    assert [c for c, _ in seen["reloaded"]] == ["user", "cancelled", "user", "assistant"]
    assert seen["reloaded"][1][1] == seen["text"] and seen["reloaded"][3][1] == seen["next"]


def drive_resume(driver: webdriver.Chrome, question: str) -> dict[str, Any]:
    send(driver, question)
    turn = assistant(driver, 1)
    # The connection drops mid-answer (the provider is still answering).
    driver.execute_script("window.dropped = window.wayfarer.socket(); window.dropped.close();")
    answer = turn.find_element(By.CSS_SELECTOR, ".answer")
    wait(driver, lambda d: "streaming" not in (answer.get_attribute("class") or ""))
    out: dict[str, Any] = {
        "new_socket": driver.execute_script(
            "const ws = window.wayfarer.socket(); return ws !== window.dropped && ws.readyState === WebSocket.OPEN;"
        ),
        "before": conversation(driver),
    }
    driver.refresh()  # the conversation survives a reload
    wait(driver, lambda d: d.find_element(By.ID, "status").text == "connected", 30)
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#messages .turn")) >= 2, 30)
    out["after"] = conversation(driver)
    out["welcome"] = driver.find_element(By.ID, "welcome").is_displayed()
    return out


async def test_a_dropped_connection_resumes_the_answer_and_a_reload_keeps_the_conversation(
    page_app, driver
) -> None:  # type: ignore[no-untyped-def]
    faults(page_app).latency_ms = 2_000  # the answer is still being written when the socket drops
    question = f"flights from London to Rome on {ahead(32)}"
    url = str(page_app.make_url("/"))
    seen = await asyncio.to_thread(visit, driver, url, "page-resume", drive_resume, question)
    assert seen["new_socket"]
    (user_class, user_text, _), (answer_class, answer_text, sources) = seen["before"]
    assert "user" in user_class and user_text == question
    assert "assistant" in answer_class and "cancelled" not in answer_class
    assert "Sources:" not in answer_text and sources and sources[0].startswith("[1]")
    # The resumed answer is the saved one: drawn again from the history after the reload, it is the same.
    assert seen["after"] == seen["before"] and not seen["welcome"]
    turns = await history(page_app, "page-resume")
    assert [t["role"] for t in turns] == ["user", "assistant"] and not turns[1].get("cancelled")
    assert len(turns[1]["sources"]) == len(sources)


RENDER_HOSTILE = """
const box = document.createElement('div');
box.append(window.wayfarerRender.answer(arguments[0] + ' [1]', 'probe', [{n: 1}]));
document.body.append(box);
const out = {html: box.innerHTML, text: box.textContent, links: [...box.querySelectorAll('a')].map((a) => a.href)};
box.remove();
return out;
"""


def drive_hostile(driver: webdriver.Chrome, question: str) -> dict[str, Any]:
    turn = ask(driver, question, 1)
    return {
        "pwned": driver.execute_script("return window.pwned;"),
        "images": len(driver.find_elements(By.CSS_SELECTOR, "#messages img")),
        "hrefs": [
            a.get_attribute("href") or "" for a in driver.find_elements(By.CSS_SELECTOR, "#messages a")
        ],
        "text": turn.find_element(By.CSS_SELECTOR, ".answer").get_attribute("textContent"),
        "rows": [
            tr.get_attribute("textContent") for tr in turn.find_elements(By.CSS_SELECTOR, "tr[data-offer]")
        ],
        # The page's renderer given the raw hostile text directly, whatever the service cleaned.
        "direct": driver.execute_script(RENDER_HOSTILE, HOSTILE),
        "pwned_after": driver.execute_script("return window.pwned;"),
    }


async def test_markup_in_a_providers_hotel_name_stays_inert_text(page_app, driver) -> None:  # type: ignore[no-untyped-def]
    faults(page_app).rewrite = {"name": HOSTILE}
    question = f"hotels in Rome from {ahead(30)} for 2 nights"
    url = str(page_app.make_url("/"))
    seen = await asyncio.to_thread(visit, driver, url, "page-hostile", drive_hostile, question)
    assert seen["pwned"] is None and seen["pwned_after"] is None
    assert seen["images"] == 0
    assert all(h.startswith(("http:", "https:")) for h in seen["hrefs"]), seen["hrefs"]
    assert "bold" in seen["text"].lower()
    # The name in the offer's row is the provider's markup as plain text.
    assert seen["rows"] and all("**bold**" in row.lower() for row in seen["rows"])
    direct = seen["direct"]
    assert "<img" not in direct["html"] and "javascript:" not in " ".join(direct["links"])
    assert "<img" in direct["text"]  # shown as the text it is
    assert direct["links"] == [url + "#src-probe-1"]  # only the citation is a link


EVIL_LINK = "[click here](http://evil.example/phish)"
EVIL_IMAGE = "![pixel](http://evil.example/p.png)"
# What the provider says, and the raw answer line as it would read had nothing escaped it.
REFUSAL = f"Invalid field: {EVIL_LINK} {EVIL_IMAGE} <http://evil.example/auto> please retry"
RAW_FAILURE = (
    f"I couldn't get flights: Duffel: {REFUSAL} [ref] www.evil.example\n\n[ref]: http://evil.example/ref"
)


@pytest_asyncio.fixture(loop_scope="module")
async def refusing_app(tmp_path: Any) -> AsyncIterator[TestClient]:
    """An app whose flights come from a Duffel look-alike on loopback that refuses every search with a
    hostile detail (a Markdown link and image); no guides, since the answer is the refusal."""

    async def refuse(request: web.Request) -> web.Response:
        error = {"type": "validation_error", "code": "invalid_field", "title": "Invalid", "message": REFUSAL}
        return web.json_response({"errors": [error], "meta": {"status": 422}}, status=422)

    provider = web.Application()
    provider.router.add_route("*", "/{tail:.*}", refuse)
    async with TestServer(provider) as server:
        settings = Settings(
            _env_file=None,
            server={"data_dir": tmp_path / "data"},
            index={"seed_on_start": False},
            scheduler={"enabled": False},
            connectors={
                "min_interval_ms": 0,
                "duffel_token": "test-token",
                "duffel_base_url": str(server.make_url("")),
                "providers": {"flight_search": "duffel"},
            },
        )
        async with TestClient(TestServer(create_app(settings))) as client:
            yield client


def drive_refusal(driver: webdriver.Chrome, question: str) -> dict[str, Any]:
    turn = ask(driver, question, 1)
    return {
        "text": turn.find_element(By.CSS_SELECTOR, ".answer").text,
        "calls": [li.text for li in turn.find_elements(By.CSS_SELECTOR, ".tool-calls li")],
        "images": len(driver.find_elements(By.CSS_SELECTOR, "#messages img")),
        "hrefs": [
            a.get_attribute("href") or "" for a in driver.find_elements(By.CSS_SELECTOR, "#messages a")
        ],
        # The page's renderer given the refusal unescaped: it makes no link of it either.
        "direct": driver.execute_script(RENDER_HOSTILE, RAW_FAILURE),
    }


async def test_a_providers_error_is_said_in_our_words_and_a_link_in_text_is_never_followed(
    refusing_app, driver
) -> None:  # type: ignore[no-untyped-def]
    question = f"flights from London to Paris on {ahead(34)}"
    url = str(refusing_app.make_url("/"))
    seen = await asyncio.to_thread(visit, driver, url, "page-refused", drive_refusal, question)
    assert seen["calls"] and "failed: provider_rejected" in seen["calls"][0]
    assert "couldn't get flights" in seen["text"] and "Duffel refused the request (HTTP 422)" in seen["text"]
    assert "evil" not in seen["text"] and "click here" not in seen["text"]  # the provider's words: the log's
    assert seen["images"] == 0 and not [h for h in seen["hrefs"] if "evil" in h], seen["hrefs"]
    direct = seen["direct"]
    assert "<img" not in direct["html"] and direct["links"] == [url + "#src-probe-1"]
    for written in (EVIL_LINK, EVIL_IMAGE, "<http://evil.example/auto>", "[ref]: http://evil.example/ref"):
        assert written in direct["text"], written
    turns = await settled_history(refusing_app, "page-refused", 2)
    assert "evil" not in turns[1]["text"]


SCROLL_TO_TOP = """
const done = arguments[0], scroller = document.getElementById('scroller');
scroller.addEventListener('scroll', () => done(scroller.scrollTop), {once: true});
scroller.scrollTop = 0;
"""
IN_VIEW = """
const view = document.getElementById('scroller').getBoundingClientRect();
return arguments[0].every((el) => {
  const r = el.getBoundingClientRect();
  return r.top >= view.top - 1 && r.bottom <= view.bottom + 1;
});
"""
RENDER_CALLS = """
const list = window.wayfarerRender.toolCallsList([
  {name: 'flight_search', provider: 'duffel', sandbox: false, results: [{}, {}], from_index: false, ingested: 0},
  {name: 'weather_forecast', provider: 'open_meteo', sandbox: true, result_count: 1, from_index: true, ingested: 0},
]);
return [...list.querySelectorAll('li')].map((li) => li.textContent);
"""


def settled(driver: webdriver.Chrome, turn: int) -> WebElement:
    """The `turn`th answer once it is drawn whole (its copy button comes with its lists)."""
    box = assistant(driver, turn)
    wait(driver, lambda d: box.find_elements(By.CSS_SELECTOR, ".actions"))
    return box


def drive_first_look(driver: webdriver.Chrome, day: dt.date, fault: SandboxFaults) -> dict[str, Any]:
    note = driver.find_element(By.ID, "sandbox-note")
    wait(driver, lambda d: note.is_displayed(), 10)
    out: dict[str, Any] = {
        "welcome": driver.find_element(By.ID, "welcome").is_displayed(),
        "examples": [b.text for b in driver.find_elements(By.CSS_SELECTOR, "#welcome button[data-ask]")],
        "note": note.text,
        "note_tools": driver.find_element(By.ID, "sandbox-tools").text,
    }
    # An example prompt is asked with one click.
    driver.find_element(By.CSS_SELECTOR, '#welcome button[data-ask^="Flights from London to Lisbon"]').click()
    first = settled(driver, 1)
    out["first_question"] = driver.find_element(By.CSS_SELECTOR, ".turn.user .text").text
    out["calls"] = [li.text for li in first.find_elements(By.CSS_SELECTOR, ".tool-calls li")]
    # The answer's sources as a Sources list would title them (its offers are table rows on the page).
    out["titles"] = driver.execute_async_script(SOURCE_TITLES, "page-first")
    # A reader opens a source, scrolls back up to re-read, then asks again: the new answer comes into view.
    for unfold in first.find_elements(By.CSS_SELECTOR, ".answer button.unfold"):
        unfold.click()  # its offers' list, folded under their table
    first.find_element(By.CSS_SELECTOR, ".answer a.cite").click()
    out["scrolled_up_to"] = driver.execute_async_script(SCROLL_TO_TOP)
    send(driver, "What's the weather in Lisbon this weekend?")
    second = settled(driver, 2)
    lists = second.find_elements(By.CSS_SELECTOR, ".tool-calls, .sources")
    out["second_lists"] = len(lists)
    out["second_in_view"] = driver.execute_script(IN_VIEW, lists)
    # A reader who scrolls up while an answer is written stays where they are when it ends.
    fault.latency_ms = 1500
    send(driver, f"flights from Paris to Madrid on {day.isoformat()}")
    third = assistant(driver, 3)
    out["third_busy"] = third.get_attribute("aria-busy") == "true"
    driver.execute_async_script(SCROLL_TO_TOP)
    out["third_busy_after_scroll"] = third.get_attribute("aria-busy") == "true"
    settled(driver, 3)
    fault.latency_ms = 0
    out["top_after_third"] = driver.execute_script("return document.getElementById('scroller').scrollTop;")
    out["rendered_calls"] = driver.execute_script(RENDER_CALLS)
    # The note can be hidden, and stays hidden in this tab; calls drawn from the history keep their label.
    driver.find_element(By.ID, "sandbox-hide").click()
    out["hidden"] = not note.is_displayed()
    driver.refresh()
    wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#messages .tool-calls")) >= 3, 30)
    out["hidden_after_reload"] = not driver.find_element(By.ID, "sandbox-note").is_displayed()
    out["calls_after_reload"] = [li.text for li in driver.find_elements(By.CSS_SELECTOR, ".tool-calls li")]
    return out


async def test_a_first_visit_says_what_to_ask_that_data_is_synthetic_and_keeps_answers_in_view(
    page_app, driver
) -> None:  # type: ignore[no-untyped-def]
    url = str(page_app.make_url("/"))
    day = dt.datetime.now(dt.UTC).date() + dt.timedelta(days=40)
    seen = await asyncio.to_thread(visit, driver, url, "page-first", drive_first_look, day, faults(page_app))
    assert seen["welcome"] and len(seen["examples"]) >= 4
    assert "synthetic" in seen["note"] and "README" in seen["note"]
    offline = seen["note_tools"].split(", ")
    assert {"flight_search", "hotel_search", "weather_forecast"} <= set(offline)
    assert "location_search" not in offline  # the place catalogue is real data
    assert seen["first_question"] == "Flights from London to Lisbon next Friday"
    # Sandbox calls are not labelled as if a real provider answered them.
    [call] = seen["calls"]
    assert call.startswith("flight_search · sandbox (synthetic)") and "duffel" not in call
    assert all(
        c.startswith(("flight_search · sandbox", "weather_forecast · sandbox"))
        for c in seen["calls_after_reload"]
    )
    assert seen["rendered_calls"] == [
        "flight_search via duffel 2 results",
        "weather_forecast · sandbox (synthetic) 1 result, from the index",
    ]
    # Long result titles end at a whole word with "…".
    cut = [(title, full) for title, full in seen["titles"] if len(full) > 100]
    assert cut, seen["titles"]
    for title, full in cut:
        kept = title.removesuffix("…")
        assert title.endswith("…") and len(title) <= 100 and full.startswith(kept), (title, full)
        assert not full[len(kept)].isalnum(), (title, full)
        assert unicodedata.category(kept[-1])[0] not in "PZ", title  # never ".…" or ",…"
    # The end of an answer (its tool calls, and its sources when they are not rows) is in view when it
    # completes...
    assert seen["scrolled_up_to"] == 0 and seen["second_lists"] >= 1 and seen["second_in_view"]
    # ...unless the reader scrolled up meanwhile.
    assert seen["third_busy"] and seen["third_busy_after_scroll"] and seen["top_after_third"] == 0
    assert seen["hidden"] and seen["hidden_after_reload"]


SOURCE_TITLES = """
const [user, done] = arguments;
fetch('v1/sessions/' + user).then((r) => r.json()).then((body) => {
  const turn = body.history.find((t) => t.role === 'assistant');
  const R = window.wayfarerRender;
  const list = R.sourcesList(R.numbered(turn.sources), 'probe');
  done([...list.querySelectorAll('li')].map((li) =>
    [li.querySelector('.source-title').textContent, li.querySelector('.excerpt').textContent]));
});
"""
WATCH_SOURCES_LINE = """
window.sawSourcesLine = false;
new MutationObserver(() => {
  for (const a of document.querySelectorAll('#messages .answer')) {
    if (a.textContent.includes('Sources:')) window.sawSourcesLine = true;
  }
}).observe(document.getElementById('messages'), {subtree: true, childList: true, characterData: true});
"""
TOP_OF_FIRST_TURN = """
const scroller = document.getElementById('scroller');
window.firstTurn = window.firstTurn || document.querySelector('#messages .turn');
return window.firstTurn.getBoundingClientRect().top - scroller.getBoundingClientRect().top;
"""
CITES_RESOLVE = """
return [...arguments[0].querySelectorAll('.answer a.cite')].map((a) => {
  const li = document.getElementById(a.getAttribute('href').slice(1));
  return Boolean(li && li.closest('.sources, table.offers') && arguments[0].contains(li) && li.dataset.n === a.dataset.n);
});
"""
TIMES = "return [...document.querySelectorAll('#messages time')].map((t) => [t.className, t.textContent, t.dateTime]);"


def turn_count(driver: webdriver.Chrome) -> int:
    return len(driver.find_elements(By.CSS_SELECTOR, "#messages .turn"))


def drive_earlier(driver: webdriver.Chrome, question: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    wait(driver, lambda d: turn_count(d) == 20, 30)  # the latest page of 22
    earlier = driver.find_element(By.ID, "earlier")
    out["earlier_at_first"] = earlier.is_displayed()
    # An answer streams in: at no moment does its bubble show the Sources line; the list is under it.
    driver.execute_script(WATCH_SOURCES_LINE)
    answer = ask(driver, question, 11)
    out["streamed_text"] = answer.find_element(By.CSS_SELECTOR, ".answer").get_attribute("textContent")
    out["streamed_sources"] = cited(answer)
    out["saw_sources_line"] = driver.execute_script("return window.sawSourcesLine;")
    # After a reload: the latest 20 of 24 turns, and the control for the 4 before them.
    driver.refresh()
    wait(
        driver,
        lambda d: (
            turn_count(d) == 20
            and d.find_elements(By.CSS_SELECTOR, ".turn.assistant .sources, .turn.assistant tr[data-offer]")
        ),
    )
    last = driver.find_elements(By.CSS_SELECTOR, ".turn.assistant")[-1]
    out["redrawn_text"] = last.find_element(By.CSS_SELECTOR, ".answer").get_attribute("textContent")
    out["redrawn_sources"] = cited(last)
    out["cites_resolve"] = driver.execute_script(CITES_RESOLVE, last)
    out["times"] = driver.execute_script(TIMES)
    earlier = driver.find_element(By.ID, "earlier")
    out["earlier_after_reload"] = earlier.is_displayed()
    out["latest"] = conversation(driver)
    # The reader goes up to the first turn shown and asks for the earlier ones: they appear above it,
    # and the turn the reader was looking at stays where it was.
    driver.execute_async_script(SCROLL_TO_TOP)
    out["top_before"] = driver.execute_script(TOP_OF_FIRST_TURN)
    earlier.click()
    wait(driver, lambda d: turn_count(d) == 24, 30)
    out["top_after"] = driver.execute_script(TOP_OF_FIRST_TURN)
    out["earlier_at_the_start"] = earlier.is_displayed()
    out["all"] = conversation(driver)
    out["times_all"] = driver.execute_script(TIMES)
    return out


async def test_a_reload_of_a_long_conversation_offers_earlier_messages_and_shows_sources_once(
    page_app, driver
) -> None:  # type: ignore[no-untyped-def]
    user = "page-earlier"
    sessions = page_app.app[keys.CHAT].sessions
    for i in range(11):  # 22 turns: more than one page of 20
        await sessions.append(user, "user", f"earlier question {i}", id=f"e{i}")
        await sessions.append(user, "assistant", f"earlier answer {i}", id=f"e{i}", sources=[], tool_calls=[])
    question = f"flights from London to Lisbon on {ahead(33)}"
    url = str(page_app.make_url("/"))
    seen = await asyncio.to_thread(visit, driver, url, user, drive_earlier, question)
    saved = (await (await page_app.get(f"/v1/sessions/{user}?limit=50")).json())["history"]
    assert len(saved) == 24 and saved[-1]["text"].splitlines()[-1].startswith(
        "Sources: [1]"
    )  # the API keeps it
    assert seen["earlier_at_first"] and seen["earlier_after_reload"]
    # Sources once: the list, not the line, for the streamed answer and for the one drawn after the reload.
    assert not seen["saw_sources_line"]
    for text, sources in (
        (seen["streamed_text"], seen["streamed_sources"]),
        (seen["redrawn_text"], seen["redrawn_sources"]),
    ):
        assert "Sources:" not in text and "[1]" in text, text
        assert sources and sources[0].startswith("[1]")
        assert [int(s[1 : s.index("]")]) for s in sources] == list(range(1, len(sources) + 1)), sources
    assert seen["cites_resolve"] and all(seen["cites_resolve"])
    # The latest 20, then all 24 in order once the earlier ones are loaded, where the reader was.
    assert [t for _, t, _ in seen["latest"]] == [t for _, t, _ in seen["all"][4:]]
    assert [t for c, t, _ in seen["all"] if "user" in c] == [t["text"] for t in saved if t["role"] == "user"]
    assert [c.split()[1] for c, _, _ in seen["all"]] == [t["role"] for t in saved]
    assert not seen["earlier_at_the_start"]
    assert abs(seen["top_after"] - seen["top_before"]) <= 1, (seen["top_before"], seen["top_after"])
    # One time format for every time on the page: each turn's and each source's fetch time.
    times = seen["times_all"]
    assert sum(cls == "turn-at" for cls, _, _ in times) == 24
    assert any(text.startswith("fetched ") for _, text, _ in times)
    for _, text, iso in times:
        at = dt.datetime.fromisoformat(iso).astimezone(dt.UTC)
        assert text.removeprefix("fetched ") == at.strftime("%Y-%m-%d %H:%M UTC"), (text, iso)
    assert {iso for _, _, iso in times} >= {t["at"] for t in saved}


SOURCES_LINE_AWAY = """
const R = window.wayfarerRender, out = [];
for (const text of arguments[0]) {
  const streamed = R.answer(text, 'probe');
  const settled = R.answer(text, 'probe', [{n: 1}, {n: 2}]);
  out.push([streamed.textContent, settled.textContent, settled.querySelectorAll('a.cite').length]);
}
return out;
"""


def drive_sources_line(driver: webdriver.Chrome, texts: list[str]) -> list[list[Any]]:
    return driver.execute_script(SOURCES_LINE_AWAY, texts)  # type: ignore[no-any-return]


async def test_the_sources_line_is_left_out_of_the_bubble_in_every_language(page_app, driver) -> None:  # type: ignore[no-untyped-def]
    listed = "[1] Lisbon City Guide — Getting around; [2] flight offer, duffel, fetched 2026-11-23 01:40 UTC"
    lines = {lang: message(lang, "sources", sources=listed) for lang in phrases()}
    texts = [f"Take the metro [1], or fly [2].\n{line}" for line in lines.values()]
    url = str(page_app.make_url("/"))
    drawn = await asyncio.to_thread(visit, driver, url, "page-lines", drive_sources_line, texts)
    for (lang, line), (streamed, settled, cites) in zip(lines.items(), drawn, strict=True):
        head = re.split(r"\s*:", line)[0]
        for shown in (streamed, settled):
            assert "Take the metro [1], or fly [2]." in shown and head not in shown, (lang, shown)
            assert "2026-11-23" not in shown
        assert cites == 2, lang  # the [n] in the text still link to the list
