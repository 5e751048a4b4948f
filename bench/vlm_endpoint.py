"""Latency of an OpenAI-compatible VLM endpoint as vcoder's client sees it; prints one JSON line.

Start a server first, e.g. the tiny offline model on CPU:
    vcoder models tiny --out runs/tiny-model
    HF_HUB_CACHE=$(mktemp -d) transformers serve runs/tiny-model --host 127.0.0.1 --port 8011 --device cpu
    python bench/vlm_endpoint.py --base-url http://127.0.0.1:8011 --model runs/tiny-model

``--small`` (the test suite's smoke run) needs no server: it starts a loopback HTTP server that answers every
chat request at once with a fixed reply, so it times vcoder's client alone (encoding, HTTP, parsing), 2 repeats.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import statistics
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from PIL import Image

from vcoder.chat import Endpoint, connect, user_message


def _png(i: int, size=(1280, 720)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, (i * 37 % 256, 120, 200)).save(buf, format="PNG")
    return buf.getvalue()


class _FixedReply(BaseHTTPRequestHandler):
    """An OpenAI-shaped endpoint that lists one model and answers every chat request with the same text."""

    def _send(self, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._send({"object": "list", "data": [{"id": "fixed", "object": "model"}]})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        reply = {"role": "assistant", "content": "<html><body>ok</body></html>"}
        usage = {"prompt_tokens": len(json.dumps(body)) // 4, "completion_tokens": 8, "total_tokens": 0}
        self._send({"object": "chat.completion", "choices": [{"index": 0, "message": reply}], "usage": usage})

    def log_message(self, *args):
        pass


def _fixed_server() -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FixedReply)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


async def main(args) -> dict:
    client = connect(Endpoint(args.base_url, args.model, timeout_ms=600_000, max_concurrency=args.concurrency))
    await client.check(probe_chat=True)
    out = {"base_url": client.base_url, "model": args.model, "repeats": args.repeats, "max_tokens": args.max_tokens}
    cases = {
        "text_only": lambda i: [user_message(f"Write HTML number {i}.")],
        "with_image_1280x720": lambda i: [user_message("Write the HTML for this page.", images=[_png(i)])],
    }
    for name, make in cases.items():
        seconds, prompt_tokens = [], []
        for i in range(args.repeats):
            start = time.perf_counter()
            reply = await client.chat(make(i), max_tokens=args.max_tokens)
            seconds.append(time.perf_counter() - start)
            prompt_tokens.append(reply.raw.get("usage", {}).get("prompt_tokens"))
        out[name] = {
            "median_s": round(statistics.median(seconds), 3),
            "max_s": round(max(seconds), 3),
            "prompt_tokens": prompt_tokens[0],
        }
    start = time.perf_counter()
    await asyncio.gather(
        *(client.chat(cases["with_image_1280x720"](i), max_tokens=args.max_tokens) for i in range(args.repeats))
    )
    out[f"concurrent_{args.repeats}_with_image_s"] = round(time.perf_counter() - start, 3)
    await client.aclose()
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", help="the server (required unless --small)")
    parser.add_argument("--model", help="the served model (required unless --small)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--small", action="store_true", help="smoke run: a loopback fixed-reply server, 2 repeats")
    cli = parser.parse_args()
    fixed = None
    if cli.small:
        fixed = _fixed_server()
        cli.base_url, cli.model, cli.repeats = f"http://127.0.0.1:{fixed.server_address[1]}/v1", "fixed", 2
    elif not (cli.base_url and cli.model):
        parser.error("--base-url and --model are required (or --small)")
    try:
        print(json.dumps(asyncio.run(main(cli))))
    finally:
        if fixed is not None:
            fixed.shutdown()
