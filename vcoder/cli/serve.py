"""``vcoder serve MODEL_DIR``: an OpenAI-compatible server for a local causal LM (:mod:`vcoder.chat.server`)."""

from __future__ import annotations

import argparse
import errno
import logging
import sys

DESCRIPTION = """Serve a saved Hugging Face causal LM (a folder written by save_pretrained, e.g. a web agent trained
by `vcoder curriculum run`) at http://HOST:PORT/v1: POST /v1/chat/completions (max_tokens, temperature, top_p,
seed, stop honoured; text only, no streaming) and GET /v1/models. One request at a time with transformers generate,
on CPU or a GPU: for tests and laptops. On GPUs serve with vLLM instead (`vllm serve MODEL_DIR --port 8000`), which
answers the same requests. Point the gui_agent reward at it with gui_base_url, gui_model and gui_policy: text."""


def add_parser(subparsers, name: str) -> None:
    p = subparsers.add_parser(
        name,
        help="serve a local causal LM over an OpenAI-compatible API (tests, laptops; vLLM on GPUs)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("model_dir", metavar="MODEL_DIR", help="the model folder (config.json, weights, tokenizer)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    p.add_argument("--model-name", help="the name requests give as model (default: MODEL_DIR as written)")
    p.add_argument("--device", default="auto", help="torch device: auto (CUDA if available), cpu, cuda, cuda:1, ...")
    p.add_argument(
        "--max-prompt-tokens",
        type=int,
        default=None,
        help="keep a prompt's last N tokens (the web agent recipe's max_prompt_tokens; default: all)",
    )
    p.add_argument(
        "--no-system",
        dest="system",
        action="store_false",
        help="drop system turns (for a web agent trained with system_prompt: false, as the tiny CPU recipe is)",
    )
    p.set_defaults(func=run)


def _error(message: str, code: int = 2) -> int:
    print(f"vcoder serve: error: {message}", file=sys.stderr)
    return code


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def run(args) -> int:
    from vcoder.models.server import ChatServer, check_model_dir

    if args.max_prompt_tokens is not None and args.max_prompt_tokens <= 0:
        return _error(f"--max-prompt-tokens {args.max_prompt_tokens} must be positive")
    if not 0 <= args.port <= 65535:
        return _error(f"--port {args.port} must be in 0..65535")
    try:
        check_model_dir(args.model_dir)
    except FileNotFoundError as exc:
        return _error(str(exc))
    try:
        server = ChatServer.load(
            args.model_dir,
            model_name=args.model_name,
            host=args.host,
            port=args.port,
            device=args.device,
            max_prompt_tokens=args.max_prompt_tokens,
            system=args.system,
        )
    except OSError as exc:
        if exc.errno in (errno.EADDRINUSE, errno.EADDRNOTAVAIL, errno.EACCES):
            return _error(f"cannot listen on {args.host}:{args.port} ({exc.strerror}); pick another --port/--host", 1)
        return _error(f"cannot load the model in {args.model_dir}: {_first_line(exc)}")  # transformers' OSErrors
    except (ValueError, RuntimeError) as exc:  # no chat template, an unknown device
        return _error(_first_line(exc))
    # the one line a script waits for (the port, when --port 0 picked one)
    print(f"vcoder serve: {server.model_name!r} at {server.base_url}", file=sys.stderr, flush=True)
    logging.getLogger(__name__).info("serving %s", args.model_dir)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
