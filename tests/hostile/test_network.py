"""`--cluster`: every wait on the network has a deadline, and what is no Dask scheduler is one line.

The listeners here accept a connection and then say nothing, or say what a Dask scheduler
never says first (garbage, an SSH banner, a frame of nonsense): each command ends in one line
and exit 1 within the connection deadline (set to 1 s); a scheduler without workers, and one
that never finishes a chunk, likewise. dask[distributed] is in the `test` extra.
"""

from __future__ import annotations

import struct
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from escoba import cluster

from .conftest import run_argv
from .peers import listening

pytest.importorskip("distributed")

SAYS = {
    "silent": b"",
    "garbage": b"\xff" * 64,
    "ssh-banner": b"SSH-2.0-OpenSSH_9.6\r\n",
    "nonsense-frame": struct.pack("<Q", 1) + struct.pack("<Q", 3 << 60) + b"x" * 100,  # Dask would allocate 3 EiB
}


@pytest.fixture
def listener(request: pytest.FixtureRequest) -> Iterator[str]:
    """A TCP listener on the loopback that accepts and says `SAYS[param]`, then nothing."""
    with listening(SAYS[request.param]) as address:
        yield address


def _simulate_with_a_short_deadline(address: str, work: Path):  # type: ignore[no-untyped-def]
    code = (
        "import sys, escoba.cluster as c; c.CONNECT_TIMEOUT = 1.0\n"
        "from escoba.cli.main import main\n"
        f"sys.exit(main(['simulate', 'sv', '--hands', '10', '--cluster', {address!r}]))\n"
    )
    return run_argv([sys.executable, "-c", code], work, timeout=60)


@pytest.mark.parametrize("listener", list(SAYS), indirect=True)
def test_a_listener_that_is_no_scheduler_is_one_line_within_the_deadline(listener: str, work: Path) -> None:
    """Silence (Dask's client waits for the handshake without a deadline of its own), garbage,
    an SSH banner, a frame of nonsense: exit 1, one line naming the address, in seconds."""
    ran = _simulate_with_a_short_deadline(listener, work)
    ran.assert_clean(seconds=30)
    assert ran.code == 1, ran.err[-2000:]
    assert ran.one_line_error().startswith(f"cannot reach the Dask scheduler at {listener}: ")


@pytest.fixture(scope="module")
def empty_scheduler() -> Iterator[str]:
    """A scheduler with no worker."""
    import logging

    from distributed import LocalCluster

    with LocalCluster(n_workers=0, processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0", silence_logs=logging.CRITICAL) as local:
        yield local.scheduler_address


def test_a_scheduler_without_workers_is_one_line(empty_scheduler: str, work: Path) -> None:
    """A scheduler no worker serves would keep the chunks waiting for ever: exit 1, one line."""
    ran = _simulate_with_a_short_deadline(empty_scheduler, work)
    ran.assert_clean(seconds=30)
    assert ran.code == 1 and ran.one_line_error() == f"the Dask scheduler at {empty_scheduler} cannot run chunks: it has no worker after 1 s"


def test_a_chunk_that_never_finishes_ends_the_run_after_the_reply_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cluster that finishes no chunk within REPLY_TIMEOUT is a ClusterError, not a wait for ever."""
    monkeypatch.setattr(cluster, "REPLY_TIMEOUT", 1.0)
    began = time.monotonic()
    with pytest.raises(cluster.ClusterError, match=r"^the Dask cluster at local finished no chunk within 1 s \(no worker left\?\)$"):
        cluster.run("local", 1, time.sleep, 60, [()], lambda k, result: None)
    assert time.monotonic() - began < 45
