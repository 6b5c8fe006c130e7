"""`escoba engine`: the reference engine served over the JSON-lines protocol."""

from __future__ import annotations

import argparse

HELP = "serve the reference engine on stdin/stdout (the conformance protocol)"
DESCRIPTION = """\
Read protocol requests from stdin, one JSON object a line, and answer each on stdout
with a line that echoes its id: {"id": 1, "ok": true, ...} or, for a bad line, an
unknown command or an illegal move, {"id": 1, "ok": false, "error": {"kind": ...,
"message": ..., "reason": ...}}. The engine plays any resolved ruleset sent in
'start' and declares every feature. Nothing but replies is written to stdout;
'quit' or the end of input stops it.

The protocol (every message, the lifecycle, errors, features, the deal convention)
is described in docs/protocol.md and schemas/protocol.schema.json. This is the engine
'escoba conformance' runs when no --engine is given."""
EPILOG = """\
examples:
  echo '{"id":1,"cmd":"hello","protocol":1}' | escoba engine
  escoba conformance --engine 'escoba engine'     the reference against itself"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    import gc

    from escoba.protocol.server import main

    gc.freeze()  # what was imported lives as long as the engine: no collection need walk it
    return main()
