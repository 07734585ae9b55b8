"""Adding a question to the eval set a team keeps by hand: one writer at a time (threads and processes), the file
replaced whole or not at all, its comments kept, JSON kept JSON, and a clear message for a file it can't extend."""

from __future__ import annotations

import fcntl
import json
from contextlib import contextmanager
from pathlib import Path

import yaml

from kb.errors import SupportbotError
from kb.files import replace_whole


class EvalFileError(SupportbotError, ValueError):
    """The eval file is there but is not a list of questions: it is left as it is."""


def append_case(path: Path, case: dict) -> bool:
    """Append {question, sources} unless the question is already there; True if it was added."""
    with _locked(path):
        text = path.read_text() if path.exists() else ""
        cases = _cases(path, text)
        if any(c.get("question") == case["question"] for c in cases):
            return False
        if path.suffix == ".json":
            new = json.dumps([*cases, case], indent=2, ensure_ascii=False) + "\n"
        else:
            new = _appended_yaml(text, cases, case)
        replace_whole(path, new)
        return True


def _cases(path: Path, text: str) -> list[dict]:
    try:
        data = json.loads(text) if path.suffix == ".json" and text.strip() else yaml.safe_load(text) if text.strip() else []
    except (json.JSONDecodeError, yaml.YAMLError) as e:
        raise EvalFileError(
            f"{path.name} is not valid {'JSON' if path.suffix == '.json' else 'YAML'}, so nothing was added: {e}"
        ) from None
    if data is None:
        return []
    if not isinstance(data, list) or not all(isinstance(c, dict) and isinstance(c.get("question"), str) for c in data):
        raise EvalFileError(f"{path.name} is not a list of questions (each with a 'question'), so nothing was added")
    return data


def _appended_yaml(text: str, cases: list[dict], case: dict) -> str:
    """The file's own text with the case appended as a list item, so its comments and layout stay; the whole list
    written again only when the text can't take an item (a flow-style list)."""
    item = yaml.safe_dump([case], sort_keys=False, allow_unicode=True)
    candidate = (text if not text or text.endswith("\n") else text + "\n") + item
    try:
        if yaml.safe_load(candidate) == [*cases, case]:
            return candidate
    except yaml.YAMLError:
        pass
    return yaml.safe_dump([*cases, case], sort_keys=False, allow_unicode=True)


@contextmanager
def _locked(path: Path):
    """An exclusive lock beside the file (flock: it holds across processes, and across threads that open it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(f".{path.name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
