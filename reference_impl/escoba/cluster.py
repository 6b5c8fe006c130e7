"""Running chunks of work on a Dask cluster (`--cluster ADDRESS` or `--cluster local`).

`escoba simulate` and `escoba diff` cut their hands into chunks whose integer sums merge
exactly; with `--jobs J` the chunks go to J local processes, with `--cluster` to the workers of
a Dask distributed scheduler. The chunks, their seeds and the merge (in chunk order) are the
same either way, so the results are identical bit for bit.

- `ADDRESS` is a scheduler address (`tcp://10.0.0.5:8786`, `localhost:8786`); the workers need
  `escoba` installed (the same version) and nothing else: a task carries the resolved ruleset
  document, and each worker compiles it once.
- `local` starts a `LocalCluster` on this machine (loopback only) with `--jobs`
  worker processes, and stops it at the end.

Dask is an optional extra (`pip install 'escoba[cluster]'`); it is imported only here, only
when a cluster is asked for. A scheduler that cannot be reached is one line, not a traceback.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Any

from escoba.errors import EscobaError

CONNECT_TIMEOUT = "10s"
LOCAL = "local"

Task = Callable[..., Any]


class ClusterError(EscobaError):
    """No cluster to run on: Dask missing, or a scheduler that cannot be reached."""


def run(
    address: str,
    workers: int,
    task: Task,
    shared: Any,
    calls: Sequence[tuple],
    on_result: Callable[[int, Any], None],
) -> None:
    """Run `task(shared, *call)` for every call on the cluster; `on_result(index, result)` is
    called in this process as each finishes (in any order). `shared` (plain data) is sent to the
    workers once."""
    client, cluster = connect(address, workers)
    try:
        from distributed import as_completed

        data = client.scatter(shared, broadcast=True, hash=False)
        futures = {client.submit(task, data, *call, pure=False): k for k, call in enumerate(calls)}
        for future in as_completed(futures):
            on_result(futures[future], future.result())
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def connect(address: str, workers: int) -> tuple[Any, Any]:
    """A Dask client for `address` (and the LocalCluster it started, for `local`)."""
    try:
        import logging

        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError("--cluster needs Dask: pip install 'escoba[cluster]'") from None
    if address == LOCAL:
        cluster = LocalCluster(
            n_workers=max(1, workers), threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR,
        )  # fmt: skip
        return Client(cluster), cluster
    try:
        return Client(address, timeout=CONNECT_TIMEOUT), None
    except (OSError, TimeoutError, ValueError) as error:
        reason = " ".join(str(error).split()) or type(error).__name__
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {reason}") from None


def token(data: Any) -> str:
    """A name for plain data (a job), the same in every process: workers cache by it."""
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
