"""`--cluster`: the same chunks on a Dask cluster give exactly the numbers of `--jobs 1`.

A `LocalCluster` of two worker processes on the loopback interface serves the module, reached
by its scheduler's address as a real cluster would be; one test starts its own with
`--cluster local`. dask[distributed] is in the `test` extra, so CI runs these.
"""

from __future__ import annotations

import json

import pytest

from escoba import cluster
from escoba import simulate as sim
from escoba.cli import main as cli
from escoba.diff import runner
from escoba.rules import load_resolved


@pytest.fixture(scope="module")
def scheduler():
    """The address of a running two-worker LocalCluster."""
    import logging

    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR) as local:  # fmt: skip
        yield local.scheduler_address


def test_simulate_on_a_cluster_equals_one_process(monkeypatch, scheduler):
    """Hands and matches on a cluster of 2 workers: the same statistics, bit for bit, as
    jobs=1, with progress reported chunk by chunk up to the total."""
    monkeypatch.setattr(sim, "CHUNK", 150)  # many chunks, finishing in any order
    one = sim.simulate("de", 1000, 4, seed=9, bots=("random",))
    seen: list[tuple[int, int]] = []
    two = sim.simulate("de", 1000, 4, seed=9, bots=("random",), cluster=scheduler,
                       progress=lambda done, total: seen.append((done, total)))  # fmt: skip
    assert two.to_json() == one.to_json() and two.accumulator == one.accumulator
    assert [t for _, t in seen] == [1000] * 7 and [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert seen[-1] == (1000, 1000)
    matches = sim.simulate_matches("tie-shared", 24, 2, seed=2, target=6, bots=("greedy", "random"))
    assert sim.simulate_matches("tie-shared", 24, 2, seed=2, target=6, bots=("greedy", "random"),
                                cluster=scheduler).to_json() == matches.to_json()  # fmt: skip


def test_diff_on_a_cluster_equals_one_process(monkeypatch, scheduler):
    """escoba diff's hands, replays and matches on a cluster equal jobs=1 exactly."""
    monkeypatch.setattr(runner, "CHUNK", 100)
    job = runner.Job(load_resolved("da").doc, load_resolved("sv").doc, 2, 5, ("random",))
    one = runner.run(job, 400, jobs=1, matches=4)
    two = runner.run(job, 400, jobs=2, matches=4, cluster=scheduler)
    for name in ("tally", "acc_a", "acc_b", "totals_a", "totals_b", "paired", "matches_a", "matches_b", "paired_matches"):
        assert getattr(two, name) == getattr(one, name), name


def test_cli_cluster_json_is_identical_to_jobs_one(capsys):
    """`escoba simulate --cluster local --jobs 2 --format json` prints what `--jobs 1` prints."""
    assert cli.main(["simulate", "sv", "--hands", "2500", "--seed", "4", "--format", "json"]) == 0
    one = capsys.readouterr().out
    assert cli.main(["simulate", "sv", "--hands", "2500", "--seed", "4", "--format", "json", "--cluster", "local", "--jobs", "2"]) == 0
    out, err = capsys.readouterr()
    assert out == one and json.loads(out)["hands"] == 2500 and "Traceback" not in err


def test_an_unreachable_scheduler_is_one_line(capsys, monkeypatch):
    """A scheduler nobody listens at: exit 1 and one line naming the address, no traceback."""
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 1.0)
    code = cli.main(["simulate", "sv", "--hands", "10", "--cluster", "tcp://127.0.0.1:9"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err.startswith("cannot reach the Dask scheduler at tcp://127.0.0.1:9: ") and err.count("\n") == 1


def test_a_malformed_address_is_a_usage_error(capsys):
    """An address Dask cannot parse is a usage error: one line, exit 2 (issue 34)."""
    assert cli.main(["diff", "da", "sv", "--hands", "10", "--cluster", "no::such::host"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("escoba diff: --cluster: 'no::such::host' is not a scheduler address (") and err.count("\n") == 1


def test_without_dask_the_extra_is_named(monkeypatch):
    """Without dask installed, --cluster says which extra to install."""
    import builtins

    real = builtins.__import__

    def no_dask(name, *args, **kwargs):
        if name == "distributed" or name.startswith("distributed."):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    with pytest.raises(cluster.ClusterError, match=r"--cluster needs Dask: pip install 'escoba\[cluster\]'"):
        cluster.connect("local", 1)
