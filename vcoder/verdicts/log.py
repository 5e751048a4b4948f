"""Reading and appending a verdict log file (the records are :mod:`vcoder.verdicts.records`).

Appending is safe with several writers: each line goes out in one ``write`` on an ``O_APPEND`` descriptor under a
per-file lock (a thread lock in this process, ``flock`` across processes) and is flushed at once. A writer that
finds the file ending in a torn line (a process died mid-write) cuts the fragment off before appending. The reader
validates every line and names the line and field that is wrong; it skips a torn last line with a warning.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterator
from pathlib import Path

from vcoder.verdicts.records import VerdictLogError, VerdictRecord

logger = logging.getLogger(__name__)


_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def _lock_for(path: Path) -> threading.Lock:
    key = os.path.realpath(path)
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(key, threading.Lock())


class VerdictLog:
    """An append-only verdict log file (JSONL). Any number of ``VerdictLog`` objects, threads and processes may
    append to one file; each record lands whole on its own line.

    Args:
        path: the log file (created with its folder on first append).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def append(self, record: VerdictRecord) -> None:
        """Append one record as one line, flushed to the file before returning."""
        line = (json.dumps(record.to_dict(), ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with _lock_for(self.path):
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                _flock(fd, True)
                try:
                    _cut_torn_tail(fd, self.path)
                    os.write(fd, line)
                finally:
                    _flock(fd, False)
            finally:
                os.close(fd)

    def append_or_warn(self, record: VerdictRecord) -> bool:
        """``append``, logging a warning instead of raising when the file cannot be written (a grader's log must
        not stop training or an evaluation); True when the line was written."""
        try:
            self.append(record)
        except OSError as exc:
            logger.warning("could not append to the verdict log %s: %s", self.path, exc)
            return False
        return True


def _flock(fd: int, lock: bool) -> None:
    try:
        import fcntl
    except ImportError:  # not POSIX: the in-process lock still applies
        return
    fcntl.flock(fd, fcntl.LOCK_EX if lock else fcntl.LOCK_UN)


def _cut_torn_tail(fd: int, path: Path) -> None:
    """A file not ending in a newline holds a torn line (a writer died mid-line, under no lock now): drop it."""
    size = os.fstat(fd).st_size
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return
    start = size
    while start > 0:
        chunk = os.pread(fd, min(4096, start), max(0, start - 4096))
        cut = chunk.rfind(b"\n")
        if cut >= 0:
            start = start - len(chunk) + cut + 1
            break
        start -= len(chunk)
    logger.warning("%s ended in a torn line (%d bytes, a writer died mid-line); dropping it", path, size - start)
    os.ftruncate(fd, start)


def iter_verdicts(path: str | Path) -> Iterator[VerdictRecord]:
    """Validated records of a log, in order.

    Raises:
        VerdictLogError: the file is missing, or a line is not JSON or misses/mistypes a field (file, line and
            field named). A torn last line (no newline, not JSON) is skipped with a warning.
    """
    path = Path(path)
    if not path.is_file():
        raise VerdictLogError(f"verdict log {str(path)!r} does not exist; create one with `vcoder orm collect`")
    with open(path, encoding="utf-8", errors="replace") as handle:
        lines = handle.readlines()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            if number == len(lines) and not line.endswith("\n"):
                logger.warning("%s: skipping a torn last line (a writer stopped mid-line)", where)
                return
            raise VerdictLogError(f"{where}: not a JSON object ({exc.msg} at column {exc.colno})") from None
        yield VerdictRecord.from_dict(data, where=where)


def read_verdicts(path: str | Path) -> list[VerdictRecord]:
    """All validated records of a log (see :func:`iter_verdicts`)."""
    return list(iter_verdicts(path))
