"""Every medium's one escaping (escoba.escape) against the same hostile texts."""

from __future__ import annotations

import html as html_module
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

from escoba import escape
from escoba.rules.yamlload import load_text

from .texts import HOSTILE, NEVER_RAW

NAMES = list(HOSTILE)


def _raw(text: str, kept: str = "") -> set[str]:
    return {c for c in text if c in NEVER_RAW and c not in kept}


@pytest.mark.parametrize("name", NAMES)
def test_terminal_text_is_one_printable_line(name: str) -> None:
    """On a terminal every hostile text is one line of printable characters, escaped once and for all."""
    shown = escape.terminal(HOSTILE[name])
    assert shown.isprintable() and not _raw(shown)
    assert escape.terminal(shown) == shown
    assert len(escape.terminal(HOSTILE[name], 200)) <= 200 + len("… (100000 characters)")


def test_printable_text_of_any_script_is_kept() -> None:
    """Accents, the suits and other printable text reach every medium as written (markup aside in HTML)."""
    text = HOSTILE["accented-and-suits"]
    assert escape.terminal(text) == escape.xml(text) == escape.yaml_comment(text) == escape.html(text) == text


@pytest.mark.parametrize("name", NAMES)
def test_xml_text_is_well_formed_xml(name: str) -> None:
    """A hostile text as an element's text and as an attribute makes a document an XML parser
    accepts, in UTF-8, holding the text escaped (tab and line feed kept)."""
    element = ET.Element("testcase", name=escape.xml(HOSTILE[name]))
    element.text = escape.xml(HOSTILE[name])
    document = ET.tostring(element, encoding="utf-8")
    parsed = ET.fromstring(document)
    assert parsed.text == escape.xml(HOSTILE[name]) and parsed.get("name") == escape.xml(HOSTILE[name])
    assert not _raw(parsed.text or "", "\t\n")
    one_line = escape.xml(HOSTILE[name], lines=False)
    assert ET.fromstring(ET.tostring(ET.Element("testcase", name=one_line))).get("name") == one_line
    assert one_line.isprintable()


@pytest.mark.parametrize("name", NAMES)
def test_yaml_comment_stays_a_comment(name: str) -> None:
    """A hostile text inside a `#` comment leaves the document's data as it was, and the
    ruleset loader (which refuses control characters) reads it."""
    comment = escape.yaml_comment(HOSTILE[name])
    document = load_text(f"# {comment}\ndsl: 1\nid: x  # {comment}\n", "x.yaml")
    assert document.data == {"dsl": 1, "id": "x"}
    assert "\n" not in comment and not _raw(comment)


class _Parts(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list]] = []
        self.data: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append((tag, attrs))

    def handle_data(self, data: str) -> None:
        self.data.append(data)


@pytest.mark.parametrize("name", NAMES)
def test_html_text_is_text_and_never_markup(name: str) -> None:
    """A hostile text in an HTML element and in an attribute is one text node and one attribute
    value: no tag of its own, nothing that is not printable but tab and line feed."""
    shown = escape.html(HOSTILE[name])
    parts = _Parts()
    parts.feed(f'<p title="{shown}">{shown}</p>')
    parts.close()
    assert parts.tags == [("p", [("title", html_module.unescape(shown))])]
    assert "".join(parts.data) == html_module.unescape(shown)
    assert not _raw(html_module.unescape(shown), "\t\n")


def test_html_escapes_markup_as_jinja_autoescaping_does() -> None:
    """The markup characters are written as markupsafe writes them, so pages built from
    templates and from code read the same."""
    markupsafe = pytest.importorskip("markupsafe")
    text = HOSTILE["markup"]
    assert escape.html(text) == str(markupsafe.escape(text))
