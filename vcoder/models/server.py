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
import threading
import time
import uuid
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

__all__ = ["ChatServer", "Generator", "RequestError", "check_model_dir"]

#: reply budget of a request that gives no ``max_tokens``
DEFAULT_MAX_TOKENS = 256


class RequestError(ValueError):
    """A request the server cannot answer (HTTP 400 or 404 with this message)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def check_model_dir(path: str | Path) -> Path:
    """``path`` as a model folder, or a ``FileNotFoundError`` whose one-line message says what to pass.

    Example:
        >>> check_model_dir("/no/such/model")
        Traceback (most recent call last):
        ...
        FileNotFoundError: no model folder at /no/such/model: pass a folder written by save_pretrained (config.json \
and tokenizer files), e.g. outputs/web-agent-0/phase_1/model
    """
    folder = Path(path)
    hint = (
        "pass a folder written by save_pretrained (config.json and tokenizer files), e.g. "
        "outputs/web-agent-0/phase_1/model"
    )
    if not folder.is_dir():
        raise FileNotFoundError(f"no model folder at {folder}: {hint}")
    if not (folder / "config.json").is_file():
        raise FileNotFoundError(f"{folder} has no config.json, so it is not a saved model: {hint}")
    return folder


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


@dataclass(frozen=True)
class Completion:
    """One generated reply: its text, token counts and why it stopped (``stop`` or ``length``)."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str


class Generator:
    """A causal LM and its tokenizer, answering chat messages with ``generate`` (one call at a time: a lock).

    Args:
        model: a transformers causal LM (eval mode).
        tokenizer: its tokenizer, with a chat template.
        max_prompt_tokens: keep the last this many prompt tokens (None: all).
        system: keep system turns (False: drop them, for a model trained without its system prompt).
    """

    def __init__(self, model, tokenizer, *, max_prompt_tokens: int | None = None, system: bool = True) -> None:
        if getattr(tokenizer, "chat_template", None) is None:
            raise ValueError("the tokenizer has no chat template; save one with the model (tokenizer.chat_template)")
        self.model, self.tokenizer = model, tokenizer
        self.max_prompt_tokens, self.system = max_prompt_tokens, system
        self._lock = threading.Lock()

    @classmethod
    def load(cls, model_dir: str | Path, *, device: str = "auto", **options: Any) -> Generator:
        """Load a saved model folder (``float32`` on CPU, ``bfloat16`` on CUDA); ``options`` as the constructor's."""
        folder = check_model_dir(model_dir)
        import torch

        from vcoder.models.loading import load_model, load_processor

        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
        tokenizer = load_processor(folder, kind="causal_lm")
        model = load_model(folder, kind="causal_lm", dtype=dtype, device=device, eval_mode=True)
        return cls(model, tokenizer, **options)

    def prompt_ids(self, messages: list[dict[str, str]]) -> list[int]:
        """The chat template with its generation prompt, system turns dropped unless ``system``, last tokens kept."""
        from vcoder.models.chat_prompt import prompt_ids

        return prompt_ids(self.tokenizer, messages, self.max_prompt_tokens, self.system)

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float | None = None,
        top_p: float | None = None,
        seed: int | None = None,
        stop: list[str] = (),
    ) -> Completion:
        """One reply to ``messages`` (``{"role", "content"}`` with text content)."""
        import torch

        ids = self.prompt_ids(messages)
        inputs = torch.tensor([ids], device=self.model.device)
        options: dict[str, Any] = {"max_new_tokens": max_tokens}
        if temperature is not None:
            sample = temperature > 0
            options.update(do_sample=sample, temperature=temperature if sample else None, top_k=None)
            options["top_p"] = (top_p if top_p is not None else 1.0) if sample else None
        elif top_p is not None:
            options["top_p"] = top_p
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else self.tokenizer.eos_token_id
        with self._lock, torch.no_grad():
            if seed is not None:
                torch.manual_seed(seed)
            out = self.model.generate(inputs, attention_mask=torch.ones_like(inputs), pad_token_id=pad, **options)
        new = out[0, len(ids) :].tolist()
        text = self.tokenizer.decode(new, skip_special_tokens=True)
        ended = new and new[-1] in _eos_ids(self.model, self.tokenizer)
        finish = "stop" if ended or len(new) < max_tokens else "length"
        for s in stop:
            if s and s in text:
                text, finish = text[: text.index(s)], "stop"
        return Completion(text, len(ids), len(new), finish)


def _eos_ids(model, tokenizer) -> set[int]:
    eos = getattr(model.generation_config, "eos_token_id", None)
    ids = set(eos if isinstance(eos, list) else [eos]) | {tokenizer.eos_token_id}
    return {i for i in ids if i is not None}


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
