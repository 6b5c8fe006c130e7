"""`escoba bench` and the hand-written baseline: fields and shape of the output, never timings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import escoba
from escoba import baseline
from escoba.cli import bench
from escoba.cli import main as cli

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _small(monkeypatch: pytest.MonkeyPatch) -> None:
    # The other subcommands are other people's modules; few capture tables keep the test quick.
    monkeypatch.setattr(cli, "COMMANDS", ("bench",))
    monkeypatch.setattr(bench, "CAPTURE_TABLES", 20)


def run(capsys, *argv):
    code = cli.main(["bench", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_json_has_every_field(capsys):
    """JSON: baseline, one row per ruleset and allowed player count with its ratio, capture sizes."""
    code, out, _ = run(capsys, "base", "de", "--hands", "3", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert {"hands", "seed", "python", "machine", "baseline", "rulesets", "capture"} <= set(data)
    assert data["baseline"]["hands_per_second"] > 0 and {"before", "after"} <= set(data["baseline"])
    assert [(r["ruleset"], r["players"]) for r in data["rulesets"]] == [(i, n) for i in ("base", "de") for n in (2, 3, 4)]
    for row in data["rulesets"]:
        assert row["hands_per_second"] > 0
        assert row["vs_baseline"] == pytest.approx(row["hands_per_second"] / data["baseline"]["hands_per_second"])
    assert [t["size"] for t in data["capture"]["tables"]] == [8, 12, 16]
    assert all(t["cold_us"] > 0 and t["memo_us"] > 0 and t["captures_per_call"] >= 0 for t in data["capture"]["tables"])


def test_text_report(capsys):
    """Text: the baseline line, a row per player count with hands/s and ×, the capture table."""
    code, out, _ = run(capsys, "sv", "--hands", "2", "--players", "2")
    lines = out.splitlines()
    assert code == 0
    assert lines[0].startswith("escoba bench: 2 hands per row, random play, ")
    assert lines[2].startswith("hand-written baseline (base rules, 2 players): ")
    assert lines[4].split() == ["ruleset", "players", "hands/s", "vs", "baseline"]
    row = lines[5].split()
    assert row[:2] == ["sv", "2"] and row[3].endswith("×")
    assert "capture enumeration (sv deck, finder.captures, µs per call):" in out
    assert [line.split()[0] for line in lines[-3:]] == ["8", "12", "16"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["base", "--hands", "0"], "escoba bench: --hands must be at least 1, got 0"),
        (["base", "--players", "1"], "escoba bench: --players must be 2 or more, got 1"),
        (["base", "--players", "6"], "escoba bench: none of these rulesets is played by 6 players"),
    ],
)
def test_usage_errors_exit_2(capsys, argv, message):
    """Impossible arguments exit 2 with one line on stderr."""
    assert run(capsys, *argv) == (2, "", message + "\n")


def test_unknown_ruleset_fails_before_timing(capsys):
    """An unknown id among several exits 2 before anything is timed or printed."""
    code, out, err = run(capsys, "base", "nope", "--hands", "1")
    assert code == 2 and out == "" and "unknown ruleset 'nope'" in err


def test_capture_timings_count_real_captures():
    """The capture figure's 'captures per call' is the mean number of subsets finder.captures returns."""
    rules = escoba.load_ruleset("base")
    result = bench.capture_timings(rules, seed=3, sizes=(8,))
    assert result["ruleset"] == "base" and len(result["tables"]) == 1
    assert result["tables"][0]["captures_per_call"] > 0


def test_baseline_plays_whole_hands():
    """The baseline loop plays the base rules: 40 cards, each hand's points go to two players."""
    import random

    rng = random.Random(1)
    for _ in range(50):
        points = baseline.play_hand(rng)
        assert len(points) == 2 and sum(points) >= 1  # the velo always scores; the rest may tie
    assert baseline.hands_per_second(5) > 0


def test_benchmark_script_is_a_thin_wrapper():
    """benchmarks/handwritten.py still runs on its own and prints the baseline's hands/s."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "handwritten.py"), "--hands", "5"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("hand-written loop: ") and result.stdout.rstrip().endswith(" hands/s")
