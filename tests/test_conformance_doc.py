"""docs/conformance.md's example outputs are what the commands print now.

Each example in the walkthrough follows a marker `<!-- example: NAME -->`; the producer of that
name runs the command it shows (the reference engine, the documented minimal engine, a mutant
engine standing for "my engine") and the block must be its output, timings aside. To refresh
the docs after a deliberate change: `python tests/test_conformance_doc.py` prints every block.
"""

from __future__ import annotations

import contextlib
import functools
import io
import re
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
DOC = ROOT / "docs" / "conformance.md"
ENGINES = ROOT / "tests" / "engines"


def cli(*args: str) -> str:
    """`escoba ARGS` as a console transcript (stdout only)."""
    from escoba.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(list(args))
    return out.getvalue()


def shown(command: str, output: str) -> str:
    return f"$ {command}\n{output}"


def reference() -> str:
    return shown("escoba conformance", cli("conformance"))


def minimal() -> str:
    engine = f"{shlex.quote(sys.executable)} docs/examples/minimal_engine.py"
    with contextlib.chdir(ROOT):
        output = cli("conformance", "--engine", engine, "--ruleset", "fr", "base")
    command = 'escoba conformance --engine "python docs/examples/minimal_engine.py" --ruleset fr base'
    return shown(command, output.replace(engine, "python docs/examples/minimal_engine.py"))


def _mutant_report(name: str, cases: list[str] | None, label: str, **flags: bool) -> str:
    """A mutant engine's run, reported as if it were `label` (the reader's own engine)."""
    from escoba.conformance.report import render_text
    from escoba.conformance.runner import Runner, collect
    from escoba.protocol.client import InProcessSession

    sys.path.insert(0, str(ENGINES))
    from mutants import MUTANTS

    entries = collect(patterns=cases or ())
    engine = type("MyEngine", (MUTANTS[name],), {"name": "my-engine", "version": "0.3"})
    replay = lambda case: f"escoba conformance --engine {shlex.quote(label)} --case {case}"
    report = Runner(lambda: InProcessSession(engine), command=label, replay=replay).run(entries)
    return render_text(report, **flags)


def failure() -> str:
    text = _mutant_report("opening-one-escoba-only", ["opening.thirty-splits.fr"], "python my_engine.py")
    return shown("escoba conformance --engine 'python my_engine.py' --case opening.thirty-splits.fr", text)


def every_divergence() -> str:
    text = _mutant_report("capture-optional", ["compulsory.card.da"], "python my_engine.py", all_divergences=True)
    return shown("escoba conformance --engine 'python my_engine.py' --case compulsory.card.da --all-divergences", text)


def profile() -> str:
    text = _mutant_report("opening-15-not-escoba", None, "python my_engine.py")
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("rules profile:"))
    return shown("escoba conformance --engine 'python my_engine.py'", "…\n" + "\n".join(lines[start:]) + "\n")


def grid() -> str:
    """Two engines, the reference and "my engine", on a few cases: the summary lines and the grid."""
    from escoba.conformance.report import render_grid, summary_line
    from escoba.conformance.runner import Runner, collect
    from escoba.protocol.client import InProcessSession

    sys.path.insert(0, str(ENGINES))
    from mutants import MUTANTS

    entries = collect(patterns=["opening.fifteen.*", "probe.wrong-sum.base"])
    mine = type("MyEngine", (MUTANTS["opening-15-not-escoba"],), {"name": "my-engine", "version": "0.3"})
    reports = [
        Runner(InProcessSession, command="escoba engine").run(entries),
        Runner(lambda: InProcessSession(mine), command="python my_engine.py").run(entries),
    ]
    lines = [f"{r.engine.command}: {summary_line(r)}" for r in reports]
    command = "escoba conformance --engine 'escoba engine' --engine 'python my_engine.py' --case 'opening.fifteen.*' --case probe.wrong-sum.base"
    return shown(command, "\n".join(lines) + "\n\n" + render_grid(reports))


def audit() -> str:
    """The ruleset audit as the bundled audit holds it (nothing computed when it is current)."""
    return shown("escoba cases audit --cache", cli("cases", "audit", "--cache"))


def _fixed_report(declared: str | None, *bugs: str) -> str:
    """tests/engines/fixed_rules/engine.py as "my engine", over the bundled cases (with its own
    rules declared in hello, or `declared` given as --rules): the report from its bugs on."""
    from escoba.conformance.declared import HELLO, OPTION, load_declared
    from escoba.conformance.report import render_text
    from escoba.conformance.runner import Runner, collect
    from escoba.protocol.client import InProcessSession

    sys.path.insert(0, str(ENGINES / "fixed_rules"))
    from engine import engine_class

    engine = type("MyEngine", (engine_class("rules.yaml", [], set(bugs)),), {"name": "my-engine", "version": "0.3"})
    rules = load_declared(str(ENGINES / "fixed_rules" / "rules.yaml"), HELLO) if declared is None else load_declared(declared, OPTION)
    label = "python my_engine.py"
    flag = "" if declared is None else f" --rules {declared}"
    replay = lambda case: f"escoba conformance --engine {shlex.quote(label)}{flag} --case {case}"
    report = Runner(lambda: InProcessSession(engine), command=label, replay=replay, rules=rules).run(collect())
    text = render_text(report).replace(str(ENGINES / "fixed_rules" / "rules.yaml"), "rules.yaml")
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("bugs:"))
    head = [line for line in lines[:2] if line.startswith(("escoba conformance:", "rules:"))]
    return "\n".join([*head, "…", *lines[start:]]) + "\n"


def declared() -> str:
    return shown("escoba conformance --engine 'python my_engine.py'", _fixed_report(None, "three-card-captures"))


def declared_base() -> str:
    return shown("escoba conformance --engine 'python my_engine.py' --rules base", _fixed_report("base"))


PAMPA = "python tests/engines/outside/pampa/engine.py"  # an outside engine: four departures from base, two bugs


@functools.cache
def _author_path() -> tuple[str, str]:
    """The author's path on pampa: identify writes its rules into pampa-rules/, conformance
    declares them (both in a scratch folder, shown as the reader's own)."""
    import tempfile

    engine = f"{shlex.quote(sys.executable)} tests/engines/outside/pampa/engine.py"
    with tempfile.TemporaryDirectory() as scratch, contextlib.chdir(ROOT):
        out = Path(scratch) / "pampa-rules"
        found = cli("identify", "--engine", engine, "--out", str(out))
        rules = out / "pampa-inferred.yaml"
        report = cli("conformance", "--engine", engine, "--rules", str(rules), "--no-targeted", "-q")
    def mine(text: str) -> str:
        return text.replace(engine, PAMPA).replace(str(out), "pampa-rules")

    tail = "\n".join(mine(report).splitlines()[-14:]) + "\n"
    return (
        shown(f'escoba identify --engine "{PAMPA}" --out pampa-rules', mine(found)),
        shown(f'escoba conformance --engine "{PAMPA}" --rules pampa-rules/pampa-inferred.yaml --no-targeted -q | tail -n 14', tail),
    )


def author_identify() -> str:
    return _author_path()[0]


def author_conformance() -> str:
    return _author_path()[1]


PRODUCERS: dict[str, Callable[[], str]] = {
    "author-identify": author_identify,
    "author-conformance": author_conformance,
    "audit": audit,
    "declared": declared,
    "declared-base": declared_base,
    "grid": grid,
    "reference": reference,
    "minimal": minimal,
    "failure": failure,
    "every-divergence": every_divergence,
    "profile": profile,
}


def blocks() -> dict[str, str]:
    """The block after each `<!-- example: NAME -->` marker of the doc."""
    text = DOC.read_text(encoding="utf-8")
    found = {}
    for match in re.finditer(r"<!-- example: ([\w-]+) -->\n```\w*\n(.*?)```", text, re.S):
        found[match.group(1)] = match.group(2)
    return found


def normal(text: str) -> str:
    text = re.sub(r"; \d+\.\d s\n", "; N s\n", text)  # identify's run time
    return re.sub(r"\(\d+\.\d s\)", "(N s)", text)


def test_every_example_has_a_producer():
    """Each marked example in the doc has a producer here, and each producer an example."""
    assert set(blocks()) == set(PRODUCERS)


SLOW_EXAMPLES = {"declared", "declared-base"}  # a buggy engine of fixed rules through all 316 scenarios: about a minute each


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.whole_run) if n in SLOW_EXAMPLES else n for n in sorted(PRODUCERS)])
def test_the_example_is_what_the_command_prints(name):
    """The example block is the command's output now (run times aside)."""
    assert normal(blocks()[name]) == normal(PRODUCERS[name]())


if __name__ == "__main__":
    for name, produce in PRODUCERS.items():
        print(f"<!-- example: {name} -->\n```console\n{produce()}```\n")
