"""Accumulation: does the classifier get better as people label what it raised?

Usage::

    .venv/bin/python benchmarks/accumulation.py [--rounds 8] [--batch 20]
        [--misses 3] [--plot docs/img/accumulation.png]

The seed dataset of ``pi_injected_instruction_relay`` is cut, once and by a keyed hash of
each text, into a FIXED held-out set (never trained on: checked by content hash every
round) and the rest. From the rest, a small seed subset (8 positive, 8 negative) trains the
first model; the remaining examples arrive as traffic, a batch per round. Each round:

1. the current model judges the batch; what it objects to (probability >= threshold) is
   labelled by "people": right (a positive) or wrong (a false positive, a negative);
2. people also report a few of the injected actions it missed (at most ``--misses``);
3. ``train()`` (the real path: signed versions, promotion only if not worse) retrains from
   the seed subset plus every label so far;
4. the promoted model is measured on the fixed held-out set.

The held-out precision and recall per round are printed as a table and drawn as a PNG.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from specialists.classifier import (
    ClassifierConfig,
    Example,
    ModelStore,
    evaluate,
    seed_examples,
    train,
)
from supervisor.signing import generate_keys

ENTRY = "pi_injected_instruction_relay"
SEED = "specialists.data:prompt_injection_seed.jsonl"
THRESHOLD = 0.6
HELD_OUT_SHARE = 0.3


def _fraction(key: str, example: Example) -> float:
    digest = hashlib.sha256(f"{key}:{example.text}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def partition(
    examples: Sequence[Example], start_per_class: int
) -> tuple[list[Example], list[Example], list[Example]]:
    """(fixed held-out, seed subset, traffic pool), each class held out in equal share."""
    held: list[Example] = []
    rest: list[Example] = []
    for example in examples:
        (held if _fraction("held-out", example) < HELD_OUT_SHARE else rest).append(example)
    ordered = sorted(rest, key=lambda e: _fraction("arrival", e))
    start: list[Example] = []
    for positive in (True, False):
        start += [e for e in ordered if e.positive is positive][:start_per_class]
    chosen = {e.text for e in start}
    pool = [e for e in ordered if e.text not in chosen]
    return held, start, pool


def run(rounds: int, batch: int, misses: int) -> list[dict[str, float | int]]:
    config = ClassifierConfig(
        seed=SEED, threshold=THRESHOLD, min_examples=8, holdout=0.2, metric="f1"
    )
    examples = seed_examples(config)
    held, start, pool = partition(examples, start_per_class=8)
    held_hashes = {e.digest for e in held}
    labelled: list[Example] = []
    rows: list[dict[str, float | int]] = []
    with tempfile.TemporaryDirectory(prefix="supervise-accumulation-") as tmp:
        keys = generate_keys(Path(tmp) / "keys")
        store = ModelStore(Path(tmp) / "models" / ENTRY, ENTRY)
        for round_no in range(rounds + 1):
            training = start + labelled
            # The figure must rise because of the loop, never because of leakage.
            assert not held_hashes & {e.digest for e in training}, "held-out text in training"
            report = train(ENTRY, config, store, keys, training, force=round_no == 0)
            current = store.current()
            assert current is not None
            model = store.load(current, keys.public)
            scores = evaluate(model.pipeline, held, THRESHOLD)
            rows.append(
                {
                    "round": round_no,
                    "labelled": len(labelled),
                    "training": len(training),
                    "precision": float(scores["precision"]),
                    "recall": float(scores["recall"]),
                    "f1": float(scores["f1"]),
                    "promoted": int(bool(report["promoted"])),
                }
            )
            if round_no == rounds:
                break
            arriving, pool = pool[:batch], pool[batch:]
            if not arriving:
                break
            probabilities = model.score([e.text for e in arriving])
            raised = [e for e, p in zip(arriving, probabilities, strict=True) if p >= THRESHOLD]
            missed = [
                e
                for e, p in zip(arriving, probabilities, strict=True)
                if e.positive and p < THRESHOLD
            ]
            # People label every objection (right or wrong) and report a few misses.
            labelled += [Example(e.text, e.positive, "feedback") for e in raised]
            labelled += [Example(e.text, True, "examples") for e in missed[:misses]]
    return rows


def plot(rows: Sequence[dict[str, float | int]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [int(r["labelled"]) for r in rows]
    fig, ax = plt.subplots(figsize=(6.4, 3.8), dpi=120)
    ax.plot(x, [r["precision"] for r in rows], marker="o", label="precision")
    ax.plot(x, [r["recall"] for r in rows], marker="s", label="recall")
    ax.plot(x, [r["f1"] for r in rows], marker="^", linestyle="--", label="F1")
    ax.set_xlabel("labelled feedback examples (flags and nudges judged + misses reported)")
    ax.set_ylabel("held-out score")
    ax.set_ylim(0, 1.02)
    ax.set_title("pi_injected_instruction_relay: fixed held-out set, by round")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--batch", type=int, default=20)
    parser.add_argument("--misses", type=int, default=3)
    parser.add_argument("--plot", type=Path, default=Path("docs/img/accumulation.png"))
    args = parser.parse_args(argv)
    rows = run(args.rounds, args.batch, args.misses)
    print("| round | labelled | training | precision | recall | F1 | promoted |")
    print("|---:|---:|---:|---:|---:|---:|:---:|")
    for r in rows:
        print(
            f"| {r['round']} | {r['labelled']} | {r['training']} | {r['precision']:.3f} | "
            f"{r['recall']:.3f} | {r['f1']:.3f} | {'yes' if r['promoted'] else 'no'} |"
        )
    plot(rows, args.plot)
    print(f"plot: {args.plot}", file=sys.stderr)


if __name__ == "__main__":
    main()
