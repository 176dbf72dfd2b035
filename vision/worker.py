"""An object living in a process of its own: decoding side by side on a Pi's cores, where
threads would share one interpreter lock.

    worker = ProcessWorker(make, args, "ball decoder 1")    # make(*args) runs in the new process
    answer = worker.call("read", image)                       # its method, there; blocks this thread

A process that dies (killed, out of memory) is started again, and the call that found it dead
raises WorkerDied saying so in one line; an exception inside the method is WorkerFailed, one
line too (its type and message), and the process goes on.

A worker is one core's work: its process starts with the thread pools of OpenBLAS and OpenMP
held to one thread (numpy's matrix products would otherwise start one a core), and OpenCV's too. Threads beyond
the worker's core only compete with the other workers, and under a CPU quota a pool's idle
threads spin its budget away (chute frames read in a process held to 0.3 of a core here:
69 ms a frame with the pools as they start, 37 ms with one thread each).
"""
from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time

import cv2

# spawn, not fork: the parent runs threads (camera, screens), and a forked child may inherit a lock one held
CONTEXT = multiprocessing.get_context("spawn")
STOP_SECONDS = 2.0
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}    # read when numpy loads in the new process


class WorkerDied(RuntimeError):
    pass


class WorkerFailed(RuntimeError):
    pass


class ProcessWorker:
    def __init__(self, make, args: tuple = (), name: str = "worker"):
        self.make, self.args, self.name = make, args, name
        self._lock = threading.Lock()      # one call at a time: the pipe carries one question and its answer
        self._closed = False
        self._start()

    @property
    def pid(self) -> int | None:
        return self._process.pid

    def _start(self) -> None:
        self._conn, child = CONTEXT.Pipe()
        self._process = CONTEXT.Process(target=_serve, args=(child, self.make, self.args, self.name),
                                        name=self.name, daemon=True)
        screens_stderr, sys.stderr = sys.stderr, sys.__stderr__
        try:          # a screen (Textual) replaces sys.stderr with one without a file descriptor to hand on
            with _environment(ONE_THREAD):
                self._process.start()
        finally:
            sys.stderr = screens_stderr
        child.close()

    def call(self, method: str, *args):
        with self._lock:
            if self._closed:
                raise WorkerDied(f"{self.name}: closed")
            try:
                self._conn.send((method, args))
                ok, answer = self._conn.recv()
            except (EOFError, OSError):
                how = self._ended()
                self._start()
                raise WorkerDied(f"{self.name}: its process stopped ({how}); started again") from None
        if not ok:
            raise WorkerFailed(f"{self.name}: {answer}")
        return answer

    def _ended(self) -> str:
        self._conn.close()
        self._process.join(STOP_SECONDS)
        code = self._process.exitcode
        if code is None:
            self._process.kill()
            self._process.join(STOP_SECONDS)
            return "it stopped answering"
        return f"killed by signal {-code}" if code < 0 else f"exit code {code}"

    def close(self) -> None:
        close_all([self])

    def _ask_to_stop(self) -> None:
        with self._lock:             # after a call under way; none after it
            self._closed = True
            try:
                self._conn.send(None)
            except OSError:
                pass

    def _stopped_by(self, deadline: float) -> None:
        """Waits for the process to end until `deadline`, then kills it: a worker keeps nothing to lose."""
        self._process.join(max(0.0, deadline - time.monotonic()))
        if self._process.is_alive():
            self._process.kill()
            self._process.join(STOP_SECONDS)
        self._conn.close()


def close_all(workers: list[ProcessWorker]) -> None:
    """Asks every worker to stop, then waits STOP_SECONDS for them all together, not each in turn:
    workers still starting (a night stopped at once) would otherwise cost that much apiece."""
    for worker in workers:
        worker._ask_to_stop()
    deadline = time.monotonic() + STOP_SECONDS
    for worker in workers:
        worker._stopped_by(deadline)


@contextlib.contextmanager
def _environment(values: dict):
    """os.environ with `values` set (what a process started inside inherits), then as it was."""
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _serve(conn, make, args: tuple, name: str) -> None:
    """The worker process: make the object, then answer calls until told to stop or the parent goes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)        # Ctrl-C is for the parent, which closes its workers
    cv2.setNumThreads(1)
    try:
        target = make(*args)
    except Exception as error:
        print(f"{name}: cannot start: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        method, call_args = message
        try:
            answer = (True, getattr(target, method)(*call_args))
        except Exception as error:           # the answer names it; the worker goes on with the next call
            answer = (False, f"{type(error).__name__}: {error}")
        conn.send(answer)
