"""A protocol engine that misbehaves on demand (after Bowtie's fake implementations).

    python tests/engines/fake_engine.py MODE [--after N] [--pidfile FILE] [--piddir DIR]

It is the reference engine until the moment its MODE strikes; `--after N` lets N `play`
requests through first (mid-hand), otherwise it strikes at the first `start`. Modes:

    exit-at-once    exit before reading anything
    exit            exit (status 3) instead of answering
    hang            stop answering and sleep forever
    slow            answer, but only after --delay seconds
    huge-line       answer with a 10 MB line
    binary          answer with a line of binary bytes
    not-json        answer with a line of text
    wrong-id        answer with another request's id
    lie             answer `ok: true` without the fields the request calls for
    refuse          answer `ok: false` (kind internal)
    stderr-flood    write --flood MB to stderr, then answer correctly (must pass)
    fork-hang       start a child that keeps stdout open and hangs, then exit; the child's pid
                    goes to --pidfile, so a test can check that nothing is left behind
    setsid-hang     start a process in a session of its own (setsid) whose parent exits at
                    once, so it is orphaned, out of the engine's process group; then hang.
                    The engine's and the orphan's pids go to --pidfile, or to a file
                    named by the engine's pid in --piddir
    stderr-escape   write terminal escape sequences to stderr, then exit (status 3)
    extra-field     answer with a field the protocol does not have
    id-true         answer with `"id": true` (Python's True == 1, JSON's true is no id)
    two-players     the reference engine declaring only two-player features
    diverge-exit    list the first legal moves in reverse (a divergence), then exit at the play
                    after --after: the runner must report the divergence, not the later crash
    silent          read every request and never answer, not even hello
    hostile-hello   the reference engine, naming itself with escape sequences, a line break,
                    U+FFFE and 5,000 more characters (tests/hostile/texts.py ENGINE_NAME)
    hostile-refuse  refuse (kind internal) with a message of the same kind (ENGINE_MESSAGE)
    digits          answer with an id of 5,000 digits
    deep            answer with a value nested 100,000 levels deep
    nan             answer with NaN where a number goes
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time


def _hostile_texts():  # type: ignore[no-untyped-def]
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
    from hostile import texts

    return texts


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode")
    parser.add_argument("--after", type=int, default=None, help="plays answered before striking")
    parser.add_argument("--delay", type=float, default=5.0)
    parser.add_argument("--flood", type=float, default=8.0, help="megabytes of stderr")
    parser.add_argument("--pidfile")
    parser.add_argument("--piddir")
    args = parser.parse_args()
    if args.mode == "exit-at-once":
        return 2
    if args.mode == "silent":
        for _ in sys.stdin.buffer:
            pass
        time.sleep(3600)
        return 0
    from escoba.protocol.features import reference_features
    from escoba.protocol.server import ReferenceEngine

    engine = ReferenceEngine()
    if args.mode == "two-players":
        engine.features = [f for f in reference_features() if f not in ("players:3", "players:4")]
    out = sys.stdout.buffer
    plays = 0
    for line in sys.stdin.buffer:
        request = json.loads(line)
        reply = engine.handle(request)
        cmd = request.get("cmd")
        plays += cmd == "play"
        if args.mode == "diverge-exit" and cmd == "legal" and plays == 0:
            reply = {**reply, "moves": list(reversed(reply["moves"]))}
        if args.mode == "hostile-hello" and cmd == "hello":
            texts = _hostile_texts()
            reply = {**reply, "engine": {"name": texts.ENGINE_NAME, "version": texts.ENGINE_NAME[::-1]}}
        strike = args.mode not in ("two-players", "hostile-hello") and (
            (cmd == "play" and args.after is not None and plays > args.after)
            or (cmd == "start" and args.after is None)
        )
        if strike:
            reply = misbehave(args, request, reply, out)
        if reply is not None:
            out.write(json.dumps(reply).encode() + b"\n")
            out.flush()
        if cmd == "quit":
            return 0
    return 0


def _write_whole(path: str, text: str) -> None:
    """Write a file that a test waiting for it never reads half written."""
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def misbehave(args: argparse.Namespace, request: dict, reply: dict, out) -> dict | None:  # type: ignore[no-untyped-def]
    mode = args.mode
    if mode in ("exit", "diverge-exit"):
        sys.exit(3)
    if mode == "hang":
        time.sleep(3600)
    if mode == "slow":
        time.sleep(args.delay)
        return reply
    if mode == "huge-line":
        out.write(b'{"id": 1, "junk": "' + b"x" * 10_000_000 + b'"}\n')
        out.flush()
        time.sleep(3600)  # the runner must stop reading after its cap, not wait for more
    if mode == "binary":
        out.write(bytes(range(256)) * 4 + b"\n")
        out.flush()
        return None
    if mode == "not-json":
        out.write(b"Traceback (most recent call last): oops\n")
        out.flush()
        return None
    if mode == "wrong-id":
        return {**reply, "id": request["id"] + 1000}
    if mode == "lie":
        return {"id": request["id"], "ok": True}
    if mode == "refuse":
        return {"id": request["id"], "ok": False, "error": {"kind": "internal", "message": "not today"}}
    if mode == "hostile-refuse":
        return {"id": request["id"], "ok": False, "error": {"kind": "internal", "message": _hostile_texts().ENGINE_MESSAGE}}
    if mode in ("digits", "deep", "nan"):
        line = {"digits": b'{"id": ' + b"9" * 5000 + b', "ok": true, "events": []}',
                "deep": b'{"id": 1, "ok": true, "events": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
                "nan": b'{"id": NaN, "ok": true, "events": []}'}[mode]  # fmt: skip
        out.write(line + b"\n")
        out.flush()
        return None
    if mode == "stderr-flood":
        chunk = b"noise " * 10_000 + b"\n"
        for _ in range(int(args.flood * 1_000_000 / len(chunk))):
            sys.stderr.buffer.write(chunk)
        sys.stderr.buffer.flush()
        return reply
    if mode == "setsid-hang":
        read, write = os.pipe()
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:  # the orphan: a new session, its parent gone
                os.close(read)
                for fd in (0, 1, 2):
                    os.close(fd)  # holds none of the engine's pipes: only the pid finds it
                os.write(write, str(os.getpid()).encode())
                os.close(write)
                time.sleep(3600)
                os._exit(0)
            os._exit(0)
        os.close(write)
        orphan = os.read(read, 64).decode()
        if args.pidfile:
            _write_whole(args.pidfile, f"{os.getpid()} {orphan}")
        if args.piddir:  # one file per engine: several run at once (conformance --jobs)
            _write_whole(os.path.join(args.piddir, str(os.getpid())), f"{os.getpid()} {orphan}")
        time.sleep(3600)
    if mode == "stderr-escape":
        sys.stderr.buffer.write(b"\x1b[2J\x1b]0;owned\x07 the screen is cleared\n")
        sys.stderr.buffer.flush()
        sys.exit(3)
    if mode == "extra-field":
        return {**reply, "debug": "not in the protocol"}
    if mode == "id-true":
        return {**reply, "id": True}
    if mode == "fork-hang":
        pid = os.fork()
        if pid == 0:  # the child keeps the inherited stdout open and never writes
            time.sleep(3600)
            os._exit(0)
        if args.pidfile:
            with open(args.pidfile, "w") as f:
                f.write(str(pid))
        os._exit(0)
    raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    sys.exit(main())
