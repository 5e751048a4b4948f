"""``vcoder ARGV`` run by ``vcoder.cli.main`` in the test's own process, for tests of a command rather than of a
fresh interpreter: a subprocess pays seconds of torch/transformers imports each time. Keep a real subprocess where
the process itself is tested (a kill, a launcher, ``python -m``, stdout purity before logging is set up)."""

from __future__ import annotations

import contextlib
import io
import subprocess


def vcoder(*argv: str) -> subprocess.CompletedProcess:
    """Run ``vcoder ARGV`` in this process; returns its exit status, stdout and stderr like ``subprocess.run``.

    A usage error's ``SystemExit`` becomes the exit status, and torch's thread count is restored (a command may set
    it for its own run)."""
    import torch

    from vcoder.cli import main

    out, err = io.StringIO(), io.StringIO()
    threads = torch.get_num_threads()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(argv))
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
    finally:
        torch.set_num_threads(threads)
    return subprocess.CompletedProcess(list(argv), code, out.getvalue(), err.getvalue())
