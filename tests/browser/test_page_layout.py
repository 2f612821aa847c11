"""The ask page's layout in real Chromium: a new answer is brought into view however it was asked
(streamed, through htmx, or without JavaScript), without smooth scrolling when the reader asked
for reduced motion and without taking the focus from the question box; on a phone (390 px) the
header keeps every word whole and the conversation comes before the recent questions, while a
desktop (1280 px) keeps the recent questions beside it.

Screenshots are taken only when `RAGSPINE_SCREENSHOTS` names a folder (`1` means docs/screenshots/):
page-scrolled.png (the viewport just after the fifth answer arrived) and page-phone.png.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from tests.browser.support import CLEARED, PASSWORD, ask, login, shot, shots_folder

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

QUESTIONS = (
    "集团2025年营收是多少",
    "香港2024年营收是多少",
    "集团2021至2025年各年营收，每年增长多少",
    "中国内地FY2025的营收是多少",
)
FIFTH = "集团2024年和2025年营收对比"

# Every scroll the page asks for, with the behaviour it asked for: reduced motion means no "smooth".
RECORD_SCROLLS = """
window.__scrolls = [];
for (const [owner, name] of [[Element.prototype, "scrollIntoView"], [Element.prototype, "scrollTo"],
                             [Element.prototype, "scrollBy"], [window, "scrollTo"], [window, "scrollBy"]]) {
  const original = owner[name];
  owner[name] = function (...args) {
    const options = args[0];
    const behavior = options && typeof options === "object" ? options.behavior || "auto" : "auto";
    window.__scrolls.push({name, behavior});
    return original.apply(this, args);
  };
}
"""

# Where the newest turn's question sits: it must be on screen, above the (sticky) ask form.
NEWEST = """() => {
  const turns = document.querySelectorAll("#conversation article.turn");
  const turn = turns[turns.length - 1];
  const question = turn.querySelector(".question").getBoundingClientRect();
  const form = document.getElementById("ask-form").getBoundingClientRect();
  return {count: turns.length, top: turn.getBoundingClientRect().top, questionBottom: question.bottom,
          formTop: Math.min(form.top, window.innerHeight), height: window.innerHeight,
          page: document.documentElement.scrollHeight, scrollY: window.scrollY,
          focus: document.activeElement ? (document.activeElement.id || document.activeElement.tagName) : null,
          focusInTurn: turn.contains(document.activeElement)};
}"""
IN_VIEW = f"({NEWEST})().top >= -1 && ({NEWEST})().questionBottom <= ({NEWEST})().formTop"


def newest(page) -> dict:
    return page.evaluate(NEWEST)


def assert_newest_in_view(page, count: int) -> dict:
    where = newest(page)
    assert where["count"] == count
    assert where["top"] >= -1, f"the new turn starts above the viewport: {where}"
    assert where["questionBottom"] <= where["formTop"], f"the new turn's question is below the viewport: {where}"
    return where


def to_top(page) -> None:
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_function("window.scrollY === 0")


def test_a_streamed_answer_is_scrolled_to_without_smooth_scrolling_if_motion_is_reduced(browser, cleared_site) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN", reduced_motion="reduce")
    context.add_init_script(RECORD_SCROLLS)
    page = context.new_page()
    login(page, cleared_site, CLEARED)
    streamed: list[str] = []
    page.on("response", lambda r: r.url.endswith("/ask") and streamed.append(r.headers.get("content-type", "")))

    for number, question in enumerate(QUESTIONS, start=1):
        if number == len(QUESTIONS):
            to_top(page)  # the reader went back up to the first answer: the fourth lands below the viewport
        ask(page, question)
        where = assert_newest_in_view(page, number)
        assert not where["focusInTurn"] and where["focus"] in ("question", "BUTTON"), where  # focus stays on the form
    to_top(page)
    below = page.evaluate("document.getElementById('conversation').getBoundingClientRect().bottom")
    assert below > 1.5 * page.viewport_size["height"], below  # the fifth lands well below the viewport
    ask(page, FIFTH)
    assert_newest_in_view(page, len(QUESTIONS) + 1)

    assert all(kind.startswith("text/event-stream") for kind in streamed) and len(streamed) == len(QUESTIONS) + 1
    scrolls = page.evaluate("window.__scrolls")
    assert scrolls and all(s["behavior"] != "smooth" for s in scrolls), scrolls
    shot(page, "page-scrolled.png")
    context.close()


def test_a_streamed_answer_is_scrolled_to_smoothly_and_a_draft_keeps_the_question_box(browser, cleared_site) -> None:
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, locale="zh-CN", reduced_motion="no-preference"
    )
    context.add_init_script(RECORD_SCROLLS)
    page = context.new_page()
    login(page, cleared_site, CLEARED)
    for question in QUESTIONS[:3]:
        ask(page, question)
    to_top(page)

    page.fill("#question", QUESTIONS[3])
    page.click("#ask-form button[type=submit]")
    page.focus("#question")
    page.keyboard.type("那香港呢")  # the next question, typed while the answer streams in
    page.locator("article.turn").nth(3).wait_for()
    page.wait_for_function("document.querySelectorAll('article.turn.streaming').length === 0")
    page.wait_for_function(IN_VIEW)
    assert_newest_in_view(page, 4)
    assert page.evaluate("document.activeElement.id") == "question"
    assert page.input_value("#question") == "那香港呢"
    assert any(s["behavior"] == "smooth" for s in page.evaluate("window.__scrolls"))
    context.close()


@pytest.mark.parametrize("via", ["narrowing-chip", "form-without-streaming"])
def test_an_answer_asked_through_htmx_is_scrolled_to(browser, cleared_site, via: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN", reduced_motion="reduce")
    if via == "form-without-streaming":  # no streaming fetch: the ask form falls back to htmx
        context.add_init_script("delete window.ReadableStream;")
    page = context.new_page()
    login(page, cleared_site, CLEARED)
    # the series answer last: the tallest, so that scrolling to the page's end would hide its top
    first = "营收是多少" if via == "narrowing-chip" else QUESTIONS[0]  # an assumption, with narrowing chips
    for number, question in enumerate((first, QUESTIONS[1], QUESTIONS[3], QUESTIONS[2]), start=1):
        ask(page, question)
        assert_newest_in_view(page, number)
    to_top(page)
    if via == "narrowing-chip":  # a narrowing option of the first answer: its button posts through htmx
        page.locator("#turn-0 .answer .chips button.chip").first.click()
    else:
        page.fill("#question", QUESTIONS[2])
        page.click("#ask-form button[type=submit]")
    page.locator("article.turn").nth(4).wait_for()
    page.wait_for_function(IN_VIEW)
    page.wait_for_timeout(300)  # htmx settles 20 ms after the swap: nothing may scroll it away then
    assert_newest_in_view(page, 5)
    context.close()


def test_an_answer_asked_without_javascript_is_scrolled_to(browser, cleared_site) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN", java_script_enabled=False)
    page = context.new_page()
    login(page, cleared_site, CLEARED)
    for number, question in enumerate(QUESTIONS, start=1):
        page.fill("#question", question)
        page.click("#ask-form button[type=submit]")
        page.wait_for_url(f"{cleared_site}/#turn-{number - 1}")
        assert_newest_in_view(page, number)
    context.close()


# The header's items, each with the number of lines its text takes, and what overflows the viewport.
HEADER = """() => {
  const items = [...document.querySelectorAll(
    "header.top .brand, header.top nav a, header.top nav .user, header.top nav button")];
  const lines = (element) => {
    const range = document.createRange();
    range.selectNodeContents(element);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0).sort((a, b) => a.top - b.top);
    let count = 0, bottom = -Infinity;
    for (const r of rects) {  // a rect starting below the line so far starts a new line
      if (r.top >= bottom - 1) { count += 1; bottom = r.bottom; } else { bottom = Math.max(bottom, r.bottom); }
    }
    return count;
  };
  const width = document.documentElement.clientWidth;
  return {
    items: items.map((e) => ({
      text: e.textContent.trim(), lines: lines(e), right: e.getBoundingClientRect().right,
      clipped: e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).textOverflow !== "ellipsis",
    })),
    scrollWidth: document.documentElement.scrollWidth,
    outside: [...document.querySelectorAll("body *")]  // what sticks out, but for what scrolls inside its box
      .filter((e) => e.getBoundingClientRect().right > width + 1)
      .filter((e) => !e.closest(".table-wrap, .series-chart, .sheet-wrap"))
      .map((e) => e.tagName + "." + e.className).slice(0, 5),
  };
}"""


def assert_header_whole(page, width: int) -> None:
    header = page.evaluate(HEADER)
    assert header["scrollWidth"] <= width, header
    assert not header["outside"], header
    for item in header["items"]:
        assert item["lines"] == 1, f"{item['text']!r} wraps over {item['lines']} lines: {header}"
        assert item["right"] <= width and not item["clipped"], header


@pytest.fixture
def curator_too(cleared_site) -> str:
    """The demo site, where the curator (staff: the header shows Admin) logs in with `PASSWORD` too."""
    curator = get_user_model().objects.get(username="curator")
    curator.set_password(PASSWORD)
    curator.save()
    return cleared_site


@pytest.mark.parametrize(("user", "locale"), [(CLEARED, "zh-CN"), ("curator", "zh-CN"), (CLEARED, "en-US")])
def test_on_a_phone_the_header_keeps_its_words_whole(browser, curator_too, user: str, locale: str) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale=locale, reduced_motion="reduce")
    page = context.new_page()
    login(page, curator_too, user)
    assert_header_whole(page, 390)
    ask(page, QUESTIONS[0])
    assert_header_whole(page, 390)
    context.close()


def test_on_a_phone_the_conversation_comes_before_the_recent_questions(browser, cleared_site) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="zh-CN", reduced_motion="reduce")
    page = context.new_page()
    login(page, cleared_site, CLEARED)
    for question in QUESTIONS[:2]:
        ask(page, question)
    to_top(page)
    conversation = page.locator("#conversation").bounding_box()
    form = page.locator("#ask-form").bounding_box()  # sticky, but never below its section's end
    side = page.locator("aside.side")
    assert side.locator("ul.recent li").count() == 2
    recent = side.bounding_box()
    assert conversation["y"] + conversation["height"] <= recent["y"], (conversation, recent)
    assert form["y"] + form["height"] <= recent["y"], (form, recent)
    assert recent["x"] >= 0 and recent["x"] + recent["width"] <= 390
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.add_style_tag(content=".ask-form { position: static; }")  # a sticky bar would float mid-image
    full_shot(page, "page-phone.png")
    context.close()


def full_shot(page, name: str) -> None:
    """The whole page as `name`, when screenshots are asked for."""
    folder = shots_folder()
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / name), full_page=True)


def test_on_a_desktop_the_recent_questions_stay_beside_the_conversation(browser, cleared_site) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN", reduced_motion="reduce")
    page = context.new_page()
    login(page, cleared_site, CLEARED)
    ask(page, QUESTIONS[0])
    to_top(page)
    chat = page.locator("section.chat").bounding_box()
    side = page.locator("aside.side").bounding_box()
    assert side["x"] >= chat["x"] + chat["width"], (chat, side)  # to the right of it
    assert abs(side["y"] - chat["y"]) < 2, (chat, side)  # level with its top
    assert side["width"] < chat["width"] / 2
    assert_header_whole(page, 1280)
    context.close()
