"""``vcoder predict``: ask an OpenAI-compatible server to write HTML for every screenshot of a testset."""

from __future__ import annotations

import argparse
import json
import sys


def add_parser(subparsers, name: str) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        name,
        help="predict HTML for a Design2Code-layout testset with an OpenAI-compatible server (vLLM, ...)",
        description=(
            "For each <id>.png of TESTSET, send the screenshot to the server and write OUT/<id>.html (extracted "
            "HTML), OUT/<id>.raw.json (full response + timing) and OUT/predictions.jsonl. Done samples are skipped "
            "on a rerun. Exit 0: all done; 3: some failed; 2: usage error, unreachable server or unknown model."
        ),
    )
    parser.add_argument("--testset", required=True, help="folder of <id>.png (+ <id>.html, rick.jpg); only read")
    parser.add_argument(
        "--base-url", required=True, help="server URL, e.g. http://127.0.0.1:8000 (with or without /v1)"
    )
    parser.add_argument("--model", required=True, help="model name as the server knows it (see its /v1/models)")
    parser.add_argument("--out", required=True, help="predictions folder (created; not the testset folder)")
    parser.add_argument(
        "--prompt",
        choices=("design2code", "training"),
        default="design2code",
        help="design2code: the benchmark's direct prompt; training: the prompt the model was trained with",
    )
    parser.add_argument(
        "--config", help="training YAML recipe whose system_prompt/user_prompt to use (--prompt training)"
    )
    parser.add_argument("--max-concurrency", type=int, default=8, help="requests in flight (default 8)")
    parser.add_argument(
        "--timeout-ms", type=float, default=600_000, help="deadline per request in ms (default 600000)"
    )
    parser.add_argument("--max-retries", type=int, default=3, help="retries on connection errors, timeouts, 429, 5xx")
    parser.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (benchmark: 0)")
    parser.add_argument("--max-tokens", type=int, default=4096, help="completion token limit (benchmark: 4096)")
    parser.add_argument("--seed", type=int, default=2024, help="sampling seed where the server honours it")
    parser.add_argument("--api-key", help="bearer token (default: $OPENAI_API_KEY)")
    parser.add_argument("--ids", help="comma-separated sample ids to predict (default: all)")
    parser.add_argument("--overwrite", action="store_true", help="redo samples whose <id>.html exists")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    import asyncio
    from pathlib import Path

    from vcoder.chat import ChatError, Endpoint, connect
    from vcoder.data.design2code import list_samples
    from vcoder.eval.predict import make_prompt, predict_testset

    def usage(message: str) -> int:
        print(f"vcoder predict: error: {message}", file=sys.stderr)
        return 2

    if args.max_concurrency < 1 or args.timeout_ms <= 0 or args.max_retries < 0 or args.max_tokens < 1:
        return usage(
            f"--max-concurrency ({args.max_concurrency}) and --max-tokens ({args.max_tokens}) must be >= 1, "
            f"--timeout-ms ({args.timeout_ms}) > 0, --max-retries ({args.max_retries}) >= 0"
        )
    try:
        list_samples(args.testset, suffix=".png")
        if Path(args.out).resolve() == Path(args.testset).resolve():
            return usage(f"--out {args.out!r} is the testset folder; give a separate predictions folder")
        prompt = make_prompt(args.prompt, config=args.config)
        client = connect(
            Endpoint(
                args.base_url,
                args.model,
                timeout_ms=args.timeout_ms,
                max_retries=args.max_retries,
                max_concurrency=args.max_concurrency,
            ),
            api_key=args.api_key,
        )
    except (FileNotFoundError, ValueError) as exc:
        return usage(str(exc))
    ids = [i.strip() for i in args.ids.split(",") if i.strip()] if args.ids else None
    sampling = {"temperature": args.temperature, "max_tokens": args.max_tokens, "seed": args.seed}

    async def main():
        try:
            # before anything is written: a dead server or a wrong model name is a usage error, not N failures
            try:
                await client.check(probe_chat=True)
            except ChatError as exc:
                return exc
            return await predict_testset(
                args.testset,
                args.out,
                client,
                prompt=prompt,
                sampling=sampling,
                overwrite=args.overwrite,
                ids=ids,
                progress=not args.no_progress,
            )
        finally:
            await client.aclose()

    summary = asyncio.run(main())
    if isinstance(summary, Exception):
        return usage(f"{summary} (nothing was written)")
    print(json.dumps(summary.to_dict()))
    return 3 if summary.failed else 0
