"""The YAML parser's half of `yamlload`: PyYAML's events (libyaml's when present) composed into
plain data with a position for every node, refusing what a ruleset must not hold.

Imported only when a text must be parsed: PyYAML costs a good part of a short command's
start-up, and a file parsed before is read back from the cache folder (`yamlload.load_file`).
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)

from escoba.errors import Location, Problem, ValueProblem, quoted, shown
from escoba.rules.limits import BOM, MAX_CHARS, MAX_DEPTH, MAX_DIGITS, MAX_NODES
from escoba.rules.paths import Lines, Pos, child_path, item_path

try:  # libyaml is ten times faster; the pure-Python parser gives the same events
    from yaml import CSafeLoader as _Loader

    # libyaml reads the text as UTF-8 and reports a bad character at its byte offset.
    _BYTE_OFFSETS = True
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

    _BYTE_OFFSETS = False


_CORE = "tag:yaml.org,2002:"
# Explicit tags that name plain data; anything else (`!!python/...`, `!card`, `!!set`) is refused.
_PLAIN_TAGS = {f"{_CORE}{t}" for t in ("str", "int", "float", "bool", "null", "map", "seq")} | {"!"}
_TRUE, _FALSE = {"true", "True", "TRUE"}, {"false", "False", "FALSE"}
_NULL = {"", "~", "null", "Null", "NULL"}
# YAML 1.1 booleans that YAML 1.2 reads as text; PyYAML leaves out y/n, other parsers do not.
_BOOL_11 = {"yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF", "y", "Y", "n", "N"}
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)\Z")
_FLOAT = re.compile(r"[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\Z")
_RESOLVER = yaml.resolver.Resolver()


def _first_index_after_bom() -> int:
    """Where the parser says the character after a leading U+FEFF is: libyaml takes it as a
    byte-order mark and does not count it (0), the pure-Python parser counts it (1)."""
    loader = _Loader(BOM + "a")
    while not isinstance(event := loader.get_event(), ScalarEvent):
        pass
    assert event.start_mark is not None  # the loader always marks its events
    return event.start_mark.index


_BOM_SHIFT = 1 - _first_index_after_bom()


class _Abort(Exception):
    """Stop composing: the problem already recorded makes going on pointless."""



class _Composer:
    def __init__(self, text: str, file: str):
        self.loader: Any = None  # made in run(): the pure-Python parser checks the characters at once
        self.text = text
        self.file = file
        self._lines: Lines | None = None
        # libyaml does not count a (second) leading U+FEFF that an editor shows as a character.
        self.shift = _BOM_SHIFT if text.startswith(BOM) else 0
        # With LF line breaks only and no leading U+FEFF (which neither parser counts in its
        # column), the parser's line and column are the editor's, but past the last line, where
        # libyaml ends a text with no final line break on a line of its own.
        self.same_lines = not text.startswith(BOM) and not any(c in text for c in "\r\x85\u2028\u2029")
        self.last_line = text.count("\n")  # 0-based, as the parser counts
        self.problems: list[Problem] = []
        # A problem that leaves no document to read (a syntax error, an abuse stopped halfway,
        # a top that is not a mapping). The others (a YAML 1.1 boolean kept as its text, a
        # duplicate key whose first value is kept, ...) leave plain data worth checking further.
        self.unreadable = False
        self.positions: dict[str, Pos] = {}
        self.order: list[str] = []  # paths in the order built, so an alias can copy a slice
        self.anchors: dict[str, tuple[Any, str, int, int, int]] = {}
        self.nodes = 0
        self.chars = 0  # characters of scalar text, aliases expanded

    def at(self, mark: Any) -> tuple[int, int]:
        """A parser mark as (line, column): from its character index, not its line and column,
        which count NEL, U+2028 and U+2029 as line breaks (and end the stream on a line of its own)."""
        if self.same_lines and mark.line <= self.last_line:
            return mark.line + 1, mark.column + 1  # the common case, and the quick one
        return self.lines.position(mark.index + self.shift)

    @property
    def lines(self) -> Lines:
        if self._lines is None:
            self._lines = Lines(self.text)
        return self._lines

    def problem(self, mark: Any, path: str, message: str) -> None:
        line, column = self.at(mark) if mark is not None else (0, 0)
        self.problems.append(Problem(Location(self.file, line, column, path), message))

    def value_problem(self, mark: Any, path: str, message: str) -> None:
        """A problem with a value that stays in the document in another form (`no` as its
        text): what the schema would say about that node is a consequence, left unsaid."""
        line, column = self.at(mark)
        self.problems.append(ValueProblem(Location(self.file, line, column, path), message))

    def bad_character(self, index: int, character: int) -> None:
        line, column = self.lines.position(index)
        message = f"character #x{character:04x} is not allowed in YAML text"
        self.problems.append(Problem(Location(self.file, line, column, "$"), message))

    def run(self) -> Any:
        try:
            self.loader = _Loader(self.text)
            data = self._stream()
        except _Abort:
            data = None
        except yaml.MarkedYAMLError as error:
            self._syntax(error)
            data = None
        except yaml.reader.ReaderError as error:
            index = error.position
            if _BYTE_OFFSETS:  # a byte offset into the UTF-8 text: count the characters before it
                index = len(self.text.encode("utf-8")[:index].decode("utf-8", errors="ignore"))
            self.bad_character(index, error.character)
            data = None
        except UnicodeEncodeError as error:  # a lone surrogate, which libyaml cannot even be given
            self.bad_character(error.start, ord(self.text[error.start]))
            data = None
        except yaml.YAMLError as error:  # pragma: no cover - every parser error is marked
            self.problem(None, "$", f"YAML error: {error}")
            data = None
        if not isinstance(data, dict):
            self.unreadable = True
        return data

    def _syntax(self, error: Any) -> None:
        message = error.problem or "invalid YAML"
        if error.context:
            where = f" at line {self.at(error.context_mark)[0]}" if error.context_mark else ""
            message = f"{message} ({error.context}{where})"
        self.problem(error.problem_mark, "$", f"YAML syntax error: {message}")

    def _stream(self) -> Any:
        loader = self.loader
        loader.get_event()  # StreamStart
        if loader.check_event(StreamEndEvent):
            self.problem(None, "$", "empty file; a ruleset is a YAML mapping (start with 'dsl: 1')")
            return None
        loader.get_event()  # DocumentStart
        first = loader.peek_event()
        data = self._node("$", 0, None)
        loader.get_event()  # DocumentEnd
        if loader.check_event(DocumentStartEvent):
            second = loader.peek_event()
            self.problem(second.start_mark, "$", "several YAML documents in one file; a ruleset file holds one")
            raise _Abort
        if data is None and not self.problems:
            self.problem(first.start_mark, "$", "empty document; a ruleset is a YAML mapping (start with 'dsl: 1')")
        elif not isinstance(data, dict) and not self.problems:
            self.problem(first.start_mark, "$", f"expected a mapping of keys to values at the top, got {_kind(data)}")
        return data

    def _count(self, event: Any, path: str) -> None:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            self.problem(event.start_mark, path, f"more than {MAX_NODES} nodes (after expanding aliases): refused as an alias bomb")
            raise _Abort
        if isinstance(event, ScalarEvent):
            self._grow(event, path, len(event.value))

    def _grow(self, event: Any, path: str, chars: int) -> None:
        self.chars += chars
        if self.chars > MAX_CHARS:
            self.problem(
                event.start_mark, path, f"more than {MAX_CHARS} characters of text (after expanding aliases): refused as an alias bomb"
            )
            raise _Abort

    def _node(self, path: str, depth: int, key_mark: Any) -> Any:
        event = self.loader.get_event()
        self._count(event, path)
        mark = event.start_mark
        key_mark = key_mark or mark
        if isinstance(event, AliasEvent):
            return self._alias(event, path, key_mark)
        self.order.append(path)
        self.positions[path] = Pos(self.file, *self.at(mark), *self.at(key_mark))
        start = len(self.order) - 1
        chars = self.chars - (len(event.value) if isinstance(event, ScalarEvent) else 0)
        tag = event.tag
        if tag is not None and tag not in _PLAIN_TAGS:
            shown = "!!" + tag[len(_CORE):] if tag.startswith(_CORE) else tag
            self.value_problem(mark, path, f"tag '{shown}' is not allowed: a ruleset holds only plain YAML data")
        if isinstance(event, ScalarEvent):
            value = self._scalar(event, path)
        elif isinstance(event, (SequenceStartEvent, MappingStartEvent)):
            if depth >= MAX_DEPTH:
                self.problem(mark, path, f"nested deeper than {MAX_DEPTH} levels")
                raise _Abort
            if isinstance(event, SequenceStartEvent):
                value = self._sequence(path, depth)
            else:
                value = self._mapping(path, depth, flow=bool(event.flow_style))
        else:  # pragma: no cover - the parser guarantees a node here
            raise _Abort
        if event.anchor is not None:
            self.anchors[event.anchor] = (value, path, start, len(self.order), self.chars - chars)
        return value

    def _alias(self, event: Any, path: str, key_mark: Any) -> Any:
        if event.anchor not in self.anchors:
            self.value_problem(event.start_mark, path, f"alias '*{event.anchor}' refers to no anchor defined before it")
            return None
        value, origin, start, end, chars = self.anchors[event.anchor]
        size = end - start
        self.nodes += size
        if self.nodes > MAX_NODES:
            self.problem(event.start_mark, path, f"more than {MAX_NODES} nodes (after expanding aliases): refused as an alias bomb")
            raise _Abort
        self._grow(event, path, chars)
        # An alias gets a copy, so that nothing downstream can change two places at once; its
        # nodes keep the positions of the anchored text, which is where a fix must go.
        for sub in self.order[start:end]:
            new = path + sub[len(origin):]
            pos = self.positions[sub]
            if sub == origin:
                key_line, key_column = self.at(key_mark)
                pos = pos._replace(key_line=key_line, key_column=key_column)
            self.positions[new] = pos
            self.order.append(new)
        return _copy(value)

    def _sequence(self, path: str, depth: int) -> list[Any]:
        items: list[Any] = []
        while not self.loader.check_event(SequenceEndEvent):
            items.append(self._node(item_path(path, len(items)), depth + 1, None))
        self.loader.get_event()
        return items

    def _mapping(self, path: str, depth: int, flow: bool = False) -> dict[str, Any]:
        result: dict[str, Any] = {}
        first_line: dict[str, int] = {}
        taken = None  # a key already read (after a value cut at a comma)
        while taken is not None or not self.loader.check_event(MappingEndEvent):
            key_event = taken or self.loader.peek_event()
            key = self._key(path, depth, taken)
            taken = None
            if key is None:
                self._discard(path + ".<value>", depth, keep_problems=False)
                continue
            here = child_path(path, key)
            if key in result:
                self.problem(key_event.start_mark, path, f"duplicate key {quoted(key)} (first at line {first_line[key]})")
                self._discard(here, depth, keep_problems=True)
                continue
            first_line[key] = self.at(key_event.start_mark)[0]
            value_event = self.loader.peek_event()
            result[key] = self._node(here, depth + 1, key_event.start_mark)
            if flow and _plain_text(value_event) and _open_brackets(value_event.value) > 0:
                result[key], taken = self._cut_at_comma(value_event, key, here, path)
        self.loader.get_event()
        return result

    def _cut_at_comma(self, value_event: Any, key: str, here: str, path: str) -> tuple[str, Any]:
        """A plain value of a flow mapping (`{measure: count(rank(cards, 7)), …}`) with a '('
        still open: the comma inside the brackets ended it, and the rest was read as keys
        without values (`7))`). Those keys are taken back into the value, which is reported
        with the quoting it needs, so that no later stage complains about an unknown key and a
        half expression. Returns the whole value, and a key read past the value (or None)."""
        opened = _open_brackets(value_event.value)
        end = value_event.end_mark
        rest: list[str] = []
        while opened > 0 and _plain_text(self.loader.peek_event()):
            piece = self.loader.get_event()
            self._count(piece, path)
            after = self.loader.peek_event()
            if not (_plain_text(after) and after.value == ""):
                return self._rejoined(value_event, end, rest, key, here), piece  # a real key
            self._count(self.loader.get_event(), path)
            rest.append(piece.value)
            end = piece.end_mark
            opened += _open_brackets(piece.value)
        return self._rejoined(value_event, end, rest, key, here), None

    def _rejoined(self, value_event: Any, end: Any, rest: list[str], key: str, here: str) -> str:
        if not rest:
            return value_event.value
        whole = self.text[value_event.start_mark.index + self.shift : end.index + self.shift]
        self.problem(
            value_event.start_mark,
            here,
            f"an unquoted ',' inside {{…}} ended the value, and the rest ({quoted(rest[0])}) became a key: "
            f"quote the {key}, as in {key}: {_quote_for_yaml(whole)}",
        )
        return whole

    def _key(self, path: str, depth: int, taken: Any = None) -> str | None:
        """A mapping key, or None (problem recorded) when it is not a plain string. `taken`:
        the key's event, already read (and counted)."""
        event = taken or self.loader.peek_event()
        mark = event.start_mark
        if isinstance(event, ScalarEvent) and event.tag in (None, "!", f"{_CORE}str"):
            if taken is None:
                self.loader.get_event()
                self._count(event, path)
            text = event.value
            if event.tag is not None or not event.implicit[0]:
                return text  # quoted or tagged as a string: what it says
            if text == "<<":
                self.problem(mark, path, "merge key '<<' is not YAML 1.2; write the keys out (or use extends:)")
                return None
            if text in _BOOL_11 or text in _TRUE or text in _FALSE:
                self.problem(mark, path, f"key '{text}' is read as a boolean by YAML 1.1; quote it (\"{text}\")")
                return None
            tag = _RESOLVER.resolve(yaml.ScalarNode, text, (True, False))
            if tag != f"{_CORE}str":
                short = quoted(text)[1:-1]
                self.problem(mark, path, f"key {short} is not a string; quote it (\"{short}\")")
                return None
            return text
        # A non-string key: read it (to report what it is) but keep nothing.
        value = self._discard(path + ".<key>", depth, keep_problems=False)
        self.problem(mark, path, f"key {_show(value)} is not a string; keys must be text (quote it)")
        return None

    def _discard(self, path: str, depth: int, keep_problems: bool) -> Any:
        """Read a node that will not be kept (a duplicate, a bad key) and forget its positions."""
        positions, order, problems = dict(self.positions), len(self.order), len(self.problems)
        anchors = dict(self.anchors)
        value = self._node(path, depth + 1, None)
        self.positions, self.anchors = positions, anchors
        del self.order[order:]
        if not keep_problems:
            del self.problems[problems:]
        return value

    def _scalar(self, event: Any, path: str) -> Any:
        text = event.value
        tag = event.tag
        mark = event.start_mark
        if tag in ("!", f"{_CORE}str") or (tag is None and not event.implicit[0]):
            return text
        if tag is None:
            return self._plain(text, mark, path)
        value = self._plain(text, mark, path)  # an explicit core tag must agree with the text
        expected: Any = {f"{_CORE}int": int, f"{_CORE}float": (int, float), f"{_CORE}bool": bool}.get(tag)
        if tag == f"{_CORE}null" and value is not None:
            self.value_problem(mark, path, f"{quoted(text)} is not null")
        elif expected is not None and (not isinstance(value, expected) or (tag != f"{_CORE}bool" and isinstance(value, bool))):
            self.value_problem(mark, path, f"{quoted(text)} does not match its tag {quoted('!!' + tag[len(_CORE):])}")
        elif tag == f"{_CORE}float" and isinstance(value, int):
            value = float(value)
        return value

    def _plain(self, text: str, mark: Any, path: str) -> Any:
        """An unquoted scalar, read as YAML 1.2 reads it; YAML 1.1 disagreements are errors."""
        if text in _NULL:
            return None
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        if text in _BOOL_11:
            self.value_problem(
                mark, path, f"'{text}' is read as a boolean by YAML 1.1: write true or false, or quote it (\"{text}\") for the text"
            )
            return text
        if _INT.match(text):
            if len(text.lstrip("+-")) > MAX_DIGITS:  # int() of 4,301 digits raises; 16 are already too many
                self.value_problem(mark, path, f"{quoted(text)} is too large a number for a ruleset (more than {MAX_DIGITS} digits)")
                return text
            return int(text)
        if _FLOAT.match(text):
            value = float(text)
            if not math.isfinite(value):
                self.value_problem(mark, path, f"{quoted(text)} is not a finite number")
                return text
            if abs(value) >= 10**MAX_DIGITS:
                self.value_problem(mark, path, f"{quoted(text)} is too large a number for a ruleset (more than {MAX_DIGITS} digits)")
                return text
            return value
        tag = _RESOLVER.resolve(yaml.ScalarNode, text, (True, False))
        if tag == f"{_CORE}float" and text.lstrip("+-").lower() in (".inf", ".nan"):
            self.value_problem(mark, path, f"'{text}' is not a finite number")
        elif tag in (f"{_CORE}int", f"{_CORE}float"):
            self.value_problem(
                mark, path, f"{quoted(text)} is not a plain decimal number, a form YAML versions read differently; write it in decimal, or quote it"
            )
        elif tag == f"{_CORE}timestamp":
            self.value_problem(mark, path, f"{quoted(text)} is read as a date by YAML 1.1; quote it (\"{text}\")")
        return text



def reads_as_text(text: str) -> bool:
    """Whether `text`, written unquoted, loads back as that same text without a problem."""
    if text in _NULL or text in _TRUE or text in _FALSE or text in _BOOL_11:
        return False
    if _INT.match(text) or _FLOAT.match(text):
        return False
    return _RESOLVER.resolve(yaml.ScalarNode, text, (True, False)) == f"{_CORE}str"


def _plain_text(event: Any) -> bool:
    """A plain (unquoted, untagged) scalar."""
    return isinstance(event, ScalarEvent) and event.tag is None and bool(event.implicit[0])


def _open_brackets(text: str) -> int:
    return text.count("(") - text.count(")")


def _quote_for_yaml(text: str) -> str:
    """`text` quoted as a YAML scalar, bounded for a message."""
    shown = quoted(text, 120)[1:-1]
    if '"' not in text:
        return f'"{shown}"'
    return "'" + shown.replace("'", "''") + "'"


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "text"  # not quoted: this may be any file, and not a ruleset at all
    return f"the value {_show(value)}"


def _show(value: Any) -> str:
    return shown(value, "({})")  # after "the value", a mapping reads as an aside
