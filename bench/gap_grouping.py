"""Which rule groups the same question asked in other words as one gap, and keeps different questions apart?

Positives: bench/realdocs/paraphrases.yaml (pairs asking the same thing). Negatives: every pair of questions within
each real question set (git, npm, gimp: each asks something different, in the same domain, so they share words).
For the words rule (bot.logs.gaps._similar) and for the sentence encoder's cosine at several thresholds, prints how
many positives are grouped and how many negatives are wrongly merged.

    python bench/gap_grouping.py
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import yaml

from bot.logs.gaps import _similar
from kb.encoder import MiniLMEncoder
from kb.tokens import content_words

HERE = Path(__file__).parent / "realdocs"


def main() -> None:
    positives = [tuple(p) for p in yaml.safe_load((HERE / "paraphrases.yaml").read_text())]
    sets = {name: [q["question"] for q in yaml.safe_load((HERE / f"{name}.yaml").read_text())] for name in ("git", "npm", "gimp")}
    negatives = [pair for qs in sets.values() for pair in itertools.combinations(qs, 2)]
    texts = sorted({t for pair in positives + negatives for t in pair})
    encoder = MiniLMEncoder()
    vectors = dict(zip(texts, encoder.embed(texts), strict=True))

    def cos(a: str, b: str) -> float:
        return float(np.dot(vectors[a], vectors[b]))

    def words(a: str, b: str) -> bool:
        return _similar(content_words(a), content_words(b))

    print(f"{len(positives)} paraphrase pairs, {len(negatives)} pairs of different questions")
    print(f"{'rule':24s} {'paraphrases grouped':>20s} {'different merged':>17s}")
    print(
        f"{'words (today)':24s} {sum(words(*p) for p in positives):>13d} of {len(positives):<4d} {sum(words(*p) for p in negatives):>10d} of {len(negatives)}"
    )
    for t in (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8):
        grouped = sum(cos(*p) >= t or words(*p) for p in positives)
        merged = sum(cos(*p) >= t or words(*p) for p in negatives)
        print(f"{f'words or cosine >= {t}':24s} {grouped:>13d} of {len(positives):<4d} {merged:>10d} of {len(negatives)}")
    pos = sorted(cos(*p) for p in positives)
    neg = sorted(cos(*p) for p in negatives)
    print(
        f"cosine of paraphrases: min {pos[0]:.2f} median {pos[len(pos) // 2]:.2f}; of different questions: median {neg[len(neg) // 2]:.2f}, 99th pct {neg[int(len(neg) * 0.99)]:.2f}, max {neg[-1]:.2f}"
    )
    for a, b in sorted(negatives, key=lambda p: -cos(*p))[:5]:
        print(f"  closest different: {cos(a, b):.2f}  {a!r} / {b!r}")
    for a, b in sorted(positives, key=lambda p: cos(*p))[:5]:
        print(f"  farthest paraphrase: {cos(a, b):.2f}  {a!r} / {b!r}")


if __name__ == "__main__":
    main()
