"""The built site opened from files in headless Chromium (Debian's, driven by playwright).

One site is built for the module: every bundled ruleset and golden case, the reference engine
and a mutant engine side by side, and the diff da → sv. Where the browser is missing the tests
skip, except when the environment says it must be there (`CI`, set by CI, or
`ESCOBA_REQUIRE_BROWSER`): then they fail, so CI cannot pass without having looked.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from escoba.site.browser import CHROMIUM, browser_context, chromium_path, file_url
from escoba.site.build import Options, build

ENGINES = Path(__file__).resolve().parent / "engines"
MUTANT = "leftovers-to-dealer"  # fails the cases where the last capturer is not the dealer


def _required() -> bool:
    return any(os.environ.get(name, "").lower() not in ("", "0", "false") for name in ("CI", "ESCOBA_REQUIRE_BROWSER"))


def _browser_or_skip() -> None:
    missing = []
    if chromium_path() is None:
        missing.append(f"Chromium ({CHROMIUM}; apt-get install chromium)")
    try:
        import playwright  # noqa: F401
    except ModuleNotFoundError:
        missing.append("the playwright package (pip install '.[test]')")
    if missing:
        message = "browser tests need " + " and ".join(missing)
        if _required():
            pytest.fail(message + ", and CI requires them", pytrace=False)
        pytest.skip(message)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    _browser_or_skip()
    out = tmp_path_factory.mktemp("site") / "site"
    python = shlex.quote(sys.executable)
    options = Options(
        out=out,
        engines=[f"{python} -m escoba engine", f"{python} {shlex.quote(str(ENGINES / 'mutant_engine.py'))} {MUTANT}"],
        diffs=[("da", "sv")],
        diff_hands=300,
    )
    build(options)
    return out


@pytest.fixture(scope="module")
def browser(site):
    with browser_context() as context:
        yield context


def _page(browser, errors: list[str]):
    page = browser.new_page()
    page.on("console", lambda m: errors.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: errors.append(f"request failed: {r.url}"))
    page.on("request", lambda r: None if r.url.startswith(("file:", "data:")) else errors.append(f"fetched: {r.url}"))
    return page


def test_every_page_loads_clean_and_every_link_resolves(site, browser):
    """Each page loads with no console error and fetches nothing; every link names a page and an id that exist."""
    errors: list[str] = []
    page = _page(browser, errors)
    pages = sorted(site.rglob("*.html"))
    ids: dict[Path, set[str]] = {}
    links: list[tuple[Path, str]] = []
    for path in pages:
        page.goto(file_url(path))
        found = page.evaluate(
            """() => ({
                ids: Array.from(document.querySelectorAll('[id]'), e => e.id),
                links: Array.from(document.querySelectorAll('a[href], link[href], script[src], use[href]'),
                                  e => e.href && e.href.baseVal !== undefined ? e.href.baseVal : (e.href || e.src)),
            })"""
        )
        ids[path.resolve()] = set(found["ids"])
        links += [(path, link) for link in found["links"]]
    page.close()
    assert errors == []
    assert len(pages) > 150
    broken = []
    for origin, link in links:
        if link.startswith("#"):  # an SVG <use>: the symbol is on the same page
            target, fragment = origin.resolve(), link[1:]
        elif link.startswith("data:"):
            continue
        else:
            parts = urlsplit(link)
            assert parts.scheme == "file", f"{origin.name} links outside the site: {link}"
            target, fragment = Path(unquote(parts.path)).resolve(), unquote(parts.fragment)
        if not target.is_file() or site.resolve() not in target.parents:
            broken.append(f"{origin.relative_to(site)} → {link}")
        elif fragment and target.suffix == ".html" and fragment not in ids.get(target, set()):
            broken.append(f"{origin.relative_to(site)} → {link} (no id {fragment})")
    assert broken == []


def _step_to_the_end(page) -> int:
    steps = page.locator("[data-viewer] li.step").count()
    for _ in range(steps - 1):
        page.keyboard.press("ArrowRight")
    return steps


def test_viewer_steps_through_the_swedish_game_to_4_2(site, browser):
    """The Swedish game opens on the deal; arrow keys and buttons step it card by card to the 4–2 table."""
    errors: list[str] = []
    page = _page(browser, errors)
    page.goto(file_url(site / "games" / "sv.example-game.html"))
    visible = page.locator("li.step:visible")
    assert visible.count() == 1
    assert "Ada deals" in visible.inner_text()
    assert visible.locator(".table .card").count() == 4
    page.locator("[data-viewer]").focus()
    page.keyboard.press("ArrowRight")
    assert page.locator("li.step:visible .step-title").inner_text().startswith("You plays 7♦ and takes")
    assert page.locator("li.step:visible .played .card").count() == 3  # 7♦ takes 3♣ 5♥
    steps = _step_to_the_end(page)
    assert page.locator("[data-counter]").inner_text() == f"step {steps} / {steps}"
    last = page.locator("li.step:visible")
    assert last.locator("[data-final]").inner_text() == "4–2"
    rows = last.locator("table.scoring tbody tr")
    assert [rows.nth(i).locator("th").inner_text() for i in range(rows.count())] == ["escobas", "cards", "coins", "velo", "sevens"]
    assert page.locator("[data-go=next]").is_disabled()
    page.locator("[data-go=first]").click()
    assert page.locator("[data-counter]").inner_text() == f"step 1 / {steps}"
    page.locator("[data-go=next]").click()
    assert page.locator("[data-counter]").inner_text() == f"step 2 / {steps}"
    assert errors == []


def test_front_page_shows_the_game_beside_the_texts_sentences(site, browser):
    """The front page's showcase steps with the text's sentences; the faces switch between decks."""
    errors: list[str] = []
    page = _page(browser, errors)
    page.goto(file_url(site / "index.html"))
    says = page.locator("li.step:visible .text-says blockquote")
    assert "Ada vänder upp fyra kort" in says.first.inner_text()
    card = page.locator("li.step:visible .table .card").nth(2)  # Kn♠, the sota of espadas
    assert card.inner_text().split()[0] == "Kn"  # the Swedish text's own French-suited deck
    page.locator("[data-faces=spanish]").click()
    assert card.inner_text().split()[0] == "S"
    assert card.locator("svg").is_visible()
    page.locator("[data-faces=french]").click()
    page.locator("[data-viewer]").focus()
    steps = _step_to_the_end(page)
    assert steps > 40
    assert page.locator("li.step:visible [data-final]").inner_text() == "4–2"
    assert "slutar given 4–2 till dig" in page.locator("li.step:visible .text-says").inner_text()
    assert errors == []


def test_matrix_filter_hides_and_shows_rows(site, browser):
    """Unticking an area hides its rows; ticking it shows them; 'only differences' hides rows that agree."""
    page = _page(browser, [])
    page.goto(file_url(site / "matrix.html"))
    scoring = page.locator("table.matrix tbody tr[data-area=scoring]:not(.area-head)")
    total = scoring.count()
    assert total > 5 and all(scoring.nth(i).is_visible() for i in range(total))
    page.locator("input[name=area][value=scoring]").uncheck()
    assert all(not scoring.nth(i).is_visible() for i in range(total))
    assert page.locator("tr[data-area=deal]:not(.area-head)").first.is_visible()
    page.locator("input[name=area][value=scoring]").check()
    assert all(scoring.nth(i).is_visible() for i in range(total))
    page.locator("input[name=differs]").check()
    same = page.locator("table.matrix tbody tr[data-differs=no]")
    differ = page.locator("table.matrix tbody tr[data-differs=yes]")
    assert same.count() > 0 and differ.count() > 0
    assert not same.first.is_visible() and differ.first.is_visible()
    shown = int(page.locator("[data-shown]").inner_text().split()[0])
    assert shown == differ.count()


def test_conformance_page_shows_the_mutants_first_divergence(site, browser):
    """The mutant's page lists its failures; opening one shows the first divergence, the field diff and the replay."""
    errors: list[str] = []
    page = _page(browser, errors)
    page.goto(file_url(site / "conformance" / "index.html"))
    assert page.locator("table.engines tbody tr").count() == 2
    mixed = page.locator("table.side-by-side tr.mixed th").all_inner_texts()
    assert "leftovers go to the" in mixed and "deck" not in mixed, mixed
    page.locator("table.engines tbody tr", has_text=MUTANT).locator("a").first.click()
    failing = page.locator("tr.oc-row-fail details.failure")
    assert failing.count() > 0
    first = failing.first
    assert not first.locator(".divergence").is_visible()
    first.locator("> summary").click()
    divergence = first.locator(".divergence")
    assert divergence.is_visible()
    assert "First divergence at event" in divergence.inner_text()
    assert "leftovers" in divergence.inner_text()
    assert first.locator("table.field-diff tbody tr").count() >= 1
    replay = first.locator(".replay code").inner_text()
    assert replay.startswith("escoba conformance --engine") and MUTANT in replay and "--case" in replay
    profile = page.locator("#point-leftovers\\.to")
    assert profile.locator(".verdict").inner_text() == "differs"
    assert page.locator("#point-deck\\.ranks .verdict").inner_text() == "agrees"
    assert errors == []


def test_diff_page_draws_its_charts(site, browser):
    """The da → sv page has the three views and its five charts drawn as SVG, the paired differences among them."""
    page = _page(browser, [])
    page.goto(file_url(site / "diffs" / "da-vs-sv.html"))
    for section in ("#rules", "#rescore", "#simulation"):
        assert page.locator(section).is_visible()
    # points, winners, intervals, matches, and the paired B − A chart that escoba diff now reports
    assert page.locator("svg.chart").count() == 5
    assert page.locator("svg.chart rect.a").count() > 3
    assert "primera" in page.locator("#rules").inner_text()
