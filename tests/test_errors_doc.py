"""docs/errors.md cannot drift: every example message in it is produced by the code, word for word.

The examples are the code spans in the `message` (or `example message`) column of every table
in docs/errors.md; `…` in an example stands for any text (a list that grows with the project).
Each example has a producer here that builds the input and returns the messages the code
gives; the example must be one of them. A documented example without a producer, or a producer
whose example left the document, fails too.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import escoba
from escoba.cli import main as cli
from escoba.conformance.expectations import Expectation
from escoba.conformance.runner import Runner, collect
from escoba.engine.arrange import arrange_deck
from escoba.engine.hand import Hand
from escoba.engine.match import Match
from escoba.errors import EscobaError, IllegalMoveError, NotationError, TranscriptError
from escoba.notation import move_from_wire, parse_card, parse_cards, parse_move
from escoba.protocol.client import InProcessSession, SubprocessSession
from escoba.protocol.features import reference_features
from escoba.protocol.server import ReferenceEngine
from escoba.rules import check, registry
from escoba.rules.expr import ExprError, compile_expression, env_from_deck
from escoba.simulate import simulate
from escoba.transcript.case import load_case, load_cases
from escoba.transcript.record import reason_class
from hostile.peers import listening
from rulebook import base_with, base_without_target, deal, move

ROOT = Path(__file__).parents[1]
DOC = ROOT / "docs" / "errors.md"
CORPUS = ROOT / "tests" / "invalid_rulesets"
BROKEN = ROOT / "tests" / "broken_cases"
FAKE = ROOT / "tests" / "engines" / "fake_engine.py"
EXAMPLE_COLUMNS = ("message", "example message")


# --------------------------------------------------------------------------- the document


def _cells(row: str) -> list[str]:
    # Split on the table's pipes, not on pipes inside code spans (there are none by convention).
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def _code_spans(cell: str) -> list[str]:
    """The code spans of a cell, CommonMark style: ``a `b` c`` keeps its inner backticks."""
    spans = []
    for _ticks, body in re.findall(r"(`+)(.+?)(?<!`)\1(?!`)", cell):
        if body.startswith(" ") and body.endswith(" ") and body.strip():
            body = body[1:-1]
        spans.append(body)
    return spans


def documented() -> list[str]:
    """Every example message in docs/errors.md, in document order."""
    examples: list[str] = []
    lines = DOC.read_text(encoding="utf-8").splitlines()
    column = None
    for i, line in enumerate(lines):
        if not line.startswith("|"):
            column = None
            continue
        if column is None:
            headers = [h.lower() for h in _cells(line)]
            is_header = i + 1 < len(lines) and set(lines[i + 1].replace("|", "").strip()) <= set("-: ")
            column = next((headers.index(h) for h in EXAMPLE_COLUMNS if h in headers), -1) if is_header else -1
            continue
        cells = _cells(line)
        if column >= 0 and column < len(cells) and not set(line.replace("|", "").strip()) <= set("-: "):
            examples += _code_spans(cells[column])
    return examples


def matches(example: str, message: str) -> bool:
    pattern = ".*?".join(re.escape(part) for part in example.split("…"))
    return re.fullmatch(pattern, message, flags=re.DOTALL) is not None


# --------------------------------------------------------------------------- producers


class Context:
    """What a producer may use: a scratch folder, and a way to change things for the test."""

    def __init__(self, tmp: Path, monkeypatch: pytest.MonkeyPatch):
        self.tmp, self.monkeypatch = tmp, monkeypatch

    def file(self, name: str, text: str | bytes) -> Path:
        path = self.tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
        return path


Producer = Callable[[Context], list[str]]


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(list(argv))
        except SystemExit as exit:  # argparse
            code = int(exit.code or 0)
    return code, out.getvalue(), err.getvalue()


def ruleset(source: str) -> Producer:
    """The problems of a corpus file (by name, checked from the corpus folder) or of YAML text."""

    def produce(ctx: Context) -> list[str]:
        ctx.monkeypatch.chdir(CORPUS)
        name = source if source.endswith(".yaml") else str(ctx.file("mine.yaml", source))
        return [p.message for p in check(name)]

    return produce


def unreadable(ctx: Context) -> list[str]:
    # CI runs as root, which reads a chmod 000 file: the operating system's refusal is simulated.
    real_open = os.open

    def refuse(file: Any, *args: Any, **kwargs: Any) -> int:
        if os.path.basename(file) == "locked.yaml":
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)

    path = ctx.file("locked.yaml", "dsl: 1\nextends: base\n")
    ctx.monkeypatch.setattr(os, "open", refuse)
    return [p.message for p in check(str(path))]


def mismatched_id(ctx: Context) -> list[str]:
    # The id check is for bundled files: this one is made bundled for the test.
    path = ctx.file("da.yaml", "dsl: 1\nid: da2\nkind: house\nextends: base\n")
    bundled = {**registry.bundled(), "da": path.resolve()}
    ctx.monkeypatch.setattr(registry, "bundled", lambda: bundled)
    return [p.message for p in check(str(path))]


def cli_errors(*argv: str) -> Producer:
    """The messages of a command that exits 2, without the `escoba COMMAND: ` prefix."""

    def produce(ctx: Context) -> list[str]:
        ctx.monkeypatch.chdir(ctx.tmp)
        code, _, err = run_cli(*argv)
        assert code == 2, err
        found = []
        for line in err.splitlines():
            found.append(re.sub(r"^escoba( [a-z]+)?: (error: )?", "", line))
        return found

    return produce


def expression(text: str, context: str = "side") -> Producer:
    def produce(ctx: Context) -> list[str]:
        base = escoba.load_ruleset("base").doc
        try:
            compile_expression(text, env_from_deck(base["deck"], base["values"]), context=context)
        except ExprError as error:
            return [error.message]
        return []

    return produce


def notation(text: Any, parse: Callable = parse_move, ruleset_id: str = "sv") -> Producer:
    def produce(ctx: Context) -> list[str]:
        try:
            parse(text, escoba.load_ruleset(ruleset_id).deck)
        except NotationError as error:
            return [error.message]
        return []

    return produce


# A position for illegal moves: base rules (capture compulsory card by card), dealer 0, so
# seat 1 leads holding 7♦ 4♣ R♥ over a table of 3♣ 5♥ 1♦ 2♠; seat 0 holds 6♦ 6♣ 6♥.
def position(compulsory: str = "card", scopa: bool = False, table: str = "3♣ 5♥ 1♦ 2♠") -> Hand:
    kinds = {"capture__kinds": [{"sum": "card", "priority": "single_card"}]} if scopa else {}
    rules = base_with(capture__compulsory=compulsory, **kinds)
    return deal(rules, 2, 0, table, "6♦ 6♣ 6♥", "7♦ 4♣ R♥")


def illegal(text: str, compulsory: str = "card", finished: bool = False, **where: Any) -> Producer:
    """The engine's reason for refusing a move, and the protocol's reason class."""

    def produce(ctx: Context) -> list[str]:
        hand = position(compulsory, **where)
        if finished:
            while not hand.is_over:
                hand.apply(hand.legal_moves()[0])
        chosen = move(hand.rules, text)
        with pytest.raises(IllegalMoveError) as raised:
            hand.apply(chosen)
        return [raised.value.reason, reason_class(hand, chosen)]

    return produce


def entry(text: str) -> Producer:
    """What `escoba play` says to an entry at the illegal-move position."""

    def produce(ctx: Context) -> list[str]:
        from escoba.cli.play import EntryError, read_move

        with pytest.raises(EntryError) as raised:
            read_move(position(), text)
        return [str(raised.value)]

    return produce


def api(call: Callable[[], object]) -> Producer:
    def produce(ctx: Context) -> list[str]:
        with pytest.raises(EscobaError) as raised:
            call()
        return [str(raised.value)]

    return produce


def _redeals_forever() -> None:
    rules = escoba.load_ruleset("de-redeal")
    order = arrange_deck(rules, 2, 0, ["7♦", "S♦", "7♣", "S♣"], [])  # 7 + 8, twice: a redeal
    Hand(rules, 2, 0, [order] * 100)


def _match_over() -> None:
    match = Match(escoba.load_ruleset("base"), 2, seed=1, target=1)
    while not match.is_over:
        hand = match.new_hand()
        while not hand.is_over:
            hand.apply(hand.legal_moves()[0])
        match.end_hand()
    match.new_hand()


def _hand_not_finished() -> None:
    match = Match(escoba.load_ruleset("base"), 2, seed=1)
    match.new_hand()
    match.new_hand()


def _short_deck() -> None:
    rules = escoba.load_ruleset("base")
    order = list(rules.deck.cards)
    order[order.index(rules.deck.card("3c"))] = rules.deck.card("7d")
    Hand(rules, 2, 0, [order])


def engine_reply(*requests: dict) -> Producer:
    """The reference engine's `error.message` (and `error.reason`) for the last request."""

    def produce(ctx: Context) -> list[str]:
        engine = ReferenceEngine()
        reply: dict = {}
        for n, request in enumerate(requests, 1):
            reply = engine.handle({"id": n, **request})
        error = reply["error"]
        return [error["message"], f"{error['kind']}: {error['message']}"] + ([error["reason"]] if error.get("reason") else [])

    return produce


def served(line: bytes) -> Producer:
    """`escoba engine`'s reply to a raw line."""

    def produce(ctx: Context) -> list[str]:
        from escoba.protocol.server import serve

        out = io.BytesIO()
        serve(ReferenceEngine(), io.BytesIO(line + b"\n"), out)
        error = json.loads(out.getvalue())["error"]
        return [error["message"]]

    return produce


def _start(ruleset_id: str = "base", **extra: Any) -> dict:
    rules = escoba.load_ruleset(ruleset_id)
    deck = [rules.deck.code[c] for c in rules.deck.cards]
    return {"cmd": "start", "ruleset": dict(rules.doc), "players": 2, "dealer": 0, "decks": [deck], "target": None, **extra}


def broken_case(name: str) -> Producer:
    """The message (after the file and the JSON path) refusing a case of tests/broken_cases/."""

    def produce(ctx: Context) -> list[str]:
        ctx.monkeypatch.chdir(ROOT)
        with pytest.raises(TranscriptError) as raised:
            load_case(Path("tests/broken_cases") / f"{name}.json")
        return [_after_path(str(raised.value).split("\n")[0]), str(raised.value).split("\n")[0]]

    return produce


def case_file(name: str, content: str | bytes, *, folder: bool = False) -> Producer:
    """The message refusing a case file written here (or a folder of cases, when `folder`)."""

    def produce(ctx: Context) -> list[str]:
        ctx.monkeypatch.chdir(ctx.tmp)
        path = ctx.file(name, content)
        with pytest.raises(TranscriptError) as raised:
            load_cases(Path("nowhere")) if folder else load_case(path.name)
        return [_after_path(str(raised.value)), str(raised.value)]

    return produce


def _after_path(line: str) -> str:
    match = re.match(r"^.+?(?::\d+:\d+)?: \$[^ ]*: (.*)$", line)
    return match.group(1) if match else re.sub(r"^[^:]+: ", "", line)


def conformance(connect: Callable[[], Any], case: str = "base.2p.1", *, pins: dict | None = None, cases: int = 1) -> Producer:
    """The message and note of a case run through a session (in process or a fake engine)."""

    def produce(ctx: Context) -> list[str]:
        chosen = collect(patterns=[case])[0]
        runner = Runner(connect, expectations=pins or {})
        report = runner.run([chosen] * cases)
        return [text for r in report.results for text in (r.message, r.note, f"{r.outcome}: {r.message}")]

    return produce


def fake(mode: str, *extra: str, timeout: float = 20.0) -> Callable[[], SubprocessSession]:
    # A generous reply timeout unless silence is the example: a loaded machine is slow, not wrong.
    return lambda: SubprocessSession([sys.executable, str(FAKE), mode, *extra], timeout=timeout)


def mutant(name: str) -> Callable[[], InProcessSession]:
    sys.path.insert(0, str(ROOT / "tests" / "engines"))
    from mutants import MUTANTS

    return lambda: InProcessSession(MUTANTS[name])


class _Twisted(ReferenceEngine):
    """The reference engine with one reply changed, to show a protocol violation."""

    twist: Callable[[dict, dict], dict] = staticmethod(lambda request, reply: reply)

    def handle(self, request: Any) -> dict:
        return type(self).twist(request, super().handle(request))


def twisted(twist: Callable[[dict, dict], dict], features: tuple[str, ...] | None = None) -> Callable[[], InProcessSession]:
    engine = type("Twisted", (_Twisted,), {"twist": staticmethod(twist)})
    if features is not None:
        engine.features = features
    return lambda: InProcessSession(engine)


def _on(cmd: str, change: Callable[[dict], dict]) -> Callable[[dict, dict], dict]:
    return lambda request, reply: change(reply) if request.get("cmd") == cmd else reply


def expectations_error(name: str, text: str) -> Producer:
    def produce(ctx: Context) -> list[str]:
        ctx.monkeypatch.chdir(ctx.tmp)
        if text:
            ctx.file(name, text)
        code, _, err = run_cli("conformance", "--case", "base.2p.1", "--expectations", name)
        assert code == 2
        return [err.removeprefix("escoba conformance: ").rstrip("\n")]

    return produce


def ruleset_here(text: str, **others: str) -> Producer:
    """The problems of YAML text saved as mine.yaml (beside `others`) and checked from its folder."""

    def produce(ctx: Context) -> list[str]:
        ctx.monkeypatch.chdir(ctx.tmp)
        for name, content in others.items():
            ctx.file(name.replace("_", "."), content)
        ctx.file("mine.yaml", text)
        return [p.message for p in check("mine.yaml")]

    return produce


def process_errors(shell: str, *argv: str) -> Producer:
    """The stderr of `escoba ARGV` run by `sh -c SHELL` (which redirects its output), prefix removed."""

    def produce(ctx: Context) -> list[str]:
        import subprocess

        command = [sys.executable, "-m", "escoba", *argv]
        done = subprocess.run(["sh", "-c", shell, "sh", *command], capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, done
        return [re.sub(r"^escoba [a-z]+: ", "", line) for line in done.stderr.splitlines()]

    return produce


def full_disk(ctx: Context) -> list[str]:
    import errno

    from escoba import outputs

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    ctx.monkeypatch.chdir(ctx.tmp)
    ctx.monkeypatch.setattr(outputs.os, "fsync", full)
    code, _, err = run_cli("conformance", "--case", "base.2p.1", "--write-expectations", "known.yaml")
    assert code == 2
    return [line.removeprefix("escoba conformance: ") for line in err.splitlines()]


def cli_failures(*argv: str) -> Producer:
    """The stderr lines of a command that exits 1 (a real negative result)."""

    def produce(ctx: Context) -> list[str]:
        ctx.monkeypatch.chdir(ctx.tmp)
        code, _, err = run_cli(*argv)
        assert code == 1, err
        return err.splitlines()

    return produce


def linked_report(ctx: Context) -> list[str]:
    ctx.file("elsewhere.xml", "")
    (ctx.tmp / "report.xml").symlink_to(ctx.tmp / "elsewhere.xml")
    return cli_errors("conformance", "--case", "base.2p.1", "--junit", "report.xml")(ctx)


def planted_link(ctx: Context) -> list[str]:
    from escoba import outputs

    shared = ctx.tmp / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    (ctx.tmp / "target").mkdir()
    (shared / "doble").symlink_to(ctx.tmp / "target")
    # The link is ours; as another user, we would not have made it (the tests may run as root).
    ctx.monkeypatch.setattr(outputs.os, "geteuid", lambda: os.getuid() + 4242)
    return cli_errors("cases", "generate", "base", "--out", "shared/doble")(ctx)


def pytest_errors(*argv: str) -> Producer:
    """The `ERROR: ` lines of a pytest run with the plugin (a usage error, exit 4), prefix removed."""

    def produce(ctx: Context) -> list[str]:
        import subprocess

        done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *argv],
                              capture_output=True, text=True, timeout=120, cwd=ctx.tmp)  # fmt: skip
        assert done.returncode == 4, done
        return [line.removeprefix("ERROR: ") for line in done.stderr.splitlines() if line.startswith("ERROR: ")]

    return produce


def cluster_failure(says: bytes | None = None, workers: int | None = None) -> Producer:
    """`escoba simulate --cluster` at a listener saying `says`, or at a scheduler with `workers`
    workers; the connection deadline 1 s."""

    def produce(ctx: Context) -> list[str]:
        from escoba import cluster

        ctx.monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 1.0)
        with contextlib.ExitStack() as stack:
            if says is not None:
                address = stack.enter_context(listening(says))
            else:
                import logging

                from distributed import LocalCluster

                local = stack.enter_context(LocalCluster(n_workers=workers or 0, processes=True, host="127.0.0.1",
                                                         dashboard_address="127.0.0.1:0", silence_logs=logging.CRITICAL))  # fmt: skip
                address = local.scheduler_address
            return cli_failures("simulate", "sv", "--hands", "10", "--cluster", address)(ctx)

    return produce


def cluster_no_chunk(ctx: Context) -> list[str]:
    import time

    from escoba import cluster

    ctx.monkeypatch.setattr(cluster, "REPLY_TIMEOUT", 1.0)
    with pytest.raises(cluster.ClusterError) as raised:
        cluster.run("local", 1, time.sleep, 60, [()], lambda k, result: None)
    return [str(raised.value)]


def cluster_without_dask(ctx: Context) -> list[str]:
    import builtins

    from escoba import cluster

    real = builtins.__import__

    def no_dask(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "distributed" or name.startswith("distributed."):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    ctx.monkeypatch.setattr(builtins, "__import__", no_dask)
    with pytest.raises(cluster.ClusterError) as raised:
        cluster.connect("local", 1)
    return [str(raised.value)]


def served_long(ctx: Context) -> list[str]:
    from escoba.protocol.server import MAX_REQUEST, serve

    out = io.BytesIO()
    serve(ReferenceEngine(), io.BytesIO(b'{"pad": "' + b"a" * MAX_REQUEST + b'"}\n'), out)
    return [json.loads(out.getvalue())["error"]["message"]]


def changed_case(change: Callable[[dict], Any] | None = None, text: Callable[[str], str] | None = None) -> Producer:
    """The message refusing base.2p.1 changed by `change` (on its data) or `text` (on its JSON)."""

    def produce(ctx: Context) -> list[str]:
        source = next(e for e in collect(patterns=["base.2p.1"]) if e.case is not None).case.path
        data = json.loads(source.read_text(encoding="utf-8"))
        if change is not None:
            change(data)
        body = json.dumps(data, indent=1)
        ctx.monkeypatch.chdir(ctx.tmp)
        ctx.file(source.name, text(body) if text is not None else body)
        with pytest.raises(TranscriptError) as raised:
            load_case(source.name)
        return [str(raised.value)]

    return produce


def fifo_case(ctx: Context) -> list[str]:
    ctx.monkeypatch.chdir(ctx.tmp)
    os.mkfifo("x.json")
    with pytest.raises(TranscriptError) as raised:
        load_case("x.json")
    return [str(raised.value)]


def fifo_expectations(ctx: Context) -> list[str]:
    ctx.monkeypatch.chdir(ctx.tmp)
    os.mkfifo("known.yaml")
    code, _, err = run_cli("conformance", "--case", "base.2p.1", "--expectations", "known.yaml")
    assert code == 2
    return [err.removeprefix("escoba conformance: ").rstrip("\n")]


def _zz_in_expect(data: dict) -> None:
    next(e for e in data["expect"] if e["event"] == "table")["cards"][0] = "Zz"


_HOUSE_DECK = "dsl: 1\nextends: base\ndeck:\n"


# --------------------------------------------------------------------------- the examples

BROKEN_LINES = {
    "bad-notation": "tests/broken_cases/bad-notation.json: $.hands[0].moves[2]: unknown card 'Z♦'",
    "duplicate-card": 'tests/broken_cases/duplicate-card.json: $.hands[0].decks[0]: not the 40-card deck of base (twice: 7d; missing: 3c)',
    "events-out-of-order": "tests/broken_cases/events-out-of-order.json: $.expect[3]: 'play' cannot come after 'table'",
    "format-1-with-probe-among-moves": "tests/broken_cases/format-1-with-probe-among-moves.json: $.hands[0].moves[0]: a probe among the moves needs format 2 (the case says format 1)",
    "future-format": 'tests/broken_cases/future-format.json: $.format: format 3 is newer than this escoba understands (2)',
    "id-is-not-the-file-name": "tests/broken_cases/id-is-not-the-file-name.json: $.id: the id 'some.other-id' is not the file name 'id-is-not-the-file-name'",
    "illegal-move": "tests/broken_cases/illegal-move.json: $.hands[0].moves[0]: illegal move 'R♥': capture is compulsory: R♥ can take 4♦ 1♣",
    "missing-cards": 'tests/broken_cases/missing-cards.json: $.hands[0].decks[0]: not the 40-card deck of base (missing: Sc Rc)',
    "not-json": 'tests/broken_cases/not-json.json:3:1: $: not JSON: Expecting property name enclosed in double quotes',
    "pin-matches-nothing": 'tests/broken_cases/pin-matches-nothing.json: $.pins[0]: matches no expected event: {"event": "escoba", "seat": 0, "side": 0, "scores": false}',
    "pin-at-another-place": 'tests/broken_cases/pin-at-another-place.json: $.pins[0]: matches no expected event: {"event": "play", "seat": 0, "card": "Rh", "take": ["2h", "3s"], "at": {"move": 1}}',
    "probe-among-moves-wrong-reason": "tests/broken_cases/probe-among-moves-wrong-reason.json: $.hands[0].moves[0].reason: the probe move is refused as wrong_sum (R♥ 1♣ make 11, not 15), not not_in_hand",
    "probe-wrong-reason": 'tests/broken_cases/probe-wrong-reason.json: $.probe.reason: the probe move is refused as wrong_sum (R♥ 2♥ 1♣ make 13, not 15), not not_in_hand',
    "unfinished-hand": 'tests/broken_cases/unfinished-hand.json: $.hands[0].moves: the hand is not over after 34 moves',
    "unknown-card-code": "tests/broken_cases/unknown-card-code.json: $.hands[0].decks[0][5]: unknown card code '8d' (not in the deck of base)",
    "unknown-field": "tests/broken_cases/unknown-field.json: $: unknown field(s) ('winner' was unexpected)",
    "unknown-ruleset": "tests/broken_cases/unknown-ruleset.json: $.ruleset: unknown ruleset 'dx' (did you mean 'da' or 'de'?); known rulesets: base, da, …",
}


EXAMPLES: dict[str, Producer] = {
    # ---- outputs that cannot be written
    "--write-expectations: cannot write nowhere/known.yaml: no folder nowhere": cli_errors(
        "conformance", "--case", "base.2p.1", "--write-expectations", "nowhere/known.yaml"
    ),
    "--write-expectations: /tmp is a folder, not a file": cli_errors("conformance", "--write-expectations", "/tmp"),
    "--write-expectations: /dev/full is not a regular file (a device or a pipe); write to a file": cli_errors(
        "conformance", "--write-expectations", "/dev/full"
    ),
    "--junit: report.xml is a symbolic link; a result is not written through one (name the file it points to)": linked_report,
    "--write-expectations: cannot write known.yaml: No space left on device": full_disk,
    "--out: notes.txt is not a folder": lambda ctx: (ctx.file("notes.txt", "") and cli_errors("cases", "generate", "base", "--out", "notes.txt")(ctx)),
    "--out: cannot make /dev/null/found: /dev/null is not a folder": cli_errors("explore", "--out", "/dev/null/found"),
    "--out: cannot write /proc/found: …": cli_errors("explore", "--out", "/proc/found"),
    "--out: shared/doble is a symbolic link another user made in a folder others can write; not followed": planted_link,
    "--plot: cannot draw a '.nope' file; name it .png, .svg or .pdf (or …)": cli_errors("diff", "da", "sv", "--plot", "chart.nope"),
    "cannot write to standard output: No space left on device": process_errors('exec "$@" > /dev/full', "show", "base"),
    "standard output is closed; nothing could be written": process_errors('exec "$@" >&-', "show", "base"),
    # ---- ruleset: the file
    "is a directory, not a ruleset file": ruleset("a-directory.yaml"),
    "not a regular file (a pipe, a device or a socket); a ruleset is a text file": lambda ctx: [p.message for p in check("/dev/zero")],
    "cannot read the file: Permission denied": unreadable,
    "file larger than 1048576 bytes; a ruleset is a small text file": ruleset("dsl: 1\ntitle: " + "x" * (1 << 20) + "\n"),
    "binary data (a NUL byte), not a YAML text file": ruleset("binary-junk.yaml"),
    "not UTF-8: byte 0xf1 cannot be decoded; save the file as UTF-8": ruleset("not-utf8.yaml"),
    "empty file; a ruleset is a YAML mapping (start with 'dsl: 1')": ruleset("empty.yaml"),
    # ---- ruleset: YAML
    "YAML syntax error: did not find expected ',' or ']' (while parsing a flow sequence at line 4)": ruleset("yaml-syntax-error.yaml"),
    "character #x0007 is not allowed in YAML text": ruleset("control-character.yaml"),
    "several YAML documents in one file; a ruleset file holds one": ruleset("several-documents.yaml"),
    "expected a mapping of keys to values at the top, got a list": ruleset("not-a-mapping.yaml"),
    "duplicate key 'target' (first at line 4)": ruleset("duplicate-key.yaml"),
    "'no' is read as a boolean by YAML 1.1: write true or false, or quote it (\"no\") for the text": ruleset("no-as-value.yaml"),
    "an unquoted ',' inside {…} ended the value, and the rest ('7)) >= 3') became a key: quote the measure, as in measure: \"count(rank(cards, 7)) >= 3\"": ruleset(
        "dsl: 1\nextends: base\nscoring:\n  categories:\n    - {id: siete, measure: count(rank(cards, 7)) >= 3, award: {policy: bonus}}\n"
    ),
    "key 'on' is read as a boolean by YAML 1.1; quote it (\"on\")": ruleset("on-as-key.yaml"),
    "key 7 is not a string; quote it (\"7\")": ruleset("non-string-key.yaml"),
    "'015' is not a plain decimal number, a form YAML versions read differently; write it in decimal, or quote it": ruleset("octal-number.yaml"),
    "'2024-05-01' is read as a date by YAML 1.1; quote it (\"2024-05-01\")": ruleset("date-value.yaml"),
    "'.inf' is not a finite number": ruleset("infinite-number.yaml"),
    "'1234567890123456' is too large a number for a ruleset (more than 15 digits)": ruleset(
        "dsl: 1\nextends: base\ncapture:\n  target: 1234567890123456\n"
    ),
    "merge key '<<' is not YAML 1.2; write the keys out (or use extends:)": ruleset("merge-key.yaml"),
    "tag '!!python/object/apply:os.system' is not allowed: a ruleset holds only plain YAML data": ruleset("python-tag.yaml"),
    "'x' does not match its tag '!!int'": ruleset("dsl: 1\nextends: base\ncapture:\n  target: !!int x\n"),
    "alias '*twenty_one' refers to no anchor defined before it": ruleset("undefined-alias.yaml"),
    "more than 100000 nodes (after expanding aliases): refused as an alias bomb": ruleset("alias-bomb.yaml"),
    "more than 4194304 characters of text (after expanding aliases): refused as an alias bomb": ruleset(
        'dsl: 1\nextends: base\nx: &a "' + "y" * 600_000 + '"\nz: [' + ", ".join(["*a"] * 20) + "]\n"
    ),
    "nested deeper than 64 levels": ruleset("too-deep.yaml"),
    # ---- ruleset: extends
    "no such file ./parents/nope.yaml (looked in .)": ruleset("extends-missing-file.yaml"),
    "unknown ruleset 'dx' …": ruleset("unknown-extends.yaml"),
    "must name a ruleset id or a path to a file": ruleset("extends-not-a-string.yaml"),
    "cycle: cycle-a.yaml → cycle-b.yaml → cycle-a.yaml": ruleset("cycle-a.yaml"),
    "a chain deeper than 64 rulesets": lambda ctx: [
        p.message
        for p in check(
            str(
                [ctx.file(f"l{n}.yaml", f"dsl: 1\nextends: {'base' if n == 1 else f'l{n - 1}.yaml'}\n") for n in range(1, 67)][-1]
            )
        )
    ],
    "'../../etc/passwd' is outside the folder of this file; name a file in . (or below it), a bundled id, or add its folder with --rules-path": ruleset_here(
        "dsl: 1\nextends: ../../etc/passwd\n"
    ),
    "'./a\\x00b.yaml' names no file: a file name cannot hold a NUL byte": ruleset('dsl: 1\nextends: "./a\\0b.yaml"\n'),
    "'./notes.txt' is not a ruleset (it does not load as YAML with 'dsl:' at its top)": ruleset_here(
        "dsl: 1\nextends: ./notes.txt\n", notes_txt="root:x:0:0:root:/root:/bin/bash\n"
    ),
    "this item has no 'id'; the items of this list are merged by id": ruleset("category-without-id.yaml"),
    "an id must be a name, not a list": ruleset("category-id-a-list.yaml"),
    "duplicate id 'velo' (first at line 5)": ruleset("duplicate-category-id.yaml"),
    "no item 'setenta' to remove (the parent 'base' has none)": ruleset("remove-unknown-category.yaml"),
    # ---- ruleset: schema
    "unknown key 'awrd' (expected one of: award, id, measure, measured_on, points, provenance, remove, title)": ruleset("unknown-key.yaml"),
    "missing required key 'more_than'": ruleset("missing-required.yaml"),
    "expected an integer, got 'three'": ruleset("wrong-type.yaml"),
    "'mayority' is not one of the policies: most, threshold, holder, per_unit, bonus": ruleset("unknown-policy.yaml"),
    "key 'ties' is not used by the policy 'holder'": ruleset("key-not-used-by-policy.yaml"),
    "provenance for unknown key 'targt' (expected one of: target, compulsory, …)": ruleset("provenance-unknown-key.yaml"),
    "unsupported DSL version 2 (this escoba reads dsl: 1)": ruleset("dsl-version.yaml"),
    "must be at least 1, got 0": ruleset("several-schema-errors.yaml"),
    "must be at most 2, got 3": ruleset("jokers-out-of-range.yaml"),
    "'My_Rules' does not have the expected form (lower-case letters, digits and '-', starting with a letter)": ruleset("bad-id.yaml"),
    "repeated item: 2": ruleset("several-schema-errors.yaml"),
    "needs at least 1 item, got 0": ruleset("dsl: 1\nextends: base\nplayers:\n  counts: []\n"),
    "must not be empty": ruleset("dsl: 1\nextends: base\ndeck:\n  suits:\n    - {id: oros, symbol: ''}\n"),
    # ---- ruleset: meaning
    "id 'da2' does not match the file name da.yaml": mismatched_id,
    "'♦' already names suit 'oros'": ruleset("duplicate-suit-symbol.yaml"),
    "the ascii form 'ó' must be ASCII letters and digits: it is part of a card's code on the wire": ruleset(
        _HOUSE_DECK + "  suits:\n    - {id: oros, ascii: 'ó'}\n"
    ),
    "card code '11d' names both sota of oros and 1 of copas": ruleset(
        _HOUSE_DECK + "  suits:\n    - {id: copas, ascii: 1d}\n  ranks:\n    - {id: sota, ascii: '11'}\n"
    ),
    "rank id 'oros' is also a suit id": ruleset("dsl: 1\nextends: base\ndeck:\n  ranks:\n    - {id: oros, name: Oros, ascii: O, value: 1}\n"),
    "no suit 'ors' in the deck (did you mean …?)": ruleset("dsl: 1\nextends: base\ndeck:\n  scoring_suit: ors\n"),
    "'S' is not a rank id; write its id 'sota'": ruleset("values-unknown-rank.yaml"),
    "partnerships for 4 players, but players.counts is [2, 3]": ruleset("partnership-count-not-allowed.yaml"),
    "a second partnerships entry for 4 players (first at line 5)": ruleset("duplicate-partnership-entry.yaml"),
    "seat 2 is in two sides (0 and 1)": ruleset("partnerships-share-seat.yaml"),
    "seat 3 in no side; the sides must seat all 4 players": ruleset("partnership-seat-missing.yaml"),
    "seat 5 does not exist with 3 players (seats 0 to 2)": ruleset(
        "dsl: 1\nextends: base\nplayers:\n  partnerships:\n    - {players: 3, sides: [[0], [1, 2, 5]]}\n"
    ),
    "with 2 players, 36 cards (40 + 0 jokers − 4 on the table) do not deal in whole rounds of 2 × 4 = 8; change hand_size or table_size, or set short_stock: one_at_a_time": ruleset(
        "undealable-hand-size.yaml"
    ),
    "with 4 players, 4 cards (40 + 0 jokers − 36 on the table) are too few for one round of 4 × 3": ruleset(
        "dsl: 1\nextends: base\nplayers:\n  counts: [4]\ndeal:\n  table_size: 36\n"
    ),
    "no played card and table cards can make 1 with this deck's values": ruleset("unreachable-target.yaml"),
    "no capture.target, but a 'sum: target' capture kind uses it": lambda ctx: ruleset(base_without_target())(ctx),
    "a second capture kind with sum 'card': each sum is one kind": ruleset(
        "dsl: 1\nextends: base\ncapture:\n  kinds: [{sum: card}, {sum: card, priority: single_card}]\n"
    ),
    "jokers are wild only in captures that make the target: with deck.jokers, capture.kinds must be [{sum: target}] (the language has no wild card in a sum to a card's value, nor a priority among joker captures)": ruleset(
        "dsl: 1\nextends: de-jokers\ncapture:\n  kinds: [{sum: card}]\n"
    ),
    "a 'sum: card' capture makes a card's value, which must be at most 30, not 40": ruleset(
        "dsl: 1\nextends: base\ncapture:\n  kinds: [{sum: card}]\ndeck:\n  ranks:\n    - {id: rey, value: 40}\n"
    ),
    "no card '8 oros' in the deck": ruleset("holder-undefined-card.yaml"),
    'a \'sum: table\' kind names the ranks that take the whole table (ranks: ["1"] for the aces)': ruleset(
        "dsl: 1\nextends: base\ncapture:\n  kinds: [{sum: target}, {sum: table}]\n"
    ),
    "a 'sum: table' kind has one capture, the whole table: no priority": ruleset(
        "dsl: 1\nextends: base\ncapture:\n  kinds: [{sum: target}, {sum: table, ranks: [1], priority: none}]\n"
    ),
    "a 'sum: table' kind needs a kind that sums beside it (target or card): the other cards capture by it": ruleset(
        "dsl: 1\nextends: base\ncapture:\n  kinds: [{sum: table, ranks: [1]}]\n"
    ),
    "no rank 'ace' in the deck": ruleset("dsl: 1\nextends: base\ncapture:\n  kinds: [{sum: target}, {sum: table, ranks: [ace]}]\n"),
    "'ranks' belongs to a 'sum: table' kind, not to 'sum: target'": ruleset(
        "dsl: 1\nextends: base\ncapture:\n  kinds: [{sum: target, ranks: [1]}]\n"
    ),
    "a category measured on dealt cards scores per declaration: award per_unit, not most": ruleset(
        "dsl: 1\nextends: base\nscoring:\n  categories:\n    - {id: cards, measured_on: dealt}\n"
    ),
    "'escobas' is not known when the cards are dealt: a measure of dealt cards sees 'cards' and 'deck'": ruleset(
        "dsl: 1\nextends: base\nopening_table:\n  redeal_when: escobas > 0\n"
    ),
    "the measure of a way to win at once must be a condition (true or false), got a number": ruleset(
        "dsl: 1\nextends: base\nmatch:\n  wins_outright:\n    - {id: lots, measure: count(cards)}\n"
    ),
    "a second way to win at once with id 'cappotto'": ruleset(
        "dsl: 1\nextends: base\nmatch:\n  wins_outright:\n    - {id: cappotto, measure: count(cards) > 30}\n"
        "    - {id: cappotto, measure: count(cards) > 35}\n"
    ),
    "unknown name 'cardz' (did you mean 'cards'?)": ruleset("unknown-name-in-expression.yaml"),
    "the measure of a 'bonus' award must be a condition (true or false), got a number": ruleset("bonus-not-a-condition.yaml"),
    "a citation with status 'interpreted' needs a note saying why": ruleset("interpreted-without-note.yaml"),
    "no source '000_danish.txt' in spec/sources/ (known: …)": ruleset("unknown-source-file.yaml"),
    "a citation of 000_5865a39d489bd456.txt needs a quote": ruleset("source-without-quote.yaml"),
    "a quote needs a gloss (its English translation)": ruleset("quote-without-gloss.yaml"),
    "the gloss is a single string but the quote is a list of 2: give one gloss per quote": ruleset("gloss-length-mismatch.yaml"),
    'quote not found in 000_5865a39d489bd456.txt: "Man fanger altid med en konge."': ruleset("quote-not-in-source.yaml"),
    "a source ruleset names its source document (source: FILE in spec/sources/)": ruleset("dsl: 1\nkind: source\nextends: base\n"),
    "no provenance for 'compulsory': a source ruleset cites every rule it sets": ruleset("source-kind-uncited-key.yaml"),
    "no provenance for category 'sevens': a variant ruleset cites every rule it sets": ruleset(
        "dsl: 1\nkind: variant\nextends: base\nsource: 000_5865a39d489bd456.txt\nscoring:\n  categories:\n"
        "    - {id: sevens, measure: 'count(rank(cards, 7))', award: {policy: most}}\n"
    ),
    # ---- ruleset: on the command line
    "unknown ruleset 'dx' (did you mean 'da' or 'de'?); known rulesets: base, da, …": cli_errors("check", "dx"),
    "an empty name is neither a ruleset id nor a file": cli_errors("check", ""),
    "no such file: spec/house/nope.yaml": cli_errors("check", "spec/house/nope.yaml"),
    # ---- expressions
    "expected ')' or ',' here": expression("count(cards"),
    "expected ')' here": expression("(count(cards) + 1"),
    "expected an expression here": expression("1 +"),
    "unexpected 'oros', expected ')' or ',' here": expression("count(cards oros)"),
    "unexpected '1', expected an operator or the end of the expression here": expression("count(cards) 1"),
    "expected 'else' here": expression("1 if true"),
    "comparisons do not chain: write 'a < b and b < c'": expression("1 < 2 < 3"),
    "unexpected character '=' (compare with '==')": expression("count(cards) = 1"),
    "unknown name 'coins' (did you mean 'oros'?)": expression("coins"),
    "unknown suit 'espada' (did you mean 'espadas'?)": expression("count(suit(cards, espada))"),
    "unknown rank '11'": expression("count(rank(cards, 11))"),
    "unknown value map 'primiera' (did you mean 'primera'?)": expression("best(cards, primiera)"),
    "unknown function 'cuont' (did you mean 'count'?)": expression("cuont(cards)"),
    "unknown function 'escoba_cards'; functions: count, suit, rank, card, best, total, of_a_kind, min, max, played, taken, made_with, taking, first_play, last_play, in_round": expression(
        "escoba_cards(cards)"
    ),
    "unknown name 'opponent': a measure is evaluated for one side at a time and cannot see another side; comparing sides is the award policy's job (most, threshold)": expression(
        "count(opponent)"
    ),
    "unexpected 'for': the measure language has no loops, variables or comprehensions; filter lists of captures with made_with(), taking(), first_play(), last_play() and in_round()": expression(
        "count(c for c in sweeps)"
    ),
    "played() expects a list of captures as its first argument, got a set": expression("played(cards)"),
    "in_round() expects a round number (1, 2, ...) as its second argument": expression("in_round(sweeps, escobas)"),
    "'count' is a function: write count(...)": expression("count"),
    "count() takes 1 argument, got 2": expression("count(cards, deck)"),
    "suit() expects a suit as its second argument, got a number": expression("suit(cards, 7)"),
    "'+' needs numbers, got a set": expression("cards + 1"),
    "'and' needs conditions, got a number": expression("count(cards) and true"),
    "'not' needs a condition, got a number": expression("not escobas"),
    "'if' needs a condition, got a number": expression("1 if escobas else 2"),
    "the branches of 'if ... else' must be of one type, got a number and a condition": expression("1 if true else false"),
    "a measure must be a number or a condition, got a set": expression("suit(cards, oros)"),
    "'cards' belongs to a side and cannot be used here; only 'deck' can": expression("count(cards) / 2", "global"),
    "expression too long: 2001 characters, at most 2000": expression("1" + " " * 2000),
    "expression nested too deeply (more than 50 levels)": expression("(" * 51 + "1" + ")" * 51),
    "number too large: at most 15 digits before the point": expression("count(cards) * " + "9" * 400),
    # ---- notation
    "empty move": notation(""),
    "unknown card 'Z♦'": notation("7♦ x Z♦"),
    "unknown card '8♦' (the Spanish deck has no 8, 9 or 10: sota, caballo and rey count 8, 9, 10)": notation("8♦"),
    "3♣ is named twice": notation("7♦ x 3♣ 3c"),
    "a move plays one card; write 'x' before the cards it takes": notation("7♦ 3♣"),
    "expected a card here": notation("7♦ x"),
    "expected the card played before 'x'": notation("x 3♣"),
    "unexpected 'x', expected a card here": notation("7♦ x x 3♣"),
    "a move has one 'x'": notation("7♦ x 3♣ x 5♥"),
    "unexpected ',', expected a card here": notation("7♦ x 3♣,, 5♥"),
    "unexpected character '\\n'": notation("7♦\nx 3♣"),
    "move too long: 300 characters, at most 200": notation("7♦ " * 100),
    "expected a single card, not a move": notation("7♦ x 3♣", parse_card),
    "expected a single card": notation("7♦ 5♥", parse_card),
    "expected cards, not a move": notation("7♦ x 3♣", parse_cards),
    "a move is an object with exactly the keys 'card' and 'take'": notation({"card": "7d"}, move_from_wire),
    "'take' must be a list of card codes": notation({"card": "7d", "take": "3c"}, move_from_wire),
    "unknown card code '7♦'": notation({"card": "7♦", "take": []}, move_from_wire),
    "a card is named twice in the move": notation({"card": "7d", "take": ["3c", "3c"]}, move_from_wire),
    # ---- illegal moves (the engine's words, then the protocol's reason)
    "6♦ is not in the hand of seat 1": illegal("6♦"),
    "not_in_hand": illegal("6♦"),
    "4♦ is not on the table": illegal("7♦ x 4♦"),
    "not_on_table": illegal("7♦ x 4♦"),
    "7♦ 2♠ 3♣ make 12, not 15": illegal("7♦ x 3♣ 2♠"),
    "wrong_sum": illegal("7♦ x 3♣ 2♠"),
    "2♠ 3♣ make 5, not 10 (the value of R♥)": illegal("R♥ x 3♣ 2♠", scopa=True),
    "7♦ must take a single card first: it can take 7♣, not 1♦ 4♥ 2♠": illegal("7♦ x 1♦ 4♥ 2♠", scopa=True, table="7♣ 4♥ 1♦ 2♠"),
    "priority": illegal("7♦ x 1♦ 4♥ 2♠", scopa=True, table="7♣ 4♥ 1♦ 2♠"),
    "capture is compulsory: 7♦ can take 1♦ 5♥ 2♠": illegal("7♦"),
    "compulsory": illegal("7♦"),
    "the hand is over": illegal("7♦", finished=True),
    "hand_over": illegal("7♦", finished=True),
    # ---- escoba play entries
    "no move number 99: choose 1 to 5": entry("99"),
    "'hello' is not a move: type a move number, a card (7d) or a capture (7d x 3c 5h); ? lists the moves": entry("hello"),
    "6♦ is not in your hand": entry("6♦"),
    "7♦ can take 1♦ 5♥ 2♠ or 5♥ 3♣: type the whole capture, e.g. 7♦ x 1♦ 5♥ 2♠": entry("7♦"),
    # ---- the library
    "base is played by 2, 3, 4 players, not 5": api(lambda: Hand(escoba.load_ruleset("base"), 5)),
    "dealer must be a seat from 0 to 1, got 2": api(lambda: Hand(escoba.load_ruleset("base"), 2, 2)),
    "the deck order is not the 40-card deck of base (twice: 7d; missing: 3c)": api(_short_deck),
    "the opening table needs a redeal but no further deck order was given": api(
        lambda: Hand(escoba.load_ruleset("de-redeal"), 2, 0, [arrange_deck(escoba.load_ruleset("de-redeal"), 2, 0, ["7♦", "S♦", "7♣", "S♣"], [])])
    ),
    "no playable deal after 64 redeals": api(_redeals_forever),
    "the target must be a positive number of points, got 0": api(lambda: Match(escoba.load_ruleset("base"), 2, target=0)),
    "the match is over": api(_match_over),
    "the current hand is not finished": api(_hand_not_finished),
    "no finished hand to count": api(lambda: Match(escoba.load_ruleset("base"), 2, seed=1).end_hand()),
    "a card is dealt twice": api(lambda: arrange_deck(escoba.load_ruleset("base"), 2, 0, ["7♦"], [[["7♦"], []]])),
    "the number of hands must be at least 1, got 0": api(lambda: simulate("base", 0)),
    "unknown bot 'clever'; known bots: random, greedy, expert, learned, search:PLAYOUTS, strong[:PLAYOUTS]": api(lambda: simulate("base", 1, bots=["clever"])),
    # ---- the reference engine's refusals
    "not JSON: Expecting value: line 1 column 1 (char 0)": served(b"hello"),
    "a request is a JSON object": served(b"[1, 2]"),
    "not JSON: NaN is not JSON": served(b'{"id": NaN, "cmd": "hello", "protocol": 1}'),
    "not JSON: Exceeds the limit (4300 digits) for integer string conversion…": served(b'{"id": ' + b"9" * 5000 + b"}"),
    "request line longer than 16777216 bytes (not read)": served_long,
    "a request needs `cmd`, a string": engine_reply({"cmd": 7}),
    "unknown command 'dance'": engine_reply({"cmd": "dance"}),
    "this engine speaks protocol 1, not 2": engine_reply({"cmd": "hello", "protocol": 2}),
    "no game in progress: send `start` first": engine_reply({"cmd": "legal"}),
    "start needs `players` and `dealer`, integers": engine_reply({**_start(), "players": "two"}),
    "'Zz' is not a card code of this deck": engine_reply({**_start(), "decks": [["Zz"]]}),
    "next_hand needs a match in progress (start with a target)": engine_reply(_start(), {"cmd": "next_hand", "decks": [[]]}),
    "bad_request: base is played by 2, 3, 4 players, not 5": engine_reply({**_start(), "players": 5}),
    "bad_request: the ruleset in start is not valid: $.capture.target: must be at most 30, got 150": engine_reply(
        {**_start(), "ruleset": {**_start()["ruleset"], "capture": {**_start()["ruleset"]["capture"], "target": 150}}}
    ),
    # ---- golden case files: the files of tests/broken_cases/, named in full
    **{line: broken_case(name) for name, line in BROKEN_LINES.items()},
    "a case is a JSON object": case_file("x.json", "[]"),
    "not UTF-8 (byte 0)": case_file("x.json", b"\xff{}"),
    "nowhere: no such folder of cases": case_file("x.json", "{}", folder=True),
    "base.2p.1.json: $.dealer: 1.0 is not of type 'integer'": changed_case(lambda d: d.update(dealer=1.0)),
    "base.2p.1.json: $: not JSON: NaN is not JSON": changed_case(text=lambda t: re.sub(r'"dealer": \d+', '"dealer": NaN', t, count=1)),
    "base.2p.1.json: $.expect[2].cards[0]: unknown card code 'Zz' (not in the deck of base)": changed_case(_zz_in_expect),
    "x.json: $: not a regular file (a pipe, a device or a socket); a case is a file": fifo_case,
    # ---- conformance outcomes
    "event 3 (opening): $.escobas differ": conformance(mutant("opening-one-escoba-only"), "opening.thirty-splits.fr"),
    "known: we count one escoba for a split 30": conformance(
        mutant("opening-one-escoba-only"), "opening.thirty-splits.fr",
        pins={"opening.thirty-splits.fr": Expectation("fail", "opening-table", note="we count one escoba for a split 30")},
    ),
    "NEW: pinned as fail (capture), now fail (opening-table at event 3)": conformance(
        mutant("opening-one-escoba-only"), "opening.thirty-splits.fr", pins={"opening.thirty-splits.fr": Expectation("fail", "capture")}
    ),
    "pinned as fail (capture) but passes: remove the pin": conformance(
        lambda: InProcessSession(), pins={"base.2p.1": Expectation("fail", "capture")}
    ),
    "needs players.partnerships:0+2/1+3": conformance(
        twisted(lambda q, r: r, tuple(f for f in reference_features() if not f.startswith("players.partnerships"))), "partnerships.4p.de"
    ),
    "play 1c x 4d 2h Sc (hand 1, play 2): the engine refused: internal: not today": conformance(fake("refuse", "--after", "1")),
    "play: the engine exited with status 3 before answering": conformance(fake("exit", "--after", "2")),
    "start: no reply within 1 s": conformance(fake("hang", timeout=1.0)),
    # ---- protocol failures
    "garbage: reply is not JSON (Expecting value: line 1 column 1 (char 0)): b'Traceback (most recent call last): oops'": conformance(fake("not-json")),
    "oversized reply: start: reply line longer than 1048576 bytes (stopped reading)": conformance(fake("huge-line")),
    "wrong id: reply id 1004 does not echo request id 4": conformance(fake("wrong-id", "--after", "0")),
    "protocol violation: start: reply needs `events`, a list": conformance(fake("lie")),
    "wrong id: reply id True does not echo request id 2": conformance(fake("id-true")),
    "protocol violation: start: reply has unknown field(s) 'debug' (allowed: id, ok, events)": conformance(fake("extra-field")),
    "protocol violation: legal: moves[2] is not a move {card, take}": conformance(
        twisted(_on("legal", lambda r: {**r, "moves": r["moves"][:2] + [{"card": "7d"}]} if len(r.get("moves", [])) > 2 else r))
    ),
    "protocol violation: hello: engine speaks protocol 2, the runner speaks 1": conformance(twisted(_on("hello", lambda r: {**r, "protocol": 2}))),
    "protocol violation: play: unknown error.kind 'oops' (one of bad_json, …)": conformance(
        twisted(_on("play", lambda r: {"id": r["id"], "ok": False, "error": {"kind": "oops", "message": "?"}}))
    ),
    "not run: the engine failed to start 3 times in a row (last: hello: the engine exited with status 2 before answering)": conformance(
        fake("exit-at-once"), cases=4
    ),
    # ---- runner errors (exit 2)
    "unknown ruleset 'xx'; known rulesets: base, da, …": cli_errors("conformance", "--ruleset", "xx"),
    "no case matches the selection (--case opening.nope*)": cli_errors("conformance", "--case", "opening.nope*"),
    "--engine: No closing quotation": cli_errors("conformance", "--engine", "a 'b"),
    "--engine: an empty command": cli_errors("conformance", "--engine", ""),
    "--timeout must be more than 0 seconds, got 0": cli_errors("conformance", "--timeout", "0"),
    "known.yaml: cannot read expectations: No such file or directory": expectations_error("known.yaml", ""),
    "known.yaml: not valid YAML: …": expectations_error("known.yaml", "cases: [\n"),
    "known.yaml: cannot read expectations: not a regular file (a pipe, a device or a socket)": fifo_expectations,
    'known.yaml: $.cases["a.b"].outcome: \'pass\' is not one of fail, error, crash, timeout, unsupported, broken-case': expectations_error(
        "known.yaml", "cases:\n  a.b: {outcome: pass}\n"
    ),
    'known.yaml: $.cases["a.b"].index: an event index (0 or more), not -1': expectations_error(
        "known.yaml", "cases:\n  a.b: {outcome: fail, index: -1}\n"
    ),
    "known.yaml: $.cases[\"a.b\"]: unknown key 'colour' (allowed: outcome, class, index, note)": expectations_error(
        "known.yaml", "cases:\n  a.b: {outcome: fail, colour: red}\n"
    ),
    # ---- other commands (exit 2)
    "the following arguments are required: COMMAND": cli_errors(),
    "argument COMMAND: invalid choice: 'nope' (choose from …)": cli_errors("nope"),
    "argument --format: invalid choice: 'xml' (choose from 'text', 'json')": cli_errors("check", "--format", "xml"),
    "base is played by 2, 3 or 4 players, not 5": cli_errors("play", "base", "--players", "5"),
    "--target must be at least 1, got 0": cli_errors("play", "base", "--target", "0"),
    "--format json needs --auto: a person plays in the text view": cli_errors("play", "base", "--format", "json"),
    "--record needs a bundled ruleset id (a case names its ruleset by id), not velo-dos.yaml": lambda ctx: (
        ctx.file("velo-dos.yaml", "dsl: 1\nextends: da\n") and cli_errors("play", "velo-dos.yaml", "--record", "game.json")(ctx)
    ),
    "--record game.json: the file exists; not overwritten": lambda ctx: (
        ctx.file("game.json", "{}") and cli_errors("play", "base", "--record", "game.json")(ctx)
    ),
    "'My_Rules' is not a ruleset id: use lower-case letters, digits and '-', starting with a letter": cli_errors(
        "new", "My_Rules", "--extends", "da"
    ),
    "mine.yaml already exists; not overwritten (choose another name or delete it)": lambda ctx: (
        ctx.file("mine.yaml", "keep") and cli_errors("new", "mine", "--extends", "da")(ctx)
    ),
    "'-' (standard input) may be given once": cli_errors("check", "-", "-"),
    "unknown bot 'foo' in --bots; known bots: random, greedy, expert, learned, search:PLAYOUTS, strong[:PLAYOUTS]": cli_errors("simulate", "base", "--bots", "foo"),
    "--hands must be at least 1, got 0": cli_errors("simulate", "base", "--hands", "0"),
    "--target needs --matches (single hands have no target)": cli_errors("simulate", "base", "--target", "5"),
    "--jobs must be 0 (one per CPU) or more, got -1": cli_errors("simulate", "base", "--jobs", "-1"),
    "--players must be 2 or more, got 1": cli_errors("bench", "--players", "1"),
    "none of these rulesets is played by 5 players": cli_errors("bench", "de", "--players", "5"),
    "--hands must be 0 or more, got -1": cli_errors("diff", "da", "sv", "--hands", "-1"),
    "standard input is closed; nothing to read for '-'": process_errors('exec "$@" <&-', "check", "-"),
    "standard input is closed; a person plays by typing moves (or watch with --auto)": process_errors('exec "$@" <&-', "play", "base"),
    "--rulesets: no ruleset named in ''; give ids or files, separated by commas": cli_errors("matrix", "--rulesets", ""),
    # ---- explore, identify, shrink, site
    "the engine did not start (…): hello: the engine exited with status 2 before answering": cli_errors(
        "explore", "--engine", f"{sys.executable} {FAKE} exit-at-once"
    ),
    "--out site: a folder that holds something other than an escoba site; choose an empty or new folder": lambda ctx: (
        ctx.file("site/keep.txt", "mine") and cli_errors("site", "--out", "site")(ctx)
    ),
    # ---- the pytest plugin (pytest's usage errors)
    "--escoba-timeout must be more than 0 seconds, got nan": pytest_errors("--escoba-engine", "escoba engine", "--escoba-timeout", "nan"),
    "--escoba-engine: an empty command": pytest_errors("--escoba-engine", ""),
    "--escoba-engine: No closing quotation": pytest_errors("--escoba-engine", "a 'b"),
    "the engine did not start (no-such-engine): cannot start no-such-engine: …": pytest_errors("--escoba-engine", "no-such-engine"),
    # ---- the cluster
    "--cluster: 'no::such::host' is not a scheduler address (invalid address 'no::such::host'; maybe: ipv6 needs brackets like [::1]); write tcp://HOST:PORT, or local": cli_errors(
        "simulate", "sv", "--hands", "10", "--cluster", "no::such::host"
    ),
    "cannot reach the Dask scheduler at tcp://127.0.0.1:9: …": cli_failures("simulate", "sv", "--hands", "10", "--cluster", "tcp://127.0.0.1:9"),
    "cannot reach the Dask scheduler at …: no handshake within … s": cluster_failure(b""),
    "cannot reach the Dask scheduler at …: it does not speak Dask (a first message of 18446744073709551615 bytes)": cluster_failure(b"\xff" * 64),
    "the Dask scheduler at … cannot run chunks: it has no worker after … s": cluster_failure(workers=0),
    "the Dask cluster at … finished no chunk within … s (no worker left?)": cluster_no_chunk,
    "--cluster needs Dask: pip install 'escoba[cluster]'": cluster_without_dask,
    "unknown bot 'foo' in --second-bots; known bots: random, greedy, expert, learned, search:PLAYOUTS, strong[:PLAYOUTS]": cli_errors("diff", "da", "sv", "--second-bots", "foo"),
}


# --------------------------------------------------------------------------- tests


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Context]:
    yield Context(tmp_path, monkeypatch)


def test_every_documented_example_has_a_producer() -> None:
    """Each example in docs/errors.md is listed here, and each listed example is in the document."""
    found = documented()
    assert len(found) == len(set(found)), "an example appears twice in docs/errors.md"
    assert sorted(found) == sorted(EXAMPLES)


@pytest.mark.parametrize("example", list(EXAMPLES), ids=lambda e: e[:60])
def test_documented_example_is_produced(example: str, ctx: Context) -> None:
    """The code produces the documented example message, word for word."""
    produced = EXAMPLES[example](ctx)
    assert any(matches(example, message) for message in produced), produced
