"""Seeded synthetic corpora with Zipf-like word frequencies, for benches and large-folder tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np

SYLLABLES = ["ka", "lo", "mi", "ner", "tu", "sa", "ve", "ri", "do", "pan", "quo", "zel", "bri", "ost", "fy", "gar"]


def vocabulary(size: int, seed: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    words = set()
    while len(words) < size:
        n = int(rng.integers(2, 5))
        words.add("".join(SYLLABLES[i] for i in rng.integers(0, len(SYLLABLES), n)) + str(int(rng.integers(0, 10))))
    return np.array(sorted(words))


class ZipfWords:
    """Draws words so that the r-th most common has probability ~ 1/r (as natural text does)."""

    def __init__(self, vocab_size: int = 50_000, seed: int = 7) -> None:
        self.words = vocabulary(vocab_size, seed)
        ranks = np.arange(1, vocab_size + 1)
        p = 1.0 / ranks**1.05
        self.p = p / p.sum()
        self.rng = np.random.default_rng(seed + 1)

    def draw(self, n: int) -> list[str]:
        return list(self.words[self.rng.choice(len(self.words), size=n, p=self.p)])

    def text(self, n: int) -> str:
        return " ".join(self.draw(n))

    def batch(self, n_texts: int, words_each: int) -> list[str]:
        flat = self.words[self.rng.choice(len(self.words), size=n_texts * words_each, p=self.p)]
        return [" ".join(flat[i * words_each : (i + 1) * words_each]) for i in range(n_texts)]


def bench_database(url: str | None, folder: Path) -> str:
    """The database a bench writes to: a temporary SQLite file, or the given one emptied first."""
    if not url:
        return f"sqlite:///{folder}/bench.db"
    if url.startswith("postgresql"):
        from sqlalchemy import text

        from kb.database import create_db_engine

        engine = create_db_engine(url)
        with engine.begin() as conn:
            conn.execute(text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
        engine.dispose()
    return url


def write_docs(folder: Path, n_docs: int, sections: int = 5, words: int = 100, seed: int = 7, collections: int = 4) -> None:
    """n_docs Markdown pages of `sections` "##" sections of `words` words, spread over collections."""
    gen = ZipfWords(seed=seed)
    texts = gen.batch(n_docs * sections, words)
    for d in range(n_docs):
        sub = folder / f"c{d % collections}"
        sub.mkdir(parents=True, exist_ok=True)
        body = [f"# Page {d}\n"]
        for s in range(sections):
            body.append(f"## Section {s}\n\n{texts[d * sections + s]}\n")
        (sub / f"page-{d:06d}.md").write_text("\n".join(body))
