"""'Add to the eval set' from the review page: one writer at a time across threads and processes, the file replaced
whole, comments kept, JSON kept JSON, and a clear refusal for a file it can't extend."""

import json
import subprocess
import sys
import threading

import pytest
import yaml

from bot.review.eval_file import EvalFileError, append_case
from tests.conftest import REPO

HAND_WRITTEN = (
    "# our hand-written cases: keep this comment\n- question: How long is the warranty?\n  sources: [help/warranty.md]\n"
)


def case(n: int) -> dict:
    return {"question": f"question number {n}?", "sources": [f"help/page-{n}.md"]}


def test_simultaneous_adds_from_threads_and_processes_all_land_and_keep_the_hand_written_case(tmp_path):
    path = tmp_path / "eval.yaml"
    path.write_text(HAND_WRITTEN)
    script = "import sys; from pathlib import Path; from bot.review.eval_file import append_case; " + (
        "append_case(Path(sys.argv[1]), {'question': f'process {sys.argv[2]}?', 'sources': ['help/x.md']})"
    )
    processes = [subprocess.Popen([sys.executable, "-c", script, str(path), str(n)], cwd=REPO) for n in range(3)]
    start = threading.Barrier(10)

    def add(n):
        start.wait()
        append_case(path, case(n))

    threads = [threading.Thread(target=add, args=(n,)) for n in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert all(p.wait(60) == 0 for p in processes)
    cases = yaml.safe_load(path.read_text())
    assert cases[0] == {"question": "How long is the warranty?", "sources": ["help/warranty.md"]}
    assert {c["question"] for c in cases[1:]} == {f"question number {n}?" for n in range(10)} | {
        f"process {n}?" for n in range(3)
    }
    assert path.read_text().startswith("# our hand-written cases: keep this comment\n")


def test_a_json_eval_set_stays_json(tmp_path):
    path = tmp_path / "eval.json"
    path.write_text(json.dumps([case(1)]))
    assert append_case(path, case(2)) and not append_case(path, case(2))
    assert json.loads(path.read_text()) == [case(1), case(2)]


@pytest.mark.parametrize("content", ["question: not a list\n", "- just a string\n", "[1, 2\n"])
def test_a_file_it_cannot_extend_is_refused_with_a_message_and_left_as_it_was(tmp_path, content):
    path = tmp_path / "eval.yaml"
    path.write_text(content)
    with pytest.raises(EvalFileError, match="nothing was added"):
        append_case(path, case(1))
    assert path.read_text() == content


def test_a_flow_style_list_is_written_again_whole(tmp_path):
    path = tmp_path / "eval.yaml"
    path.write_text('[{"question": "a?", "sources": [x.md]}]\n')
    assert append_case(path, case(1))
    assert yaml.safe_load(path.read_text()) == [{"question": "a?", "sources": ["x.md"]}, case(1)]
