"""Pilot (issue 24): does a web-agent SFT start copy the task's entity on held-out tasks?

Trains a tiny LM on demonstration rows (``demos.jsonl`` of ``vcoder curriculum web-sft``, or rows written the same
way for other task sets) and measures, teacher-forced and greedy, on every demonstrated step of a training sample
and of the held-out tasks' demonstrations:

- ``step``: the generated action equals the solver's;
- ``note``: the generated ``# Element: <text>`` equals the solver's (steps with a note);
- ``entity``: the same on the steps whose note holds one of the task's instantiation values (a product, a
  category, a customer group, a forum, a post, a project): the entity copy the curriculum's held-out episodes miss
  (the tasks are the recipe's ``split_tasks`` for ``--seed``; the training sample is drawn from the first ``--train``
  file, which must be that split's ``demos.jsonl``);
- ``id_given_note``: the right element id among the steps whose note is right.

    PYTHONPATH=$PWD python experiments/archive/web_entity_copy.py --train sft-0/demos.jsonl --held held0.jsonl \\
        --out /tmp/p-words --split-words --steps 770 --eval-at 400,770

Or ``--model DIR --steps 0`` to measure a saved policy. One JSON line per evaluation on stdout.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from vcoder.browse.actions import ActionParseError, element_comment, parse_action


def load_rows(paths):
    rows = []
    for path in paths:
        rows += [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    return [(r["messages"][:-1], r["messages"][-1]["content"]) for r in rows]


def load_rows_with_values(path, values):
    """Rows of ``path`` as ``(messages, completion, the task's instantiation values)``."""
    rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    return [(r["messages"][:-1], r["messages"][-1]["content"], values[r["task_id"]]) for r in rows]


def task_values(config_path: str, seed: int) -> dict[int, list[str]]:
    """task id -> the string values its intent was instantiated with (training and held-out tasks of the split)."""
    import yaml

    from vcoder.pipelines.web_agent.config import WebAgentConfig
    from vcoder.pipelines.web_agent.split import split_tasks

    with open(config_path, encoding="utf-8") as f:
        config = WebAgentConfig.from_dict({**yaml.safe_load(f), "seed": seed})
    train, held = split_tasks(config)
    values = lambda t: [str(v) for v in t.instantiation_dict.values() if len(str(v)) >= 3]  # noqa: E731
    return {t.task_id: values(t) for t in train + held}


def names_entity(messages, completion) -> bool:
    """The note names a word of the task with its case, not the task's first word (a verb: "Star the project")."""
    note, intent = element_comment(completion), messages[-1]["content"].split("\n", 1)[0].removeprefix("Task: ")
    return bool(note) and note in intent and not intent.startswith(note)


def evaluate(policy, samples) -> dict[str, float | int]:
    hits = {"step": [], "note": [], "entity": [], "id_given_note": []}
    for messages, target, values in samples:
        out = policy.generate(messages).strip()
        want, want_note = parse_action(target), element_comment(target)
        try:
            got = parse_action(out)
        except ActionParseError:
            got = None
        hits["step"].append(got == want)
        if want_note is None:
            continue
        note_ok = element_comment(out) == want_note
        hits["note"].append(note_ok)
        if any(v.lower() in want_note.lower() for v in values):
            hits["entity"].append(note_ok)
        if note_ok:
            hits["id_given_note"].append(got is not None and got.element == want.element)
    out = {k: round(sum(v) / len(v), 3) if v else None for k, v in hits.items()}
    out.update({f"n_{k}": len(v) for k, v in hits.items()})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", nargs="+", required=True, help="demonstration rows to train on (jsonl)")
    ap.add_argument("--held", required=True, help="the held-out tasks' demonstration rows (jsonl; never trained on)")
    ap.add_argument("--model", default=None, help="a saved policy to start from (else a new tiny LM in --out)")
    ap.add_argument("--out", default=None)
    ap.add_argument("--size", default="tiny")
    ap.add_argument("--arch", default="qwen2_5", help="qwen3: the folder loads with the trained pre-tokenizer")
    ap.add_argument("--split-words", action="store_true", help="the tokenizer's merges stay inside words")
    ap.add_argument(
        "--oversample-entity",
        type=int,
        default=1,
        help="repeat the training rows whose note names a word of the task (case kept, not its first word) so often",
    )
    ap.add_argument("--steps", type=int, default=770)
    ap.add_argument("--eval-at", default="", help="comma-separated update steps to evaluate at (and the last)")
    ap.add_argument("--lr", type=float, default=4e-3)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--max-prompt-tokens", type=int, default=768)
    ap.add_argument("--train-eval", type=int, default=110, help="training steps evaluated (a seeded sample)")
    ap.add_argument("--seed", type=int, default=0, help="the curriculum seed of the split (and of the pilot)")
    ap.add_argument("--config", default="configs/curriculum/web_agent_tiny_cpu.yaml")
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()

    import torch

    from vcoder.models.loading import save_policy
    from vcoder.pipelines.web_agent.config import WebAgentConfig
    from vcoder.pipelines.web_agent.lm import LocalPolicy, _batch
    from vcoder.pipelines.web_agent.run import load_policy

    torch.set_num_threads(a.threads)
    train = load_rows(a.train)
    train += [row for row in train if names_entity(*row)] * (a.oversample_entity - 1)
    values = task_values(a.config, a.seed)
    first, held = load_rows_with_values(a.train[0], values), load_rows_with_values(a.held, values)
    path = a.model
    if path is None:
        from vcoder.models.tiny_lm import build_tiny_lm

        corpus = [m["content"] for messages, c in train for m in messages] + [c for _, c in train]
        build_tiny_lm(
            a.out,
            arch=a.arch,
            size=a.size,
            corpus=corpus * 2,
            seed=a.seed,
            split_digits=True,
            split_words=a.split_words,
        )
        path = a.out
    config = WebAgentConfig(model_name_or_path=path, system_prompt=False, max_prompt_tokens=a.max_prompt_tokens)
    model, tok = load_policy(path, config)
    policy = LocalPolicy(model, tok, max_new_tokens=64, max_prompt_tokens=a.max_prompt_tokens, system=False)
    train_sample = random.Random(a.seed).sample(first, min(a.train_eval, len(first)))
    lengths = [len(_batch(tok, [s[:2]], a.max_prompt_tokens, False, "cpu")[0][0]) for s in held]
    head = {
        "model": path,
        "size": a.size,
        "split_words": a.split_words,
        "train_rows": len(train),
        "held_rows": len(held),
    }
    head |= {"parameters": sum(p.numel() for p in model.parameters()), "held_tokens_mean": sum(lengths) / len(lengths)}
    print(json.dumps(head), flush=True)

    checkpoints = sorted({int(x) for x in a.eval_at.split(",") if x} | {a.steps})
    rng = random.Random(a.seed)
    torch.manual_seed(a.seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.0)
    order, losses, t0 = [], [], time.time()
    for step in range(1, a.steps + 1):
        if len(order) < a.batch_size:
            more = list(range(len(train)))
            rng.shuffle(more)
            order += more
        chosen, order = order[: a.batch_size], order[a.batch_size :]
        model.train()
        ids, labels, mask = _batch(tok, [train[i] for i in chosen], a.max_prompt_tokens, False, model.device)
        loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(float(loss.detach()))
        if step not in checkpoints:
            continue
        model.eval()
        t1 = time.time()
        row = {"step": step, "epochs": round(step * a.batch_size / len(train), 2), "train_wall_s": round(t1 - t0)}
        row["loss_last20"] = round(sum(losses[-20:]) / len(losses[-20:]), 4)
        row["train"] = evaluate(policy, train_sample)
        row["held"] = evaluate(policy, held)
        row["eval_wall_s"] = round(time.time() - t1)
        t0 += time.time() - t1  # train_wall_s counts training only
        print(json.dumps(row), flush=True)
    if a.steps == 0:
        print(json.dumps({"step": 0, "train": evaluate(policy, train_sample), "held": evaluate(policy, held)}))
    elif a.out:
        save_policy(model, tok, a.out)


if __name__ == "__main__":
    main()
