"""Engine sessions: a subprocess speaking the protocol, or the reference engine in process.

Both have the same interface: `hello` (the handshake reply), `request(req) -> Reply`,
`exchange(requests)`, `drain()`, `close()`; the subprocess one also has `send_ahead(requests)`,
which a runner uses where a session has it.
`ErrorReply` (`ok: false`) is returned as a value: refusing a request is part of the protocol.
Everything else an engine can do wrong raises an `EngineFailure` subclass, after which the
session is dead and the runner starts a new one.

The subprocess session expects misbehaviour (the lessons of Bowtie and toml-test):
- the engine runs in its own process group, and `close()` kills the whole group, its
  descendants, and every process carrying the session's token in its environment, even one
  that left the group with `setsid()` and was orphaned (the runner is a child subreaper on
  Linux, so such orphans come back to it): nothing the engine started is left behind
  (escoba.processes);
- after a stop signal (Ctrl-C, SIGTERM, SIGHUP) nothing is polite: no `quit`, no waiting for
  replies, just the kill;
- every read and every write has a deadline: an engine that never answers, or never reads
  its input, costs one timeout, not the run;
- the handshake waits at least `STARTUP_TIMEOUT`, since starting a runtime is not a reply;
- reply lines are capped (`MAX_LINE`); a 10 MB line is refused after the first MiB;
- stderr is drained by a thread into a bounded tail, so a flood can never block the engine
  on a full pipe, and the last few KiB are there to show when a case crashes, with escape
  sequences and other control characters printed escaped;
- replies are held to the protocol schema (messages.parse_reply).
"""

from __future__ import annotations

import os
import selectors
import subprocess
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Protocol

from escoba import processes
from escoba.errors import one_line
from escoba.protocol.messages import (
    MAX_LINE,
    EngineCrashed,
    EngineFailure,
    EngineTimedOut,
    Hello,
    HelloReply,
    OversizedReply,
    ProtocolViolation,
    Quit,
    Reply,
    Request,
    decode_line,
    parse_reply,
)

DEFAULT_TIMEOUT = 10.0
STARTUP_TIMEOUT = 10.0  # the handshake waits at least this long: starting a runtime is not a reply
STDERR_TAIL = 16 * 1024  # bytes of stderr kept for reports


class Session(Protocol):
    hello: HelloReply

    def request(self, request: Request) -> Reply: ...

    def exchange(self, requests: Sequence[Request]) -> Iterator[Reply]: ...

    def drain(self, raise_failure: bool = False) -> EngineFailure | None: ...

    def close(self) -> None: ...

    def stderr_tail(self) -> str: ...


class _StderrTail:
    """Drains a pipe on a daemon thread, keeping only the last `limit` bytes."""

    def __init__(self, pipe, limit: int = STDERR_TAIL):
        self._pipe, self._limit = pipe, limit
        self._chunks: deque[bytes] = deque()
        self._size = 0
        self._lock = threading.Lock()
        self.total = 0
        self._thread = threading.Thread(target=self._drain, name="engine-stderr", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        fd = self._pipe.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            with self._lock:
                self.total += len(chunk)
                self._chunks.append(chunk)
                self._size += len(chunk)
                while self._size - len(self._chunks[0]) >= self._limit:
                    self._size -= len(self._chunks.popleft())

    def text(self) -> str:
        with self._lock:
            data = b"".join(self._chunks)[-self._limit :]
            dropped = self.total - len(data)
        # Shown in a terminal: escape sequences and other controls are printed escaped, never run.
        text = "\n".join(one_line(line) for line in data.decode("utf-8", errors="replace").split("\n"))
        return (f"[... {dropped} earlier bytes of stderr dropped]\n" if dropped else "") + text

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    def alive(self) -> bool:
        return self._thread.is_alive()


class SubprocessSession:
    """An engine command started with `start_new_session=True`; the handshake is sent at once.

    Raises an `EngineFailure` from the constructor when the handshake fails (and leaves
    nothing running). With `wait=False` the constructor only starts the engine and sends
    `hello`: `handshake()` (or the first exchange) waits for the reply, so that a runner can
    load its cases while the engine starts.
    """

    hello: HelloReply

    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_line: int = MAX_LINE,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        wait: bool = True,
    ):
        self.argv, self.timeout, self.max_line = list(argv), timeout, max_line
        self._hello: Iterator[Reply] | None = None  # the reply to `hello`, not yet read
        self._next_id = 0
        self._buffer = bytearray()
        self._dead: EngineFailure | None = None
        _adopt_orphans()
        # Inherited by everything the engine starts, so that close() finds it all (processes.py).
        self._token = uuid.uuid4().hex
        env = {**(os.environ if env is None else env), processes.ENGINE_TOKEN: self._token}
        try:
            # A stop signal landing between the fork and Popen's return would lose the engine's
            # pid (and leave the engine running): it is held until the session can be closed.
            with processes.stops_deferred():
                try:
                    self.proc = subprocess.Popen(
                        self.argv,
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE,
                        start_new_session=True,  # its own process group: close() kills children too
                        bufsize=0,
                        cwd=cwd,
                        env=env,
                    )
                except OSError as problem:
                    raise EngineCrashed(f"cannot start {' '.join(self.argv)}: {problem}") from None
                self.pid = self.proc.pid
                assert self.proc.stdin is not None and self.proc.stdout is not None  # both are pipes
                self._in, self._out = self.proc.stdin.fileno(), self.proc.stdout.fileno()
                os.set_blocking(self._in, False)
                os.set_blocking(self._out, False)
                self._readable = selectors.DefaultSelector()
                self._readable.register(self._out, selectors.EVENT_READ)
                self._both = selectors.DefaultSelector()
                self._both.register(self._out, selectors.EVENT_READ)
                self._both.register(self._in, selectors.EVENT_WRITE)
                self._unread: list[dict] = []  # the requests whose replies come next, in order
                # Requests sent ahead (`send_ahead`): the object a later `exchange` is to be
                # called with, and the messages, whose replies come after those of `_unread`.
                self._ahead: tuple[Sequence[Request], list[dict]] | None = None
                self._outbox = b""  # bytes of those requests not yet written
                self._stderr = _StderrTail(self.proc.stderr)
            self._hello = self.exchange([Hello()])
            if wait:
                self.handshake()
        except BaseException:  # a failed start or handshake, or a stop signal: nobody else can close us
            self.close()
            raise

    def handshake(self) -> HelloReply:
        """The engine's reply to `hello`, waited for (at least STARTUP_TIMEOUT) the first time;
        an `EngineFailure` (and the session closed) if it does not come or is not a hello."""
        pending, self._hello = self._hello, None
        if pending is not None:
            timeout, self.timeout = self.timeout, max(self.timeout, STARTUP_TIMEOUT)
            try:
                reply = next(pending)
                if not isinstance(reply, HelloReply):
                    raise ProtocolViolation(f"hello refused: {reply}", request={"cmd": "hello"})
                self.hello = reply
            except BaseException:
                self.close()
                raise
            finally:
                self.timeout = timeout
        return self.hello

    # ------------------------------------------------------------------ requests
    def request(self, request: Request) -> Reply:
        return next(self.exchange([request]))

    def exchange(self, requests: Sequence[Request]) -> Iterator[Reply]:
        """Send all the requests at once, then yield their replies in order as they arrive.

        Pipelining a case's requests saves a round trip per request (a context switch each
        way, several times the cost of the work under load). A consumer that stops early must
        call `drain()` before the next exchange. Each reply has its own timeout.
        """
        if self._hello is not None and self._unread:  # the hello sent by the constructor comes first
            self.handshake()
        self.drain(raise_failure=True)
        if self._ahead is not None:
            sent, self._unread = self._ahead
            self._ahead = None
            try:
                self._flush_outbox(self._unread[0])
            except EngineFailure as failure:
                raise self._died(failure) from None
            if sent is requests:  # written already: their replies are the next ones
                return self._replies()
            self.drain(raise_failure=True)  # sent ahead for nothing: their replies are dropped
        self._unread, data = self._encode(requests)
        try:
            self._write(data, self._unread[0])
        except EngineFailure as failure:
            raise self._died(failure) from None
        return self._replies()

    def send_ahead(self, requests: Sequence[Request]) -> None:
        """Write now the requests that the next `exchange` will be called with (the same
        object), behind those whose replies are still unread: the engine works on them while
        the caller reads the replies before them, where it would otherwise wait for the next
        exchange. Nothing waits: what the pipe cannot take now is written while replies are
        awaited. An `exchange` with other requests first reads and drops their replies.
        Ignored when the session is dead, or has requests sent ahead already."""
        if self._dead is not None or self._ahead is not None or self._hello is not None or not requests:
            return
        messages, self._outbox = self._encode(requests)
        self._ahead = (requests, messages)
        self._write_some()

    def _encode(self, requests: Sequence[Request]) -> tuple[list[dict], bytes]:
        """The requests' messages, numbered from the next id, and their lines."""
        messages, lines = [], []
        for request in requests:
            self._next_id += 1
            message, line = request.encode(self._next_id)
            messages.append(message)
            lines.append(line)
        return messages, b"".join(lines)

    def _write_some(self) -> None:
        """Write what the engine's input pipe takes now of the requests sent ahead. A closed
        pipe is not reported here: the replies awaited show what became of the engine."""
        try:
            written = os.write(self._in, self._outbox)
        except BlockingIOError:
            return
        except OSError:
            written = len(self._outbox)
        self._outbox = self._outbox[written:]

    def _flush_outbox(self, message: dict) -> None:
        if self._outbox:
            data, self._outbox = self._outbox, b""
            self._write(data, message)

    def _replies(self) -> Iterator[Reply]:
        while self._unread:
            message = self._unread[0]
            try:
                line = self._read_line(time.monotonic() + self.timeout, message)
                reply = parse_reply(message, decode_line(line, message))
            except EngineFailure as failure:
                raise self._died(failure) from None
            self._unread.pop(0)
            yield reply

    def drain(self, raise_failure: bool = False) -> EngineFailure | None:
        """Read and drop the replies a consumer did not want; a failure meanwhile kills the session."""
        if self._dead is None and processes.stopping() and self._unread:
            # A signal is ending the run: the replies are not worth a timeout each.
            self._died(EngineCrashed("the run was stopped before the engine answered"))
        if self._dead is not None:
            if raise_failure:
                raise self._dead
            return self._dead
        try:
            for _ in self._replies():
                pass
        except EngineFailure as failure:
            if raise_failure:
                raise
            return failure
        return None

    def _died(self, failure: EngineFailure) -> EngineFailure:
        proc = getattr(self, "proc", None)
        if proc is not None and proc.poll() is not None:
            # An engine that exited has written all it will: let the drain reach the end of
            # the pipe (bounded), or a loaded machine reports the crash before its last words.
            self._stderr.join(1.0)
        failure.stderr = self.stderr_tail()
        self._dead = failure
        self._unread, self._ahead, self._outbox = [], None, b""
        return failure

    def _write(self, data: bytes, message: dict) -> None:
        """Write everything, reading replies meanwhile: an engine blocked on a full stdout pipe
        stops reading its stdin, and the two would wait for each other forever."""
        view = memoryview(data)
        deadline = time.monotonic() + self.timeout
        while view:
            try:
                written = os.write(self._in, view)
            except BlockingIOError:
                written = 0
            except (BrokenPipeError, ConnectionResetError):
                raise self._crashed(message, "closed its input") from None
            if written:
                view = view[written:]
                deadline = time.monotonic() + self.timeout
                continue
            left = deadline - time.monotonic()
            ready = self._both.select(min(max(left, 0), 0.2))
            for key, _ in ready:
                if key.fd == self._out:
                    self._fill(message)
            if not ready:
                _unless_stopped(message)
                if self.proc.poll() is not None:
                    raise self._crashed(message)
                if time.monotonic() >= deadline:
                    raise EngineTimedOut(
                        f"{message['cmd']}: the engine did not read its input within {self.timeout:g} s", request=message
                    )

    def _fill(self, message: dict) -> None:
        """Read what the engine has written so far into the buffer."""
        try:
            chunk = os.read(self._out, 1 << 16)
        except BlockingIOError:
            return
        if not chunk:
            raise self._crashed(message)
        tail = len(self._buffer) - self._buffer.rfind(b"\n") - 1
        self._buffer += chunk
        if tail + len(chunk) > self.max_line and b"\n" not in chunk:
            raise OversizedReply(
                f"{message['cmd']}: reply line longer than {self.max_line} bytes (stopped reading)", request=message
            )

    def _read_line(self, deadline: float, message: dict) -> bytes:
        buffer = self._buffer
        scanned = 0
        while True:
            newline = buffer.find(b"\n", scanned)
            if newline >= 0:
                line = bytes(buffer[:newline])
                del buffer[: newline + 1]
                if len(line) > self.max_line:
                    raise OversizedReply(f"{message['cmd']}: reply line of {len(line)} bytes (limit {self.max_line})", request=message)
                return line
            scanned = len(buffer)
            if len(buffer) > self.max_line:
                raise OversizedReply(
                    f"{message['cmd']}: reply line longer than {self.max_line} bytes (stopped reading)", request=message
                )
            _unless_stopped(message)
            left = deadline - time.monotonic()
            # Wake up now and then: an engine that exited while a child of its own still holds
            # the pipe open never sends end-of-file, and is a crash, not a timeout; and a
            # session in another thread than the main one learns that the run was stopped.
            if self._outbox:  # requests sent ahead: written as the engine reads them
                self._write_some()
            waiting = self._both if self._outbox else self._readable
            if left <= 0 or not any(events & selectors.EVENT_READ for _, events in waiting.select(min(left, 0.2))):
                if self.proc.poll() is not None:
                    raise EngineCrashed(
                        f"{message['cmd']}: the engine exited with status {self.proc.returncode} before answering"
                        " (a process it started still holds its output open)",
                        returncode=self.proc.returncode, request=message,
                    )  # fmt: skip
                if time.monotonic() >= deadline:
                    raise EngineTimedOut(f"{message['cmd']}: no reply within {self.timeout:g} s", request=message)
                continue
            self._fill(message)

    def _crashed(self, message: dict, closed: str = "closed its output") -> EngineCrashed:
        try:
            code = self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            code = None  # closed a pipe but still running: killed by close()
        how = f"exited with status {code}" if code is not None else closed
        if code is not None and code < 0:
            how = f"was killed by signal {-code}"
        return EngineCrashed(f"{message['cmd']}: the engine {how} before answering", returncode=code, request=message)

    # ------------------------------------------------------------------ end
    def stderr_tail(self) -> str:
        return self._stderr.text()

    def close(self) -> None:
        """Ask politely when the session is healthy (and no signal asked us to stop), then kill
        everything the engine started: its process group, its descendants, and whatever carries
        its token, even in a session of its own."""
        proc = getattr(self, "proc", None)
        if proc is None:  # never started, or closed already
            return
        polite = self._dead is None and self._ahead is None and self._hello is None and not processes.stopping()
        if polite and proc.poll() is None:
            # (Requests sent ahead would have their replies read first, and an engine that has
            # not answered hello yet has agreed to nothing: the kill will do.)
            saved, self.timeout = self.timeout, min(self.timeout, 0.5)
            try:
                self.request(Quit())
            except EngineFailure:
                pass
            self.timeout = saved
        if self.proc is None:  # closed meanwhile, by the failure of the quit
            return
        processes.kill_engine_tree(self.pid, self._token)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL cannot be ignored
            pass
        for selector in (self._readable, self._both):
            selector.close()
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass
        self._stderr.join(1.0)
        # Closed only once the drain thread has stopped: a descriptor closed under a
        # blocked read could be reused and read by the wrong owner. (Still open means a
        # process that left our group holds the pipe; its descriptor is left to it.)
        if not self._stderr.alive() and self.proc.stderr is not None:
            self.proc.stderr.close()
        self.proc = None  # type: ignore[assignment]
        if self._dead is None:
            self._dead = EngineCrashed("the session is closed")


def _unless_stopped(message: dict) -> None:
    """A session waiting in another thread than the main one (`Runner.run` with `jobs`) ends
    once a stop signal has arrived: the main thread took it, and waits for this one."""
    if processes.stopping():
        raise EngineCrashed(f"{message['cmd']}: the run was stopped before the engine answered", request=message)


_subreaper = False


def _adopt_orphans() -> None:
    """Once per process: become a child subreaper, so that what an engine leaves behind comes
    back to us (processes.become_subreaper)."""
    global _subreaper
    if not _subreaper:
        _subreaper = True
        processes.become_subreaper()


class InProcessSession:
    """The reference engine (or a mutant of it) called directly: the same requests, replies
    and checks as over a pipe, without the process and the JSON round trip."""

    def __init__(self, engine_factory: Callable[[], object] | None = None):
        if engine_factory is None:
            from escoba.protocol.server import ReferenceEngine

            engine_factory = ReferenceEngine
        self.engine = engine_factory()
        self._next_id = 0
        reply = self.request(Hello())
        if not isinstance(reply, HelloReply):
            raise ProtocolViolation(f"hello refused: {reply}", request={"cmd": "hello"})
        self.hello = reply

    def request(self, request: Request) -> Reply:
        self._next_id += 1
        message = request.to_json(self._next_id)
        return parse_reply(message, self.engine.handle(message))  # type: ignore[attr-defined]

    def exchange(self, requests: Sequence[Request]) -> Iterator[Reply]:
        # Lazily, like a pipe: a consumer that stops early leaves the rest unasked.
        return (self.request(r) for r in requests)

    def drain(self, raise_failure: bool = False) -> EngineFailure | None:
        return None

    def close(self) -> None:
        pass

    def stderr_tail(self) -> str:
        return ""


__all__ = ["DEFAULT_TIMEOUT", "EngineFailure", "InProcessSession", "Session", "SubprocessSession"]
