"""Text from outside, made safe for where it is written: one function per medium.

Whatever an engine, a case file, an expectations file or a ruleset says (an engine's name and
version, its refusal messages, a case's id and notes, a ruleset's title) may hold anything:
terminal escape sequences, a bell, line breaks that forge a line of a report, U+FFFE, text a
megabyte long. Each medium it reaches has one function here, and every writer of that medium
calls it on such text:

- `terminal`: a report line on a terminal (or a text log). One line, every character that is
  not printable (controls, escape sequences, line breaks, invisible format characters such as
  bidirectional overrides, noncharacters, lone surrogates) written as its Python escape
  (`\\x1b`, `\\n`, `\\u202e`), so that it shows exactly what was said and runs nothing.
- `xml`: the text of an XML element or attribute (the JUnit report). The same escapes for
  every character that is not printable except tab and line feed, which XML holds, in text of
  several lines (a name or a one-line message escapes them too); among them all that XML 1.0
  cannot hold at all (a parser refuses the whole document for one of them). The serializer
  (ElementTree) escapes the markup characters.
- `yaml_comment`: text inside a `#` comment of a YAML file (`escoba new`). One line, and no
  character YAML refuses: a line break would end the comment and make the rest live YAML.
- `html`: text in an HTML page (the site, `matrix --format html`): the markup characters
  escaped as markupsafe escapes them (what Jinja2 autoescaping writes), and the characters
  that are not printable except tab and line feed written as their escapes.

Printable text of any script (cards' suit symbols, accents, CJK) is left as it is. Escaping is
idempotent: text escaped once is printable, and escaping it again changes nothing (`html`
aside, whose markup escapes are applied once, where the page is written).
"""

from __future__ import annotations

_HTML = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;"})


def _escaped(text: str, keep: str = "") -> str:
    """`text` with each character that is not printable, except those in `keep`, written as
    its Python escape."""
    if text.isprintable():
        return text
    # repr escapes exactly the characters that are not printable (and a quote, which is printable)
    return "".join(c if c.isprintable() or c in keep else repr(c)[1:-1] for c in text)


def shorten(text: str, limit: int | None) -> str:
    """`text` cut to `limit` characters, saying how long it was (as it is, for no limit)."""
    if limit is None or len(text) <= limit:
        return text
    return f"{text[: max(limit - 1, 0)]}… ({len(text)} characters)"


def terminal(text: str, limit: int | None = None) -> str:
    """`text` as one printable line for a terminal, cut after `limit` characters if given."""
    return shorten(_escaped(text), limit)


def xml(text: str, limit: int | None = None, *, lines: bool = True) -> str:
    """`text` as XML 1.0 can hold it (for ElementTree to serialize): tab and line feed kept in
    text of several `lines` (an element's text), escaped too in a one-line name or message."""
    return shorten(_escaped(text, "\t\n" if lines else ""), limit)


def yaml_comment(text: str, limit: int | None = None) -> str:
    """`text` for the inside of a YAML `#` comment: one line of characters YAML accepts."""
    # YAML's line breaks (\n, \r, \x85, \u2028, \u2029) and the characters it refuses (C0 and
    # C1 controls, surrogates, U+FFFE, U+FFFF) are all not printable: the terminal's rule is
    # YAML's too.
    return terminal(text, limit)


def html(text: str, limit: int | None = None) -> str:
    """`text` for an HTML page, markup escaped, tab and line feed kept."""
    return shorten(_escaped(text, "\t\n"), limit).translate(_HTML)


__all__ = ["html", "shorten", "terminal", "xml", "yaml_comment"]
