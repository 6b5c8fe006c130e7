"""Explore: seeded games on an engine in lockstep with the reference, until they disagree.

Each game is drawn from the seed (`escoba.explore.games`: a ruleset, a table, a deal that is
shuffled or arranged for an opening rule, a style of play per seat), played by the reference
engine, and run on the engine as a case: the runner compares every reply (the deal, each legal
move list, each play's events, the scores, the match's end) and stops the game at its first
divergence. Half the games also probe a decision of their first hand with a move the engine
must refuse, for a reason the position allows (not in hand, not on the table, a wrong sum,
a placement compulsory capture forbids, a malformed move, a move after the hand is over).

Each new kind of divergence (a rule point and class not seen before in the run, or a crash, a
timeout, a refusal) is a finding, shrunk (`escoba.explore.shrinking`) to the smallest case that
still shows it. Findings of a kind already seen only add to its count.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from escoba.conformance.runner import CaseResult
from escoba.errors import EscobaError
from escoba.explore.games import Setup, case_data, illegal_moves, play_game, random_setup
from escoba.explore.harness import Harness, case_length, describe, fill_case, signature
from escoba.explore.shrinking import Shrunk, shrink
from escoba.protocol.client import Session

if TYPE_CHECKING:
    from escoba.outputs import OutputFolder

GAMES = 200
PROBE_SHARE = 0.5  # games that also probe a decision with an illegal move


@dataclass
class Finding:
    """One kind of divergence, the first game that showed it, and its shrunk case."""

    signature: tuple[str, str | None, str | None]
    game: int  # the game (counted from 1) that found it
    setup: Setup
    ruleset: str
    found: dict  # the case as found
    result: CaseResult  # its run on the engine
    shrunk: Shrunk | None = None
    games: int = 1  # games that showed this kind of divergence

    @property
    def case(self) -> dict:
        return self.shrunk.data if self.shrunk is not None else self.found

    @property
    def case_result(self) -> CaseResult:
        return self.shrunk.result if self.shrunk is not None else self.result

    def describe(self) -> str:
        return describe(self.signature)

    def to_json(self) -> dict:
        result = self.case_result
        d = result.divergence
        return {
            "outcome": self.signature[0],
            "point": self.signature[1],
            "class": self.signature[2],
            "inferred": d.inferred if d is not None else None,
            "ruleset": self.ruleset,
            "game": self.game,
            "games": self.games,
            "setup": self.setup.describe(),
            "found_events": case_length(self.found),
            "case_events": case_length(self.case),
            "shrink_steps": self.shrunk.steps if self.shrunk is not None else [],
            "case": self.case["id"],
            "message": result.message,
            "divergence": d.to_json() if d is not None else None,
        }


@dataclass
class Exploration:
    """What a run of `explore` found."""

    engine: str  # name and version, from the engine's hello
    rulesets: list[str]
    seed: int
    games: int = 0  # games played
    cases: int = 0  # cases run (games and probes)
    skipped: int = 0  # cases the engine does not support (unsupported), and games not playable
    findings: list[Finding] = field(default_factory=list)
    seconds: float = 0.0
    shrink_runs: int = 0  # smaller cases run while shrinking
    held: list[CaseResult] = field(default_factory=list, repr=False)  # the cases the engine refused as unsupported
    no_table: int = 0  # games at no table size both the ruleset and the engine (and --players) allow

    @property
    def ok(self) -> bool:
        """No divergence, and something ran: a run where nothing could run is never OK."""
        return not self.findings and self.why_nothing_ran is None

    @property
    def why_nothing_ran(self) -> str | None:
        """One sentence saying why no case ran on the engine (None when one did)."""
        return why_nothing_ran(self.cases, self.held, self.no_table, f"{self.no_table} of {self.games}")

    def to_json(self) -> dict:
        return {
            "engine": self.engine, "rulesets": self.rulesets, "seed": self.seed, "games": self.games,
            "cases": self.cases, "skipped": self.skipped, "shrink_runs": self.shrink_runs,
            "seconds": round(self.seconds, 3), "ok": self.ok, "nothing_ran": self.why_nothing_ran, "findings": [f.to_json() for f in self.findings],
        }  # fmt: skip


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"


def explore(
    connect: Callable[[], Session] | Harness,
    *,
    rulesets: Sequence[str] = ("base",),
    games: int = GAMES,
    seed: int = 0,
    players: Iterable[int] | None = None,
    probes: bool = True,
    matches: bool = True,
    shrinking: bool = True,
    stop_after: int | None = None,
    on_game: Callable[[int, int, Exploration], None] | None = None,
    folder: Path | None = None,
) -> Exploration:
    """Play up to `games` seeded games on the engine (see the module's docstring).

    `rulesets`: played in turn, game by game (bundled ids, or ruleset file names in `folder`).
    `players`: the table sizes to draw from (default: every size the ruleset and the engine
    allow). `stop_after`: stop once this many kinds of divergence are found.
    """
    import escoba

    harness = connect if isinstance(connect, Harness) else Harness(connect, folder=folder)
    began = time.monotonic()
    hello = harness.open()
    run = Exploration(f"{hello.name} {hello.version}".strip(), list(rulesets), seed)
    wanted = set(players) if players is not None else None
    by_signature: dict[tuple, Finding] = {}
    try:
        for game in range(1, games + 1):
            ruleset = rulesets[(game - 1) % len(rulesets)]
            rules = escoba.load_ruleset(_source(ruleset, folder))
            counts = [p for p in rules.player_counts if (wanted is None or p in wanted) and harness.supports(f"players:{p}")]
            rng = random.Random(f"explore:{seed}:{game}")
            run.games += 1
            if not counts:
                run.skipped += 1
                run.no_table += 1
                continue
            setup = random_setup(rules, rng, counts, matches and harness.supports("match"))
            played = play_game(rules, setup)
            if played is None:
                run.skipped += 1
                continue
            cases = [case_data(played, f"explore.{seed}.{game}", ruleset, f"{ruleset}: explore game {game} of seed {seed}",
                               [f"Explored by escoba explore (seed {seed}, game {game}): {setup.describe()}."])]  # fmt: skip
            if probes and rng.random() < PROBE_SHARE:
                probe = _probe_case(rules, played.hands[0], setup, ruleset, seed, game, rng)
                if probe is not None:
                    cases.append(probe)
            shown: set[tuple] = set()  # kinds of divergence this game showed
            for data in cases:
                try:
                    filled = fill_case(data, folder)
                except EscobaError:
                    run.skipped += 1
                    continue
                result = harness.run(filled)
                run.cases += 1
                if result.outcome == "unsupported":
                    run.skipped += 1
                    run.held.append(result)
                    continue
                if result.outcome == "pass":
                    continue
                sig = signature(result)
                if sig in by_signature:
                    if sig not in shown:
                        by_signature[sig].games += 1
                    shown.add(sig)
                    continue
                shown.add(sig)
                finding = Finding(sig, game, setup, ruleset, filled, result)
                by_signature[sig] = finding
                run.findings.append(finding)
                if shrinking:
                    before = harness.runs
                    finding.shrunk = shrink(harness, filled, result)
                    run.shrink_runs += harness.runs - before
                _name(finding, run.findings)
                break  # the game stops at its first divergence
            if on_game is not None:
                on_game(game, games, run)
            if stop_after is not None and len(run.findings) >= stop_after:
                break
    finally:
        if not isinstance(connect, Harness):
            harness.close()
    run.seconds = time.monotonic() - began
    return run


def _source(ruleset: str, folder: Path | None) -> str:
    """What to load for a ruleset a case names: a bundled id, or a file in the cases' folder."""
    if folder is not None and ruleset.endswith((".yaml", ".yml", ".json")):
        return str(folder / ruleset)
    return ruleset


def _probe_case(rules: Any, hand_spec: Mapping[str, Any], setup: Setup, ruleset: str, seed: int, game: int, rng: random.Random) -> dict | None:
    """A probe at a random decision of the game's first hand (or after its last play)."""
    from escoba.engine.hand import Hand
    from escoba.notation import parse_move
    from escoba.transcript.case import FORMAT

    moves = list(hand_spec["moves"])
    at = rng.randrange(len(moves) + 1)
    code = {c: i for i, c in enumerate(rules.deck.code)}
    dealer = setup.dealer
    hand = Hand(rules, setup.players, dealer, iter([[code[c] for c in order] for order in hand_spec["decks"]]))
    for text in moves[:at]:
        hand.apply(parse_move(text, rules.deck))
    options = illegal_moves(hand)
    reason = rng.choice(sorted(options))
    return {
        "format": FORMAT, "id": f"explore.{seed}.{game}.probe", "kind": "probe",
        "title": f"{ruleset}: a move the engine must refuse ({reason}), explore game {game} of seed {seed}",
        "notes": [f"Explored by escoba explore (seed {seed}, game {game}): {setup.describe()}; the first hand "
                  f"stopped after {at} plays and probed with a move refused as {reason}."],
        "ruleset": ruleset, "players": setup.players, "dealer": dealer, "target": None, "clause": "legal_moves",
        "audit": "generated", "pins": [], "hands": [{"decks": hand_spec["decks"], "moves": moves[:at]}],
        "probe": {"move": options[reason], "reason": reason},
    }  # fmt: skip


def _name(finding: Finding, findings: Sequence[Finding]) -> None:
    """Give the finding's case a stable id and a title that says what it shows."""
    outcome, point, cls = finding.signature
    base = f"explore.{slug(finding.ruleset)}.{slug(point or outcome)}"
    taken = {f.case["id"] for f in findings if f is not finding}
    case_id, n = base, 2
    while case_id in taken:
        case_id, n = f"{base}.{n}", n + 1
    d = finding.case_result.divergence
    what = f"departs on {point} ({cls})" if outcome == "fail" else f"{outcome}s"
    inferred = f", as if {d.inferred}" if d is not None and d.inferred else ""
    case = finding.case
    case["id"] = case_id
    case["clause"] = point or "game"
    case["title"] = f"{finding.ruleset}: the engine {what}{inferred}"
    case.setdefault("notes", [])
    if finding.shrunk is None:
        case["notes"] = [*case["notes"], f"The engine: {finding.case_result.message}."]


def write_cases(findings: Iterable[Finding], out: str | Path | OutputFolder) -> list[Path]:
    """Write each finding's case into `out` (a folder's path, or an `OutputFolder` checked
    before the run), each file whole; the paths written."""
    return write_case_data([finding.case for finding in findings], out)


def write_case_data(cases: Iterable[dict], out: str | Path | OutputFolder) -> list[Path]:
    """Write each case (filled case data) into the folder `out` (a path, or an `OutputFolder`
    checked before the work) as `<id>.json`, each checked as the loader checks a case file
    first, each file whole; the paths written."""
    from escoba.outputs import OutputFolder
    from escoba.transcript.build import dump_case
    from escoba.transcript.case import case_from_data

    folder = out if isinstance(out, OutputFolder) else OutputFolder(str(out), "--out")
    written = []
    for case in cases:
        name = f"{case['id']}.json"
        case_from_data(case, folder.path / name)  # the whole load-time check before a file is written
        written.append(folder.write(name, dump_case(case)))
    if folder is not out:
        folder.close()
    return written


def why_nothing_ran(cases: int, held: list, no_table: int, tables: str) -> str | None:
    """Why no case or game ran on the engine, in one sentence (None when one did: it passed or
    diverged): the cases it refused (as conformance says it), else the games that had no table
    size both sides allow (`tables`: how many, as the caller counts them)."""
    from escoba.conformance.runner import nothing_ran

    if cases > len(held):
        return None
    if held:
        return nothing_ran(held)
    if no_table:
        return f"no game could run: {tables} games had no table size that both the ruleset and the engine allow"
    return "no game could run: none was playable"
