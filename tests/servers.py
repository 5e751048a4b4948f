"""Real OpenAI-compatible servers on loopback for tests: ``transformers serve`` with the tiny VLM, and a scripted one.

``tests/conftest.py`` registers this module as a plugin, so its fixtures exist in every test. The tiny-model server
starts once per test session on a random free port, is polled for readiness with a deadline, logs to a temp file
(printed when it fails to start) and is killed on teardown. ``ScriptedServer`` is a small ``http.server`` in a
thread that answers ``/v1/chat/completions`` after a delay, or with given HTTP statuses first: the slow and
flaky servers of the timeout/retry tests.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

# generation_config JSON that makes `transformers serve` sample (its default is greedy, and the tiny model's greedy
# output is all newlines, which the server strips to ""); sampled noise exercises the parsers on real junk
SAMPLING = json.dumps({"do_sample": True, "temperature": 1.0, "top_k": 0, "max_new_tokens": 48})


def free_port() -> int:
    """A TCP port that was free on 127.0.0.1 a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def dead_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    return free_port()


@dataclass
class ServedModel:
    """A running server: ``base_url`` (``http://127.0.0.1:P``), the ``model`` name to request, its log file."""

    base_url: str
    model: str
    log_path: Path
    process: subprocess.Popen

    def log_tail(self, n: int = 60) -> str:
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])


def _wait_ready(url: str, proc: subprocess.Popen, log_path: Path, deadline_s: float) -> None:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if proc.poll() is not None:
            break
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    tail = "\n".join(log_path.read_text(errors="replace").splitlines()[-60:])
    _stop(proc)
    state = f"exited with {proc.returncode}" if proc.poll() is not None else f"not ready after {deadline_s:g}s"
    raise RuntimeError(f"server {state} ({url}); log {log_path}:\n{tail}")


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)  # the server runs in its own session: its workers go too
        proc.wait(timeout=10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)


def start_transformers_serve(model_dir: Path, workdir: Path, *, deadline_s: float = 180.0) -> ServedModel:
    """Start ``transformers serve MODEL_DIR`` on CPU on a free loopback port and wait until /health answers.

    Args:
        model_dir: a saved model (e.g. from ``build_tiny_vlm``); it is pinned, so requests name it by this path.
        workdir: where the log and the (empty) hub cache go.
        deadline_s: how long to wait for readiness before failing with the log tail.

    Returns:
        The running server; stop it with ``stop_server``.
    """
    port = free_port()
    cache = workdir / "hf-cache"  # /v1/models 500s unless the hub cache folder exists
    cache.mkdir(parents=True, exist_ok=True)
    log_path = workdir / f"transformers-serve-{port}.log"
    env = {**os.environ, "HF_HUB_CACHE": str(cache), "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    env.setdefault("OMP_NUM_THREADS", "1")  # other engineers share the 2 cores
    exe = Path(sys.executable).with_name("transformers")
    cmd = [str(exe) if exe.exists() else "transformers", "serve", str(model_dir), "--host", "127.0.0.1"]
    cmd += ["--port", str(port), "--device", "cpu", "--log-level", "info"]
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    _wait_ready(f"http://127.0.0.1:{port}/health", proc, log_path, deadline_s)
    return ServedModel(f"http://127.0.0.1:{port}", str(model_dir), log_path, proc)


def start_vcoder_serve(model_dir: Path, workdir: Path, *flags: str, deadline_s: float = 120.0) -> ServedModel:
    """Start ``vcoder serve MODEL_DIR FLAGS...`` (the real CLI) on a free loopback port and wait until /health answers;
    ``base_url`` ends in ``/v1``, ``model`` is MODEL_DIR (what the server is asked for without ``--model-name``)."""
    port = free_port()
    log_path = workdir / f"vcoder-serve-{port}.log"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    env.setdefault("OMP_NUM_THREADS", "1")  # other engineers share the 2 cores
    cmd = [sys.executable, "-m", "vcoder", "serve", str(model_dir), "--port", str(port), *flags]
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    _wait_ready(f"http://127.0.0.1:{port}/health", proc, log_path, deadline_s)
    return ServedModel(f"http://127.0.0.1:{port}/v1", str(model_dir), log_path, proc)


def stop_server(server: ServedModel) -> None:
    _stop(server.process)


@pytest.fixture(scope="session")
def tiny_vlm_dir(tmp_path_factory) -> Path:
    """The tiny random Qwen2.5-VL, built offline once per session (``$VCODER_TINY_VLM`` reuses a built one)."""
    given = os.environ.get("VCODER_TINY_VLM")
    if given and (Path(given) / "config.json").exists():
        return Path(given)
    from vcoder.models.tiny import build_tiny_vlm

    return build_tiny_vlm(tmp_path_factory.mktemp("tiny-vlm") / "model")


@pytest.fixture(scope="session")
def tiny_vlm_server(tiny_vlm_dir, tmp_path_factory):
    """``transformers serve`` serving the tiny VLM on loopback for the whole session."""
    server = start_transformers_serve(tiny_vlm_dir, tmp_path_factory.mktemp("serve"))
    try:
        yield server
    finally:
        stop_server(server)
        if os.environ.get("VCODER_SHOW_SERVER_LOG"):
            print(server.log_tail())


class JSONHandler(BaseHTTPRequestHandler):
    """A quiet request handler that answers JSON (a client that timed out and left is not an error)."""

    def log_message(self, *args):  # keep pytest output clean
        pass

    def _send(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
            pass


class LoopbackServer:
    """A ``ThreadingHTTPServer`` on a free loopback port, served from a thread while the ``with`` block runs."""

    def _listen(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def chat_completion(text: str) -> dict:
    """An OpenAI chat-completion body whose one choice is the assistant's ``text``."""
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}


class ChatServer(LoopbackServer):
    """An OpenAI-shaped server on loopback whose every chat completion is :meth:`answer` of the request's JSON body
    (called under one lock, so a subclass may record what it is sent); ``models`` (when set) are listed at
    ``/v1/models``, otherwise a GET is unsupported as in a bare ``http.server``."""

    models: tuple[str, ...] | None = None

    def __init__(self) -> None:
        self._lock = threading.Lock()
        outer = self

        class Handler(JSONHandler):
            def do_GET(self):
                if outer.models is None:
                    self.send_error(501, f"Unsupported method ({self.command!r})")
                    return
                self._send(200, {"object": "list", "data": [{"id": m, "object": "model"} for m in outer.models]})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                with outer._lock:
                    text = outer.answer(body)
                self._send(200, chat_completion(text))

        self._listen(Handler)

    def answer(self, body: dict) -> str:
        raise NotImplementedError


class ScriptedServer(LoopbackServer):
    """An OpenAI-shaped ``http.server`` on loopback: answers after ``delay_s``, first with ``statuses`` if given.

    Args:
        reply: the assistant text of every successful completion, or a list answered in order (last repeated).
        delay_s: sleep before answering each request (the slow server of the timeout tests).
        statuses: HTTP statuses returned to the first requests, in order (e.g. ``(503, 429)``), then 200s.
        models: ids served (and listed at ``/v1/models``).
        listed: ids listed at ``/v1/models`` when they differ from ``models`` (``()``: a server that lists none, as
            ``transformers serve`` <= 5.23 did for a model pinned by path).
        body: a JSON body to send instead of a chat completion on success (bad-shape tests).

    Attributes:
        hits: the request paths seen, in order.
        bodies: the decoded JSON bodies of POST requests, in order.
        max_inflight: the most requests it was answering at the same time.
    """

    def __init__(
        self,
        reply: str | list[str] = "Score: 4",
        *,
        delay_s: float = 0.0,
        statuses=(),
        models=("scripted",),
        listed=None,
        body=None,
    ):
        # a list of replies is answered in order, its last one repeated
        self.replies = [reply] if isinstance(reply, str) else list(reply)
        self.delay_s, self.statuses, self.models = delay_s, list(statuses), list(models)
        self.listed = self.models if listed is None else list(listed)
        self.body = body
        self.hits: list[str] = []
        self.inflight = self.max_inflight = 0
        self.bodies: list[dict] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(JSONHandler):
            def do_GET(self):
                with outer._lock:
                    outer.hits.append(self.path)
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": m, "object": "model"} for m in outer.listed]})
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with outer._lock:
                    outer.hits.append(self.path)
                    outer.bodies.append(body)
                    status = outer.statuses.pop(0) if outer.statuses else 200
                    outer.inflight += 1
                    outer.max_inflight = max(outer.max_inflight, outer.inflight)
                time.sleep(outer.delay_s)
                with outer._lock:
                    outer.inflight -= 1
                if status != 200:
                    self._send(status, {"error": {"message": f"scripted status {status}"}})
                elif outer.body is not None:
                    self._send(200, outer.body)
                elif body.get("model") not in outer.models:
                    self._send(404, {"error": {"message": f"The model `{body.get('model')}` does not exist."}})
                else:
                    with outer._lock:
                        text = outer.replies.pop(0) if len(outer.replies) > 1 else outer.replies[0]
                    message = {"role": "assistant", "content": text}
                    self._send(200, {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})

        self._listen(Handler)

    @property
    def chat_hits(self) -> int:
        return sum(p.endswith("/chat/completions") for p in self.hits)
