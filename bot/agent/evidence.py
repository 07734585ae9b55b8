"""Every passage shown to the answerer, in the order it was shown.

A citation's search_result_index counts across all search_result blocks of the
conversation, so the ledger is one ordered list for the whole question; each
passage is sent once, with a unique source, one text block per line.
"""

from __future__ import annotations

from dataclasses import dataclass

from kb.hits import Hit


@dataclass(frozen=True)
class Passage:
    index: int  # its search_result_index
    source: str
    hit: Hit

    @property
    def blocks(self) -> list[str]:
        return [line.text for line in self.hit.lines]

    @property
    def title(self) -> str:
        """The page title with the heading path, each part once: a DocBook page's top heading is an h2 that repeats
        its title ("2.9. Transactions > 2.9. Transactions > 2.9.4. Reconciliation" is read without the second)."""
        heading = self.hit.heading if self.hit.heading.startswith(self.hit.title) else f"{self.hit.title} > {self.hit.heading}"
        parts = heading.split(" > ")
        spaced = [" ".join(part.split()) for part in parts]  # "37.17.\xa0columns" is "37.17. columns" written again
        return " > ".join(part for i, part in enumerate(parts) if i == 0 or spaced[i] != spaced[i - 1])

    def search_result_block(self) -> dict:
        return {
            "type": "search_result",
            "source": self.source,
            "title": self.title,
            "content": [{"type": "text", "text": text} for text in self.blocks],
            "citations": {"enabled": True},
        }


class Ledger:
    def __init__(self) -> None:
        self.passages: list[Passage] = []
        self._by_chunk: dict[int, Passage] = {}

    def __len__(self) -> int:
        return len(self.passages)

    def __contains__(self, chunk_id: int) -> bool:
        return chunk_id in self._by_chunk

    def add(self, hit: Hit) -> Passage:
        passage = self._by_chunk.get(hit.chunk_id)
        if passage is None:
            passage = Passage(len(self.passages), f"kb://{hit.path}#chunk-{hit.chunk_id}", hit)
            self.passages.append(passage)
            self._by_chunk[hit.chunk_id] = passage
        return passage

    def of_chunk(self, chunk_id: int) -> Passage | None:
        return self._by_chunk.get(chunk_id)

    def get(self, index: int) -> Passage | None:
        return self.passages[index] if 0 <= index < len(self.passages) else None
