"""From a file's bytes to the rows sync writes: decode, parse, chunk, tokenise."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from kb.chunking import Chunk, chunk_document, index_text
from kb.documents import Document, LoadError
from kb.loaders import loader_for
from kb.scan import DocProblem, SourceFile
from kb.screening import speaks_to_assistant
from kb.tokens import Tokenizer
from kb.vocabulary import Vocabulary


@dataclass
class PreparedChunk:
    chunk: Chunk
    length: int
    terms: bytes


@dataclass
class PreparedDocument:
    source: SourceFile
    document: Document
    format: str
    chunks: list[PreparedChunk]


def decode(content: bytes) -> tuple[str, str | None]:
    """The text, and a repair note when bytes had to be replaced."""
    if b"\x00" in content[:8192]:
        raise LoadError("binary file (contains NUL bytes)")
    try:
        return content.decode("utf-8-sig"), None
    except UnicodeDecodeError as e:
        return content.decode("utf-8-sig", errors="replace"), f"bytes that are not UTF-8 replaced (first at offset {e.start})"


def prepare(
    source: SourceFile, tokenizer: Tokenizer, vocabulary: Vocabulary, anchor_style: str | None = None
) -> tuple[PreparedDocument | None, list[DocProblem]]:
    problems: list[DocProblem] = []
    suffix = PurePosixPath(source.path).suffix
    loader = loader_for(suffix)
    try:
        if loader is None:  # scan() filters these; kept for callers that build SourceFiles themselves
            raise LoadError(f"unsupported file type '{suffix}'")
        text, repair = decode(source.content)
        if repair:
            problems.append(DocProblem(source.path, repair, "repaired"))
        if not text.strip():
            raise LoadError("empty file")
        document = loader(text, source.path, anchor_style)
    except LoadError as e:
        return None, [*problems, DocProblem(source.path, str(e), "skipped")]
    except RecursionError:
        return None, [*problems, DocProblem(source.path, "document is nested too deeply to parse", "skipped")]
    except Exception as e:  # a parser's own failure on a strange file: skip the file, never abort the sync
        return None, [*problems, DocProblem(source.path, f"cannot be parsed: {type(e).__name__}: {e}"[:300], "skipped")]
    problems += [DocProblem(source.path, w, "repaired") for w in document.warnings]
    chunks = chunk_document(document)
    if not chunks:
        return None, [*problems, DocProblem(source.path, "no text to index", "skipped")]
    for section in document.sections:
        for line in section.lines:
            if speaks_to_assistant(line.text):
                quote = line.text if len(line.text) <= 80 else line.text[:77] + "..."
                problems.append(DocProblem(source.path, f"line {line.number} speaks to the assistant: {quote!r}", "flagged"))
    prepared = []
    for chunk in chunks:
        counts, length = tokenizer.counts(index_text(document.title, chunk))
        prepared.append(PreparedChunk(chunk, length, vocabulary.encode(counts)))
    return PreparedDocument(source, document, suffix.lstrip(".").lower(), prepared), problems
