"""A small OpenAI-compatible server for a local Hugging Face causal LM: ``/v1/chat/completions`` and ``/v1/models``.

For tests and laptops (transformers ``generate``, one request at a time, CPU or GPU); on GPUs serve with vLLM
(``vllm serve MODEL_DIR``), which speaks the same protocol. A request's messages go through the model's chat template
with the generation prompt; ``max_tokens`` (or ``max_completion_tokens``), ``temperature`` (0: greedy), ``top_p``,
``seed`` and ``stop`` are honoured; a request that leaves ``temperature`` out samples as the model's
``generation_config`` says (vLLM's default too). Text only: a message with an image part is refused (400), as are
``stream`` and ``n`` > 1. ``max_prompt_tokens`` keeps a prompt's LAST tokens and ``system=False`` drops system turns,
the two ways the web agent's trainer (:mod:`vcoder.pipelines.web_agent.lm`) shapes its prompts, so a served agent
reads exactly what it was trained on.

Example:
    >>> server = ChatServer.load("outputs/web-agent-0/phase_1/model", port=0)  # doctest: +SKIP
    >>> threading.Thread(target=server.serve_forever, daemon=True).start()  # doctest: +SKIP
    >>> server.base_url  # doctest: +SKIP
    'http://127.0.0.1:40213/v1'
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from vcoder.models.generator import DEFAULT_MAX_TOKENS, Completion, Generator, check_model_dir

logger = logging.getLogger(__name__)

# Generator and check_model_dir live in vcoder.models.generator and stay importable from here
__all__ = ["DEFAULT_MAX_TOKENS", "ChatServer", "Completion", "Generator", "RequestError", "check_model_dir"]


class RequestError(ValueError):
    """A request the server cannot answer (HTTP 400 or 404 with this message)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def _text(content: Any, where: str) -> str:
    """A message's content as text; image (or other non-text) parts are refused."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise RequestError(f"{where}: content must be a string or a list of parts, got {type(content).__name__}")
    texts = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind != "text":
            raise RequestError(f"{where}: this server serves a text model; {kind or 'an unknown'} parts are refused")
        texts.append(str(part.get("text", "")))
    return "".join(texts)


def _request(body: Any) -> tuple[list[dict[str, str]], dict[str, Any]]:
    """A chat request's messages and ``Generator.complete`` options, validated (``RequestError`` says why not)."""
    if not isinstance(body, dict):
        raise RequestError("the request body must be a JSON object")
    if body.get("stream"):
        raise RequestError("stream=true is not supported by vcoder serve; send stream=false (or use vLLM)")
    if body.get("n", 1) != 1:
        raise RequestError(f"n={body.get('n')!r}: vcoder serve answers one choice per request (n=1)")
    raw = body.get("messages")
    if not isinstance(raw, list) or not raw:
        raise RequestError("messages must be a non-empty list of {role, content}")
    messages = []
    for i, m in enumerate(raw):
        if not isinstance(m, dict) or m.get("role") not in ("system", "user", "assistant"):
            raise RequestError(f"messages[{i}] needs a role among system, user, assistant")
        messages.append({"role": m["role"], "content": _text(m.get("content"), f"messages[{i}]")})
    max_tokens = body.get("max_completion_tokens", body.get("max_tokens")) or DEFAULT_MAX_TOKENS
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens <= 0:
        raise RequestError(f"max_tokens={max_tokens!r} must be a positive integer")
    options: dict[str, Any] = {"max_tokens": max_tokens}
    for key in ("temperature", "top_p"):
        value = body.get(key)
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise RequestError(f"{key}={value!r} must be a number >= 0")
            options[key] = float(value)
    if body.get("seed") is not None:
        if isinstance(body["seed"], bool) or not isinstance(body["seed"], int):
            raise RequestError(f"seed={body['seed']!r} must be an integer")
        options["seed"] = body["seed"]
    stop = body.get("stop") or []
    options["stop"] = [stop] if isinstance(stop, str) else [str(s) for s in stop]
    return messages, options


class ChatServer(ThreadingHTTPServer):
    """The HTTP server: ``GET /v1/models``, ``GET /health``, ``POST /v1/chat/completions`` (paths with or without
    ``/v1``). Use it as ``http.server`` servers are used (``serve_forever``, ``shutdown``, ``server_close``).

    Args:
        generator: what answers (set before serving when None).
        model_name: the name requests must give as ``model`` (and ``/v1/models`` lists).
        host, port: where to listen (port 0: a free one; ``base_url`` says which).
    """

    daemon_threads = True

    def __init__(
        self, generator: Generator | None, model_name: str, *, host: str = "127.0.0.1", port: int = 8000
    ) -> None:
        self.generator, self.model_name = generator, model_name
        self.created = int(time.time())
        super().__init__((host, port), _Handler)

    @classmethod
    def load(
        cls,
        model_dir: str | Path,
        *,
        model_name: str | None = None,
        host: str = "127.0.0.1",
        port: int = 8000,
        device: str = "auto",
        max_prompt_tokens: int | None = None,
        system: bool = True,
    ) -> ChatServer:
        """A server for a saved model folder (named ``model_name``, default the folder as given, as vLLM does).

        Raises:
            FileNotFoundError: no such model folder (a one-line message).
            OSError: the address is in use.
        """
        check_model_dir(model_dir)
        # bind first: a port in use is reported before seconds of model loading
        server = cls(None, model_name or str(model_dir), host=host, port=port)
        try:
            server.generator = Generator.load(
                model_dir, device=device, max_prompt_tokens=max_prompt_tokens, system=system
            )
        except BaseException:
            server.server_close()
            raise
        return server

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/v1"

    def answer(self, body: Any) -> dict[str, Any]:
        """The chat completion response to a request body (``RequestError`` for a bad request)."""
        messages, options = _request(body)
        if body.get("model") not in (None, self.model_name):
            raise RequestError(
                f"The model `{body.get('model')}` does not exist; this server serves {self.model_name!r}", 404
            )
        done = self.generator.complete(messages, **options)
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model_name,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": done.text},
                    "finish_reason": done.finish_reason,
                }
            ],
            "usage": {
                "prompt_tokens": done.prompt_tokens,
                "completion_tokens": done.completion_tokens,
                "total_tokens": done.prompt_tokens + done.completion_tokens,
            },
        }

    def models(self) -> dict[str, Any]:
        entry = {"id": self.model_name, "object": "model", "created": self.created, "owned_by": "vcoder"}
        return {"object": "list", "data": [entry]}


class _Handler(BaseHTTPRequestHandler):
    server: ChatServer

    def log_message(self, fmt: str, *args: Any) -> None:
        logger.info("%s %s", self.address_string(), fmt % args)

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting
            pass

    def _error(self, status: int, message: str) -> None:
        kind = "invalid_request_error" if status < 500 else "server_error"
        self._send(status, {"error": {"message": message, "type": kind, "code": status}})

    def _route(self) -> str:
        path = self.path.split("?", 1)[0].rstrip("/")
        return path[3:] if path.startswith("/v1/") else path

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        route = self._route()
        if route == "/models":
            self._send(200, self.server.models())
        elif route == "/health":
            self._send(200, {"status": "ok"})
        else:
            self._error(404, f"no route GET {self.path}; try /v1/models or POST /v1/chat/completions")

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        if self._route() != "/chat/completions":
            self._error(404, f"no route POST {self.path}; try /v1/chat/completions")
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"null")
            self._send(200, self.server.answer(body))
        except json.JSONDecodeError as exc:
            self._error(400, f"the request body is not JSON ({exc})")
        except RequestError as exc:
            self._error(exc.status, str(exc))
        except Exception as exc:  # a generation failure is the server's, not the request's
            logger.exception("generation failed")
            self._error(500, f"generation failed: {type(exc).__name__}: {exc}")
