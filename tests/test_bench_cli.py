"""`escoba bench` and the hand-written baseline: fields and shape of the output, never timings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from escoba import baseline
from escoba.cli import bench
from escoba.cli import main as cli

ROOT = Path(__file__).resolve().parent.parent
YARDSTICK = "import sys\nprint(sum(range(int(sys.argv[1]))))\n"  # a stand-in loop: takes N, exits 0


@pytest.fixture(autouse=True)
def _only_bench(monkeypatch: pytest.MonkeyPatch) -> None:
    # The other subcommands are other people's modules.
    monkeypatch.setattr(cli, "COMMANDS", ("bench",))


@pytest.fixture
def yardstick(tmp_path: Path) -> str:
    path = tmp_path / "loop.py"
    path.write_text(YARDSTICK)
    return str(path)


def run(capsys, *argv):
    code = cli.main(["bench", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_json_has_every_field(capsys, yardstick):
    """JSON: the yardstick, the headline rows (whole process, in process, playouts), a row per
    ruleset and allowed player count with min/median/max, its ratios and its path."""
    code, out, _ = run(capsys, "base", "de", "--hands", "20", "--repeat", "2", "--yardstick", yardstick, "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert {"hands", "repeat", "seed", "unit", "python", "machine", "yardstick", "headline", "rulesets"} <= set(data)
    assert data["yardstick"] == {"path": yardstick, "rules": "sv", "players": 2}
    assert [row["what"] for row in data["headline"]] == [
        "the yardstick, whole process", "escoba simulate sv, whole process", "simulate(), in process",
        "playouts from a dealt hand",
    ]  # fmt: skip
    for row in data["headline"] + data["rulesets"]:
        assert len(row["runs"]) == 2 and row["min"] <= row["median"] <= row["max"] and row["min"] > 0
    assert data["headline"][0]["vs_yardstick"] == 1
    assert [(r["ruleset"], r["players"]) for r in data["rulesets"]] == [(i, n) for i in ("base", "de") for n in (2, 3, 4)]
    head = data["headline"][2]["median"]
    for row in data["rulesets"]:
        assert row["path"] == "fused" and row["fallback_reason"] is None
        assert row["vs_headline"] == pytest.approx(row["median"] / head)


def test_text_report(capsys, yardstick):
    """Text: the yardstick line, the headline table, then a row per ruleset with ratios and path."""
    code, out, _ = run(capsys, "sv", "--hands", "10", "--repeat", "1", "--players", "2", "--yardstick", yardstick)
    lines = out.splitlines()
    assert code == 0
    assert lines[0].startswith("escoba bench: hands per CPU-second of random play, 10 hands per run, 1 interleaved rounds")
    assert lines[1] == f"yardstick: {yardstick}, a plain hand-written loop of the sv rules (2 players)"
    assert lines[3].split() == ["sv,", "2", "players", "min", "median", "max", "vs", "yardstick"]
    assert lines[4].startswith("the yardstick, whole process") and lines[4].endswith("1.00×")
    assert [line[:34].rstrip() for line in lines[5:8]] == [
        "escoba simulate sv, whole process", "simulate(), in process", "playouts from a dealt hand",
    ]  # fmt: skip
    row = next(line for line in lines if line.startswith("sv ")).split()
    assert row[:2] == ["sv", "2"] and row[-1] == "fused" and row[-2].endswith("×")
    assert lines[-1] == "every ruleset above runs the fused path"


def test_fallback_rulesets_are_listed(capsys, yardstick, monkeypatch):
    """A ruleset the fused path does not implement is marked Hand, with its reason, in both forms."""
    monkeypatch.setattr(bench, "_fallback", lambda rules: "the fast path does not implement the rule field 'x'")
    code, out, _ = run(capsys, "base", "--hands", "5", "--repeat", "1", "--players", "2", "--yardstick", yardstick)
    assert code == 0
    assert "played by Hand, not the fused path:\n  base: the fast path does not implement the rule field 'x'" in out
    assert next(line for line in out.splitlines() if line.startswith("base ")).split()[-1] == "Hand"


def test_yardstick_is_found_beside_the_checkout_or_named(monkeypatch, yardstick, tmp_path):
    """--yardstick wins, then ESCOBA_YARDSTICK, then shared/bench/limit_sim.py above the
    folder escoba runs in (or above its checkout), else escoba/baseline.py (base rules) run as a
    module."""
    monkeypatch.delenv("ESCOBA_YARDSTICK", raising=False)
    assert bench.find_yardstick(yardstick)["path"] == yardstick
    monkeypatch.setenv("ESCOBA_YARDSTICK", yardstick)
    assert bench.find_yardstick()["argv"] == [sys.executable, yardstick]
    monkeypatch.setenv("ESCOBA_YARDSTICK", str(tmp_path / "missing.py"))
    with pytest.raises(cli.UsageError, match="ESCOBA_YARDSTICK: no such file"):
        bench.find_yardstick()
    monkeypatch.delenv("ESCOBA_YARDSTICK")
    monkeypatch.setattr(bench, "YARDSTICK_FILE", Path("no") / "such" / "file.py")
    fallback = bench.find_yardstick()
    assert fallback["rules"] == "base" and fallback["argv"] == [sys.executable, "-m", "escoba.baseline"]
    # The project's yardstick sits in shared/bench beside the checkout: found from the checkout
    # without being named, installed escoba or not (CI's is installed, not run from a checkout).
    shared = tmp_path / "shared" / "bench" / "limit_sim.py"
    shared.parent.mkdir(parents=True)
    shared.write_text("print(1)\n")
    (tmp_path / "checkout").mkdir()
    monkeypatch.chdir(tmp_path / "checkout")
    monkeypatch.setattr(bench, "YARDSTICK_FILE", Path("shared") / "bench" / "limit_sim.py")
    assert bench.find_yardstick()["path"] == str(shared)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["base", "--hands", "0"], "escoba bench: --hands must be at least 1, got 0"),
        (["base", "--repeat", "0"], "escoba bench: --repeat must be at least 1, got 0"),
        (["base", "--players", "1"], "escoba bench: --players must be 2 or more, got 1"),
        (["base", "--players", "6"], "escoba bench: none of these rulesets is played by 6 players"),
        (["base", "--yardstick", "/no/such/loop.py"], "escoba bench: --yardstick: no such file: /no/such/loop.py"),
    ],
)
def test_usage_errors_exit_2(capsys, argv, message):
    """Impossible arguments exit 2 with one line on stderr."""
    assert run(capsys, *argv) == (2, "", message + "\n")


def test_unknown_ruleset_fails_before_timing(capsys):
    """An unknown id among several exits 2 before anything is timed or printed."""
    code, out, err = run(capsys, "base", "nope", "--hands", "1")
    assert code == 2 and out == "" and "unknown ruleset 'nope'" in err


def test_a_failing_yardstick_is_one_line(capsys, tmp_path):
    """A yardstick that exits non-zero stops the bench with a one-line error, no traceback."""
    broken = tmp_path / "broken.py"
    broken.write_text("raise SystemExit('no luck')\n")
    code, out, err = run(capsys, "base", "--hands", "2", "--repeat", "1", "--players", "2", "--yardstick", str(broken))
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "failed (1): no luck" in err


def test_baseline_plays_whole_hands():
    """The baseline loop plays the base rules: 40 cards, each hand's points go to two players."""
    import random

    rng = random.Random(1)
    for _ in range(50):
        points = baseline.play_hand(rng)
        assert len(points) == 2 and sum(points) >= 1  # the velo always scores; the rest may tie
    assert baseline.hands_per_second(5) > 0


def test_baseline_runs_as_a_module():
    """python -m escoba.baseline N plays N hands and prints its rate (how bench times it whole)."""
    result = subprocess.run([sys.executable, "-m", "escoba.baseline", "7"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("7 hands: ") and result.stdout.rstrip().endswith(" hands/s")


def test_benchmark_script_is_a_thin_wrapper():
    """benchmarks/handwritten.py still runs on its own and prints the baseline's hands/s."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "handwritten.py"), "--hands", "5"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("hand-written loop: ") and result.stdout.rstrip().endswith(" hands/s")


def test_a_run_shorter_than_a_clock_tick_counts_one_tick(monkeypatch):
    """The kernel counts a child's CPU time in ticks, so a short run can read 0 CPU seconds
    (seen in CI: `--hands 5` and a division by zero); it counts as one tick instead."""
    frozen = os.times()
    monkeypatch.setattr(bench.os, "times", lambda: frozen)  # the clock does not move: 0 seconds read
    assert bench.process_cpu([sys.executable, "-c", "pass"]) == bench.TICK > 0
    assert 5 / bench.process_cpu([sys.executable, "-c", "pass"]) == 5 / bench.TICK
    monkeypatch.setattr(bench.time, "process_time", lambda: 1.0)
    assert bench.call_cpu(lambda: None) > 0


def _speed_script():
    """benchmarks/speed.py as a module (it is a script, not a package module)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("speed", ROOT / "benchmarks" / "speed.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_speed_benchmark_runs_a_ruleset_between_two_runs_of_sv() -> None:
    """A round of a ruleset's rows is sv, the ruleset at each player count, at 2 again, sv
    again: on a machine whose speed rises steadily, the share of sv comes out as it is."""
    speed = _speed_script()
    made: list[tuple[str, int]] = []
    true_rate = {("sv", 2): 100.0, ("fr", 2): 70.0, ("fr", 3): 63.0, ("fr", 4): 56.0, ("scopone", 4): 50.0}

    def rate(rid: str, players: int) -> float:
        made.append((rid, players))
        return true_rate[(rid, players)] * (1 + 0.05 * len(made))  # 5% faster at every run

    runs = speed.sandwich(rate, "fr", [2, 3, 4])
    assert made == [("sv", 2), ("fr", 2), ("fr", 3), ("fr", 4), ("fr", 2), ("sv", 2)]
    shares = speed.round_shares(runs, "fr", [2, 3, 4])
    assert shares[2] == pytest.approx(0.70)  # the drift cancels (runs one after another: 0.73)
    assert shares[3] == pytest.approx(0.90, rel=0.03) and shares[4] == pytest.approx(0.80, rel=0.03)
    made.clear()
    assert speed.round_shares(speed.sandwich(rate, "scopone", [4]), "scopone", [4]) == {}
    assert made == [("scopone", 4)]  # no 2-player row to compare with: its row alone


def test_the_speed_benchmark_measures_again_every_share_near_the_goal() -> None:
    """A ruleset whose median share (of sv, or of its 2-player speed) is within 5 points of 75%,
    above or below, is measured for more rounds; one farther from it, on either side, is not."""
    speed = _speed_script()
    shares = {
        ("fr", 2): [0.71, 0.74, 0.78],  # median 0.74: near, below the goal
        ("ru-escova", 2): [1.02, 0.98, 1.0],
        ("ru-escova", 3): [0.77, 0.79, 0.81],  # median 0.79: near, above the goal
        ("da-sevens", 4): [0.69, 0.69, 0.9],  # median 0.69: far below, measured as it is
        ("sv", 3): [0.95],
    }
    assert speed.near_goal(shares) == ["fr", "ru-escova"]
