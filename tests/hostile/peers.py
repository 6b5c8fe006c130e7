"""Network peers that are no Dask scheduler, for `--cluster` (test_network.py, test_errors_doc.py)."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def listening(says: bytes) -> Iterator[str]:
    """A TCP listener on the loopback that accepts every connection and says `says` (perhaps
    nothing), then nothing more; its address, as `tcp://127.0.0.1:PORT`."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                peer, _ = server.accept()
            except OSError:
                return
            held.append(peer)
            with contextlib.suppress(OSError):
                if says:
                    peer.sendall(says)

    threading.Thread(target=serve, name="silent-peer", daemon=True).start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.close()
        for peer in held:
            peer.close()
