#!/usr/bin/env python3
"""Run an engine with the features of a ruleset declared in its place: what an engine author who
believes the engine plays that ruleset would write in `hello`.

    python tests/engines/outside/declare_as.py base -- node tests/engines/outside/tucuman/engine.js

Every line goes through unchanged but the `hello` reply, whose rule-point features are replaced
by those of RULESET at each player count the engine declares (`players:N`, `match` and `measures`,
which are not rule points, are kept as the engine says them). The engine's exit status is ours.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading

from escoba.protocol.features import ruleset_features
from escoba.rules import load_resolved

OWN = ("match", "measures")


def declared(own: list[str], doc: dict) -> list[str]:
    """The engine's own non-rule features, then the ruleset's features at its player counts."""
    kept = [f for f in own if f in OWN or f.startswith("players:")]
    counts = [int(f.split(":", 1)[1]) for f in kept if f.startswith("players:") and f.split(":", 1)[1].isdigit()]
    out = list(kept)
    for players in counts or [2]:
        for feature in ruleset_features(doc, players):
            if feature not in out and feature not in OWN and not feature.startswith("players:"):
                out.append(feature)
    return out


def rewrite(line: bytes, doc: dict) -> bytes:
    try:
        reply = json.loads(line)
    except ValueError:
        return line
    if not (isinstance(reply, dict) and reply.get("ok") is True and isinstance(reply.get("features"), list)):
        return line
    reply["features"] = declared(reply["features"], doc)
    return json.dumps(reply).encode() + b"\n"


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        sys.stderr.write("usage: declare_as.py RULESET -- ENGINE-COMMAND…\n")
        return 2
    doc = load_resolved(argv[0]).doc
    child = subprocess.Popen(argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    feed = child.stdin

    def forward() -> None:
        try:
            for line in iter(sys.stdin.buffer.readline, b""):
                feed.write(line)
                feed.flush()
        except (BrokenPipeError, OSError):
            pass
        finally:
            try:
                feed.close()
            except OSError:
                pass

    threading.Thread(target=forward, daemon=True).start()
    for line in iter(child.stdout.readline, b""):
        sys.stdout.buffer.write(rewrite(line, doc))
        sys.stdout.buffer.flush()
    return child.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
