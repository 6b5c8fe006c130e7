"""Fuzzing the rules pipeline: every bundled ruleset, mutated, is valid or a located RulesetError.

Each example copies a bundled ruleset and its `extends` chain into a temporary folder (parents
named by relative path, so a mutated parent is the one loaded), breaks one of the files (its
text, its bytes or its data) and feeds the leaf to `load_resolved`, `escoba.load_ruleset` and
`escoba check`. The only acceptable outcomes are success or `RulesetError` whose every problem
prints as `file:line:column: $.path: message` and points inside the file it names; the CLI exits
0 or 1 and prints no traceback. A mutated ruleset that loads must also deal and play a hand.

The second half pins semantically broken but schema-valid rulesets the corpus in
tests/invalid_rulesets/ does not cover, each with its exact message.

More examples: HYPOTHESIS_PROFILE=deep python -m pytest tests/test_fuzz_rulesets.py (docs/errors.md).
"""

from __future__ import annotations

import contextlib
import io
import itertools
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, note
from hypothesis import strategies as st

import escoba
from escoba.cli import main as cli
from escoba.engine.bots import random_bot
from escoba.engine.hand import Hand
from escoba.errors import EscobaError, Problem, RulesetError
from escoba.rules import bundled_ids, check, load_resolved, registry
from escoba.rules.yamlload import load_text

BUNDLED = bundled_ids()
# Each bundled ruleset's chain, root first: the files an example copies.
CHAINS = {rid: [doc.path for doc in load_resolved(rid).files] for rid in BUNDLED}
_EXTENDS = re.compile(r"^extends:[ \t]*(\S+)[ \t]*$", re.MULTILINE)
_stamp = itertools.count(1_000_000_000)


# --------------------------------------------------------------------------- harness


@pytest.fixture(scope="module", autouse=True)
def _only_check() -> Iterator[None]:
    # The CLI is driven in-process; the other subcommands are other people's modules, loaded
    # (and possibly half-written) on every main() call, and nothing here needs them.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(cli, "COMMANDS", ("check", "show"))
        yield


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Module-scoped: hypothesis runs many examples per test function, and a fresh tmp_path per
    # example is not available to it. Every example rewrites the same few file names.
    return tmp_path_factory.mktemp("fuzz-rulesets")


def chain_files(ruleset: str) -> list[tuple[str, bytes]]:
    """The chain as (file name, bytes), root first, each `extends: id` rewritten to the file."""
    files = []
    for path in CHAINS[ruleset]:
        text = path.read_text(encoding="utf-8")
        text = _EXTENDS.sub(lambda m: f"extends: {m.group(1)}.yaml", text)
        files.append((path.name, text.encode("utf-8")))
    return files


def write(folder: Path, files: list[tuple[str, bytes]]) -> dict[str, bytes]:
    """Write the files; return what each file name a problem may show holds."""
    folder.mkdir(exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    shown: dict[str, bytes] = {}
    for name, raw in files:
        path = folder / name
        path.write_bytes(raw)
        # The loader caches parsed files by (mtime, size); a stamp of our own per write makes
        # each example's files new to it even where the clock is coarse.
        stamp = next(_stamp)
        os.utime(path, ns=(stamp, stamp))
        shown[str(path)] = raw
    # A mutated `extends:` may name a bundled ruleset by id: those files are shown as spec/...
    for path in registry.bundled().values():
        shown[registry.display_name(path)] = path.read_bytes()
    return shown


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


_SHAPE = re.compile(r"(?P<file>.+?)(?::(?P<line>\d+):(?P<column>\d+))?: (?P<path>\$.*?): (?P<message>.+)")
# Problems about a whole file (there is no line to point at); everything else has a position.
_YAML_BREAKS = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
_ODD_BREAKS = re.compile("\r(?!\n)|[\x85\u2028\u2029]")
_WHOLE_FILE = ("empty file;", "is a directory", "cannot read the file", "file larger than", "empty document;")


def assert_located(problem: Problem, files: dict[str, bytes]) -> None:
    """The problem prints as `file:line:column: $.path: message`, inside the file it names."""
    where = problem.location
    text = str(problem)
    first, *rest = text.split("\n")
    assert first == f"{where}: {problem.message}"
    match = _SHAPE.fullmatch(first)
    assert match is not None, text
    assert where.path.startswith("$") and problem.message.strip(), text
    assert "\n" not in problem.message, text
    assert where.file in files, f"problem names a file that was not loaded: {text}"
    if problem.excerpt is not None:  # expression errors: the expression, then a caret under it
        assert len(rest) == 2 and rest[1].strip() == "^", text
    else:
        assert rest == [], text
    if not where.line:
        assert where.path == "$" and problem.message.startswith(_WHOLE_FILE), text
        return
    assert (match["line"], match["column"]) == (str(where.line), str(where.column)), text
    assert any(_inside(where.line, where.column, lines) for lines in _line_splits(files[where.file])), text


def _line_splits(raw: bytes) -> list[list[str]]:
    """A file's lines as YAML counts them (CR, NEL, U+2028 and U+2029 break lines too) and as
    the byte-level checks count them (LF only); a position must fall inside one of them."""
    text = raw.decode("utf-8", errors="replace").lstrip("\ufeff")
    splits = [_YAML_BREAKS.split(text), text.split("\n")]
    if _ODD_BREAKS.search(text):
        # Next to a lone CR, NEL, U+2028 or U+2029 the scanner's marks and its line breaks
        # disagree (`\r\u2028` moves the mark one line, not two): any line up to the number of
        # breaks is plausible there.
        longest = max(len(line) for lines in splits for line in lines)
        splits.append(["x" * longest] * (len(_YAML_BREAKS.findall(text)) + 1))
    return splits


def _inside(line: int, column: int, lines: list[str]) -> bool:
    if line == len(lines) + 1 and column == 1:
        return True  # libyaml's end of stream, after a last line with no line break
    return 1 <= line <= len(lines) and 1 <= column <= len(lines[line - 1]) + 1


def assert_clean_outcome(leaf: Path, files: dict[str, bytes]) -> None:
    """load_resolved, load_ruleset and `escoba check` agree: valid, or the same located problems."""
    try:
        load_resolved(str(leaf))
        problems: list[Problem] = []
    except RulesetError as error:
        problems = error.problems
        assert problems, "a RulesetError with no problem"
        for problem in problems:
            assert_located(problem, files)
    note(f"problems: {[str(p) for p in problems]}")
    try:
        rules = escoba.load_ruleset(str(leaf))
    except RulesetError as error:
        assert [str(p) for p in error.problems] == [str(p) for p in problems]
    else:
        assert problems == []
        play_one_hand(rules)
    code, out, err = run_cli("check", str(leaf))
    assert "Traceback" not in out + err
    assert code == (1 if problems else 0), out + err
    if problems:
        assert out == "".join(f"{p}\n" for p in problems)


def play_one_hand(rules: Any) -> None:
    """A ruleset that loads deals and plays a hand, or refuses with an EscobaError."""
    # (No target at all: every capture kind sums to the played card's value, at most a rank's.)
    if (rules.target or 0) > 20 or rules.table_size > 10 or list(rules.deck.rank_values).count(0) > 1:
        # Every subset of the table that makes the target is a legal move, so a big table with a
        # high target (the schema allows up to 30) or zero-valued cards has millions of moves at
        # one decision: valid, but no hand to play in a fuzz loop.
        return
    for players in rules.player_counts:
        try:
            hand = Hand(rules, players, 0, seed=players, record=False)
        except EscobaError:
            continue
        bot = random_bot(players)
        while not hand.is_over:
            hand.apply(bot(hand))
        assert hand.points is not None and len(hand.points) == hand.sides


# --------------------------------------------------------------------------- mutations

# Plain scalars that YAML 1.1 reads as something else than YAML 1.2, and other loader traps.
YAML11 = ["yes", "no", "on", "off", "y", "n", "Yes", "NO", "On", "OFF", "Y"]
TRAPS = YAML11 + [
    "015", "0o17", "0x1F", "1_000", "12:30", "2024-05-01", "2024-05-01T10:00:00", ".inf", "-.inf",
    ".nan", "~", "null", "", "1e3", "+15", "0.", "!!python/object/apply:os.system ['true']",
    "!card 7 oros", "*nowhere", "&a", "[", "]", "{", "}", "'", '"', "|", ">", "? x", "- x", "<<: *a",
]  # fmt: skip
UNICODE_JUNK = [
    "\ufeff", "\u200b", "\u202e", "\u2028", "\u2029", "\x85", "\x00", "\x07", "\x1b", "\t", "\r",
    "\ud7ff", "\ue000", "\uffff", "\U0001f0a1", "♦", "☃", "ｏｒｏｓ", "о", "e\u0301", "\U0010ffff",
]  # fmt: skip
BAD_KEYS = YAML11 + ["<<", "1", "~", "? [a]", "true", '""', "[a, b]", "{a: 1}", "&k x", "*k"]
HUGE = [10**18, 2**63, -(2**63), 10**100, -(10**100), 10**4000, 1e308, -1e308, 5e-324, -1, -15, 0]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-100, 100),
    st.sampled_from(HUGE),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(TRAPS + UNICODE_JUNK),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def nested(depth: int, leaf: Any = 1) -> Any:
    for _ in range(depth):
        leaf = [leaf] if depth % 2 else {"k": leaf}
    return leaf


def near_miss(data: st.DataObject, text: str) -> str:
    """A string one typo away: how enum values and keys go wrong in real files."""
    if not text:
        return data.draw(st.sampled_from([" ", "x"]))
    i = data.draw(st.integers(0, len(text) - 1), label="at")
    how = data.draw(st.sampled_from(["drop", "double", "case", "space", "plural", "homoglyph", "swap"]))
    if how == "drop":
        return text[:i] + text[i + 1 :]
    if how == "double":
        return text[:i] + text[i] + text[i:]
    if how == "case":
        return text[:i] + text[i].swapcase() + text[i + 1 :]
    if how == "space":
        return text + " " if i % 2 else " " + text
    if how == "plural":
        return text + "s"
    if how == "homoglyph":  # Cyrillic look-alikes
        return text.translate(str.maketrans("aeopcx", "аеорсх"))
    j = min(i + 1, len(text) - 1)
    chars = list(text)
    chars[i], chars[j] = chars[j], chars[i]
    return "".join(chars)


def nodes(value: Any) -> list[tuple[Any, Any]]:
    """Every (container, key or index) in a document, in document order."""
    found: list[tuple[Any, Any]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            found.append((value, key))
            found += nodes(item)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.append((value, index))
            found += nodes(item)
    return found


def mutate_data(data: st.DataObject, raw: bytes) -> bytes:
    """Change the document's data (delete, swap a type, near-miss, huge, deep) and write it back."""
    doc = load_text(raw.decode("utf-8")).data
    for _ in range(data.draw(st.integers(1, 3), label="changes")):
        places = nodes(doc)
        if not places:
            break
        parent, key = places[data.draw(st.integers(0, len(places) - 1), label="node")]
        old = parent[key]
        op = data.draw(st.sampled_from(["delete", "replace", "near-miss", "rename", "huge", "deep", "duplicate"]))
        note(f"{op} at {key!r} (was {str(old)[:60]!r})")
        if op == "delete":
            del parent[key]
        elif op == "replace":
            parent[key] = data.draw(values, label="value")
        elif op == "near-miss":
            if isinstance(old, str):
                parent[key] = near_miss(data, old)
            elif isinstance(old, bool):
                parent[key] = data.draw(st.sampled_from([1, 0, "true", "True ", None]))
            elif isinstance(old, (int, float)):
                floats = [float(old)] if abs(old) < 1e300 else []
                parent[key] = data.draw(st.sampled_from([old + 1, old - 1, -old, str(old), old * 1000, *floats]))
            else:
                parent[key] = data.draw(st.sampled_from([[], {}, [old], {"x": old}]))
        elif op == "rename" and isinstance(parent, dict):
            parent[near_miss(data, key)] = parent.pop(key)
        elif op == "huge":
            parent[key] = data.draw(st.sampled_from(HUGE))
        elif op == "deep":
            parent[key] = nested(data.draw(st.integers(1, 120), label="depth"), old)
        elif op == "duplicate" and isinstance(parent, list):
            parent.insert(key, old if not isinstance(old, (dict, list)) else yaml.safe_load(yaml.safe_dump(old)))
    return yaml.safe_dump(doc, allow_unicode=True, sort_keys=False, width=10_000).encode("utf-8")


def _lines(raw: bytes) -> list[str]:
    return raw.decode("utf-8").split("\n")


def mutate_text(data: st.DataObject, raw: bytes) -> bytes:
    """Break the text itself: YAML 1.1 scalars, duplicate keys, indentation, junk, nesting."""
    lines = _lines(raw)
    i = data.draw(st.integers(0, len(lines) - 1), label="line")
    line = lines[i]
    op = data.draw(st.sampled_from(["value", "key", "duplicate", "indent", "insert", "unicode", "deep", "swap"]))
    note(f"text {op} at line {i + 1}: {line!r}")
    head, colon, tail = line.partition(": ")
    if op == "value" and colon:
        lines[i] = f"{head}: {data.draw(st.sampled_from(TRAPS))}"
    elif op == "key" and colon:
        indent = len(head) - len(head.lstrip(" -"))
        lines[i] = f"{head[:indent]}{data.draw(st.sampled_from(BAD_KEYS))}: {tail}"
    elif op == "duplicate":
        lines.insert(i, line)
    elif op == "indent":
        lines[i] = line[1:] if data.draw(st.booleans()) else " " * data.draw(st.integers(1, 3)) + line
    elif op == "insert":
        at = data.draw(st.integers(0, len(line)))
        lines[i] = line[:at] + data.draw(st.text(max_size=8) | st.sampled_from(TRAPS)) + line[at:]
    elif op == "unicode":
        at = data.draw(st.integers(0, len(line)))
        lines[i] = line[:at] + "".join(data.draw(st.lists(st.sampled_from(UNICODE_JUNK), min_size=1, max_size=3))) + line[at:]
    elif op == "deep":
        depth = data.draw(st.integers(1, 200), label="depth")
        lines[i] = f"{head}: {'[' * depth}1{']' * depth}" if colon else "[" * depth + line + "]" * depth
    elif op == "swap":
        j = data.draw(st.integers(0, len(lines) - 1))
        lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines).encode("utf-8")


def mutate_bytes(data: st.DataObject, raw: bytes) -> bytes:
    """Damage the bytes: truncation at any byte, random bytes inserted or overwritten, a new file."""
    op = data.draw(st.sampled_from(["truncate", "insert", "overwrite", "random", "encoding"]))
    at = data.draw(st.integers(0, len(raw)), label="byte")
    note(f"bytes {op} at {at}")
    if op == "truncate":
        return raw[:at]
    if op == "insert":
        return raw[:at] + data.draw(st.binary(min_size=1, max_size=8)) + raw[at:]
    if op == "overwrite":
        junk = data.draw(st.binary(min_size=1, max_size=8))
        return raw[:at] + junk + raw[at + len(junk) :]
    if op == "random":
        return data.draw(st.binary(max_size=300))
    codec = data.draw(st.sampled_from(["latin-1", "utf-16", "utf-32", "cp1252", "utf-8-sig"]))
    return raw.decode("utf-8", errors="replace").encode(codec, errors="replace")


MUTATIONS: dict[str, Callable[[st.DataObject, bytes], bytes]] = {
    "data": mutate_data,
    "text": mutate_text,
    "bytes": mutate_bytes,
}


def mutated_chain(data: st.DataObject, ruleset: str, kinds: list[str]) -> list[tuple[str, bytes]]:
    files = chain_files(ruleset)
    # The leaf twice as often as each parent: most user files are the leaf of a short chain.
    which = data.draw(st.sampled_from([len(files) - 1] + list(range(len(files)))), label="file")
    for _ in range(data.draw(st.integers(1, 2), label="rounds")):
        kind = data.draw(st.sampled_from(kinds), label="mutation")
        name, raw = files[which]
        if kind != "bytes" and not _loads(raw):
            break  # text and data mutations work on a file that still parses
        note(f"mutating {name} ({kind})")
        files[which] = (name, MUTATIONS[kind](data, raw))
    return files


def _loads(raw: bytes) -> bool:
    try:
        load_text(raw.decode("utf-8"))
    except (UnicodeDecodeError, RulesetError):
        return False
    return True


# --------------------------------------------------------------------------- properties


def test_copied_chains_load_like_the_bundled_rulesets(workdir: Path) -> None:
    """The harness itself: every unmutated chain copy resolves to the bundled document."""
    for ruleset in BUNDLED:
        files = chain_files(ruleset)
        write(workdir / "copy", files)
        resolved = load_resolved(str(workdir / "copy" / files[-1][0]))
        assert resolved.doc == load_resolved(ruleset).doc


@given(st.data())
def test_mutated_data_is_valid_or_located_errors(workdir: Path, data: st.DataObject) -> None:
    """Deleted keys, swapped types, near-miss enums, huge and deep values: valid or located errors."""
    ruleset = data.draw(st.sampled_from(BUNDLED), label="ruleset")
    files = mutated_chain(data, ruleset, ["data"])
    shown = write(workdir / "data", files)
    assert_clean_outcome(workdir / "data" / files[-1][0], shown)


@given(st.data())
def test_mutated_text_is_valid_or_located_errors(workdir: Path, data: st.DataObject) -> None:
    """YAML 1.1 scalars, duplicate keys, bad indentation, tags, deep nesting: valid or located errors."""
    ruleset = data.draw(st.sampled_from(BUNDLED), label="ruleset")
    files = mutated_chain(data, ruleset, ["text", "data"])
    shown = write(workdir / "text", files)
    assert_clean_outcome(workdir / "text" / files[-1][0], shown)


@given(st.data())
def test_damaged_bytes_are_valid_or_located_errors(workdir: Path, data: st.DataObject) -> None:
    """Truncation at any byte, random bytes, other encodings: valid or located errors."""
    ruleset = data.draw(st.sampled_from(BUNDLED), label="ruleset")
    files = mutated_chain(data, ruleset, ["text", "bytes"])
    shown = write(workdir / "bytes", files)
    assert_clean_outcome(workdir / "bytes" / files[-1][0], shown)


@given(st.binary(max_size=2000) | st.text(max_size=500).map(lambda t: t.encode("utf-8")))
def test_any_file_is_valid_or_located_errors(workdir: Path, raw: bytes) -> None:
    """A file of anything at all is a located RulesetError (or, by luck, a ruleset)."""
    shown = write(workdir / "any", [("any.yaml", raw)])
    assert_clean_outcome(workdir / "any" / "any.yaml", shown)


# --------------------------------------------------------------------------- pinned cases
# Schema-valid rulesets that break a rule only the semantic checks know, and files that are not
# files, beyond what tests/invalid_rulesets/ already pins. Run from the folder holding them, so
# messages name files as a user typing `escoba check FILE` sees them.

SEMANTIC = {
    "holder-of-a-missing-suit.yaml": (
        "dsl: 1\nextends: base\nscoring:\n  categories:\n    - {id: velo, award: {policy: holder, card: 7 diamantes}}\n",
        ["holder-of-a-missing-suit.yaml:5:48: $.scoring.categories[3].award.card: no card '7 diamantes' in the deck"],
    ),
    "hand-larger-than-the-stock.yaml": (
        "dsl: 1\nextends: base\nplayers:\n  counts: [2]\ndeal:\n  hand_size: 20\n",
        [
            "hand-larger-than-the-stock.yaml:6:14: $.deal.hand_size: with 2 players, 36 cards (40 + 0 jokers − 4 on the table)"
            " are too few for one round of 2 × 20"
        ],
    ),
    "target-below-two-cards.yaml": (
        "dsl: 1\nextends: base\ncapture:\n  target: 1\n",
        ["target-below-two-cards.yaml:4:11: $.capture.target: no played card and table cards can make 1 with this deck's values"],
    ),
    "target-above-thirty.yaml": (
        "dsl: 1\nextends: base\ncapture:\n  target: 500\n",
        ["target-above-thirty.yaml:4:11: $.capture.target: must be at most 30, got 500"],
    ),
    "partnership-seat-out-of-range.yaml": (
        "dsl: 1\nextends: base\nplayers:\n  partnerships:\n    - {players: 4, sides: [[0, 4], [1, 3]]}\n",
        [
            "partnership-seat-out-of-range.yaml:5:27: $.players.partnerships[0].sides: seat 2 in no side; the sides must seat all 4 players",
            "partnership-seat-out-of-range.yaml:5:32: $.players.partnerships[0].sides[0][1]: seat 4 does not exist with 4 players (seats 0 to 3)",
        ],
    ),
    "extends-a-directory.yaml": (
        "dsl: 1\nextends: folder.yaml\n",
        ["extends-a-directory.yaml:2:10: $.extends: no such file folder.yaml (looked in .)"],
    ),
    "extends-under-a-file.yaml": (
        "dsl: 1\nextends: plain.yaml/child.yaml\n",
        ["extends-under-a-file.yaml:2:10: $.extends: no such file plain.yaml/child.yaml (looked in .)"],
    ),
    "scoring-a-list.yaml": (
        "dsl: 1\nextends: base\nscoring: []\n",
        ["scoring-a-list.yaml:3:10: $.scoring: expected a mapping, got a list"],
    ),
    "control-character-after-accents.yaml": (
        # libyaml reports a byte offset; the column is in characters (ñ and ú are two bytes each).
        'dsl: 1\nextends: base\ntitle: "ñandú \x07"\n',
        ["control-character-after-accents.yaml:3:15: $: character #x0007 is not allowed in YAML text"],
    ),
    "extends-a-long-name.yaml": (
        f"dsl: 1\nextends: {'x' * 300}.yaml\n",
        [f"extends-a-long-name.yaml:2:10: $.extends: no such file {'x' * 300}.yaml (looked in .)"],
    ),
    "utf-16.yaml": (
        "dsl: 1\nextends: base\n".encode("utf-16"),
        ["utf-16.yaml:1:4: $: binary data (a NUL byte), not a YAML text file"],
    ),
}


@pytest.fixture
def pinned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder.yaml").mkdir()
    (tmp_path / "plain.yaml").write_text("dsl: 1\nextends: base\n", encoding="utf-8")
    for name, (content, _) in SEMANTIC.items():
        data = content if isinstance(content, bytes) else content.encode("utf-8")
        (tmp_path / name).write_bytes(data)
    return tmp_path


@pytest.mark.parametrize("name", sorted(SEMANTIC))
def test_pinned_problem(pinned: Path, name: str) -> None:
    """Each case is refused by check, load_ruleset and `escoba check` (exit 1) with exactly these lines."""
    expected = SEMANTIC[name][1]
    assert [str(p) for p in check(name)] == expected
    with pytest.raises(RulesetError) as raised:
        escoba.load_ruleset(name)
    assert [str(p) for p in raised.value.problems] == expected
    assert run_cli("check", name) == (1, "".join(f"{line}\n" for line in expected), "")


def _chain(folder: Path, depth: int) -> str:
    for n in range(1, depth + 1):
        parent = "base" if n == 1 else f"level{n - 1}.yaml"
        (folder / f"level{n}.yaml").write_text(f"dsl: 1\nextends: {parent}\nmatch:\n  target: {n + 10}\n", encoding="utf-8")
    return f"level{depth}.yaml"


def test_the_deepest_chain_allowed_loads_and_plays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """64 files above base (65 in all) is the deepest chain: it loads, compiles and checks ok."""
    monkeypatch.chdir(tmp_path)
    top = _chain(tmp_path, 64)
    assert check(top) == []
    assert escoba.load_ruleset(top).match_target == 74
    assert run_cli("check", top) == (0, f"ok  {top} (level64)\n", "")


def test_one_file_more_than_the_deepest_chain_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 65th file above base is refused at the extends that reaches too far, by every entry point."""
    monkeypatch.chdir(tmp_path)
    top = _chain(tmp_path, 65)
    expected = ["level1.yaml:2:10: $.extends: a chain deeper than 64 rulesets"]
    assert [str(p) for p in check(top)] == expected
    with pytest.raises(RulesetError):
        escoba.load_ruleset(top)
    assert run_cli("check", top) == (1, expected[0] + "\n", "")


UNREADABLE = {
    "a directory": ("folder.yaml", "folder.yaml: $: is a directory, not a ruleset file"),
    "a dangling symlink": ("dangling.yaml", "dangling.yaml: $: cannot read the file: No such file or directory"),
    "a symlink loop": ("loop-a.yaml", "loop-a.yaml: $: cannot read the file: Too many levels of symbolic links"),
}


@pytest.mark.parametrize("case", sorted(UNREADABLE))
def test_a_path_that_is_no_readable_file(pinned: Path, case: str) -> None:
    """A directory, a dangling symlink or a symlink loop is one whole-file problem, exit 1."""
    os.symlink("nowhere.yaml", pinned / "dangling.yaml")
    os.symlink("loop-b.yaml", pinned / "loop-a.yaml")
    os.symlink("loop-a.yaml", pinned / "loop-b.yaml")
    name, message = UNREADABLE[case]
    assert [str(p) for p in check(name)] == [message]
    with pytest.raises(RulesetError) as raised:
        escoba.load_ruleset(name)
    assert [str(p) for p in raised.value.problems] == [message]
    assert run_cli("check", name) == (1, message + "\n", "")


@pytest.mark.parametrize(
    "name",
    ["plain.yaml/child.yaml", "x" * 300, "x" * 300 + ".yaml", "a\0b.yaml"],
    ids=["under-a-file", "too-long-id", "too-long-file", "nul-byte"],
)
def test_a_name_that_cannot_be_a_file_is_unknown(pinned: Path, name: str) -> None:
    """A path under a file, a name too long for the file system, a NUL: UnknownRuleset, exit 2."""
    with pytest.raises(RulesetError) as raised:
        load_resolved(name)
    assert type(raised.value).__name__ == "UnknownRuleset"
    with pytest.raises(RulesetError) as raised:
        escoba.load_ruleset(name)
    assert type(raised.value).__name__ == "UnknownRuleset"
    code, out, err = run_cli("check", name)
    assert (code, out) == (2, "") and err.startswith("escoba check: ") and "Traceback" not in err


def test_a_file_without_read_permission(pinned: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file that cannot be opened is one located problem saying why, exit 1."""
    locked = pinned / "locked.yaml"
    locked.write_text("dsl: 1\nextends: base\n", encoding="utf-8")
    locked.chmod(0)
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # root reads a chmod 000 file: refuse as the OS would
        real_open = os.open

        def refusing_open(file: Any, *args: Any, **kwargs: Any) -> Any:
            if os.path.basename(str(file)) == "locked.yaml":
                raise PermissionError(13, "Permission denied", str(file))
            return real_open(file, *args, **kwargs)

        monkeypatch.setattr(os, "open", refusing_open)
    message = "locked.yaml: $: cannot read the file: Permission denied"
    assert [str(p) for p in check("locked.yaml")] == [message]
    assert run_cli("check", "locked.yaml") == (1, message + "\n", "")


def _int_paths(value: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _int_paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _int_paths(item, (*path, index))
    elif isinstance(value, int) and not isinstance(value, bool):
        yield path


# de-jokers has every kind of integer a ruleset holds: jokers, partnerships, counts, sizes.
FLOAT_CASES = list(_int_paths(load_resolved("de-jokers").doc))


@pytest.mark.parametrize("path", FLOAT_CASES, ids=lambda p: ".".join(map(str, p)))
def test_an_integer_written_as_a_float_is_refused_or_plays(tmp_path: Path, path: tuple[str | int, ...]) -> None:
    """`4.0` where an integer belongs is a located problem at that node, or the ruleset plays as with `4`."""
    from escoba.cli.show import to_yaml
    from escoba.rules.paths import join

    doc = load_resolved("de-jokers").doc
    node = doc
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = float(node[path[-1]])
    file = tmp_path / "floats.yaml"
    file.write_text(to_yaml(doc), encoding="utf-8")
    problems = check(str(file))
    if problems:
        assert [p.location.path for p in problems] == [join(path)]
        return
    rules = escoba.load_ruleset(str(file))
    for players in rules.player_counts:
        hand = Hand(rules, players, 0, seed=1, record=False)
        bot = random_bot(1)
        while not hand.is_over:
            hand.apply(bot(hand))
