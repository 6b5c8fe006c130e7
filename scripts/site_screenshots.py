"""Regenerate the site screenshots in docs/screenshots/ (PNG), from a fresh build of the site.

    python scripts/site_screenshots.py            # needs '.[test]' and Debian's chromium

Builds the site into a temporary folder with the reference engine and a mutant engine side by
side and the diff da → sv, opens it in headless Chromium (escoba.site.browser) and takes a
1280×860 shot of each page below. docs/site.md shows them; README links to them.
"""

from __future__ import annotations

import shlex
import sys
import tempfile
from pathlib import Path

from escoba.site.browser import browser_context, file_url
from escoba.site.build import Options, build

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "screenshots"
MUTANT = "leftovers-to-dealer"


def shots(site: Path) -> list[tuple[str, str, str | None]]:
    """(file name, page, JavaScript to run first) for each screenshot."""
    return [
        ("front-page.png", "index.html", "document.querySelector('.showcase').scrollIntoView()"
         + ";document.querySelector('[data-go=next]').click()"),
        ("ruleset-sv.png", "rulesets/sv.html#p-turn-leader", None),
        ("matrix.png", "matrix.html", "document.querySelector('input[name=differs]').click()"),
        ("game-spanish-suits.png", "games/partnerships.4p.de.html#step-6", None),
        ("game-swedish-final.png", "games/sv.example-game.html#step-44", None),
        ("conformance-failure.png", "conformance/engine-2.html",
         "const d = document.querySelector('tr.oc-row-fail details'); d.open = true; d.scrollIntoView()"),
        ("diff-da-sv.png", "diffs/da-vs-sv.html#rescore", None),
    ]  # fmt: skip


def main() -> int:
    python = shlex.quote(sys.executable)
    mutant = f"{python} {shlex.quote(str(ROOT / 'tests' / 'engines' / 'mutant_engine.py'))} {MUTANT}"
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        build(Options(out=site, engines=[f"{python} -m escoba engine", mutant], diffs=[("da", "sv")]))
        OUT.mkdir(parents=True, exist_ok=True)
        with browser_context(1280, 860) as context:
            page = context.new_page()
            for name, where, script in shots(site):
                path, _, fragment = where.partition("#")
                page.goto(file_url(site / path) + (f"#{fragment}" if fragment else ""))
                if script:
                    page.evaluate(f"() => {{ {script} }}")
                page.wait_for_timeout(150)
                page.screenshot(path=str(OUT / name))
                print(f"wrote docs/screenshots/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
