"""Bad input never stops a sync: each bad file is skipped or repaired, with its reason."""

import os

import pytest
from sqlalchemy import select

from kb.models import documents
from kb.scan import DocsFolderMissing
from kb.sync import sync


def problems_by_path(report):
    return {p.path: (p.action, p.reason) for p in report.problems}


def indexed_paths(engine):
    with engine.connect() as conn:
        return set(conn.execute(select(documents.c.path)).scalars())


def test_binary_file_is_skipped(engine, docs):
    (docs / "help" / "logo.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    report = sync(engine, docs)
    assert problems_by_path(report)["help/logo.md"] == ("skipped", "binary file (contains NUL bytes)")
    assert "help/logo.md" not in indexed_paths(engine)
    assert "help/warranty.md" in indexed_paths(engine)


def test_undecodable_bytes_are_replaced_and_reported(engine, docs):
    (docs / "help" / "latin1.md").write_bytes("# Café\n\nPrix: 10 € ou caf\xe9.\n".encode()[:-8] + b"caf\xe9.\n")
    report = sync(engine, docs)
    action, reason = problems_by_path(report)["help/latin1.md"]
    assert action == "repaired" and "not UTF-8" in reason
    assert "help/latin1.md" in indexed_paths(engine)


def test_empty_file_is_skipped(engine, docs):
    (docs / "help" / "empty.md").write_text("  \n\n")
    report = sync(engine, docs)
    assert problems_by_path(report)["help/empty.md"] == ("skipped", "empty file")


def test_file_over_the_size_cap_is_skipped(engine, docs):
    (docs / "help" / "huge.md").write_text("# Huge\n\n" + "x " * 5000)
    report = sync(engine, docs, max_file_bytes=4096)
    action, reason = problems_by_path(report)["help/huge.md"]
    assert action == "skipped" and "cap" in reason


def test_symlink_leaving_the_docs_folder_is_skipped(engine, docs, tmp_path):
    secret = tmp_path / "secret.md"
    secret.write_text("# Secret\n\nthe root password is hunter2\n")
    os.symlink(secret, docs / "help" / "escape.md")
    report = sync(engine, docs)
    assert problems_by_path(report)["help/escape.md"] == ("skipped", "symlink leads outside the docs folder")
    assert "help/escape.md" not in indexed_paths(engine)


def test_hidden_folders_and_files_are_skipped(engine, docs):
    (docs / ".git").mkdir()
    (docs / ".git" / "notes.md").write_text("# Internal\n\ntext\n")
    (docs / "help" / ".draft.md").write_text("# Draft\n\ntext\n")
    report = sync(engine, docs)
    assert problems_by_path(report)[".git/"] == ("skipped", "hidden folder")
    assert problems_by_path(report)["help/.draft.md"] == ("skipped", "hidden file")
    assert not any(p.startswith(".git") or ".draft" in p for p in indexed_paths(engine))


def test_unsupported_file_types_are_reported(engine, docs):
    (docs / "help" / "diagram.png").write_bytes(b"\x89PNG")
    report = sync(engine, docs)
    assert problems_by_path(report)["help/diagram.png"] == ("skipped", "unsupported file type '.png'")


def test_missing_docs_folder_is_a_clear_error_naming_the_path(engine, tmp_path):
    with pytest.raises(DocsFolderMissing, match=str(tmp_path / "nowhere")):
        sync(engine, tmp_path / "nowhere")


def test_a_doc_that_breaks_keeps_its_last_good_version(engine, docs):
    sync(engine, docs)
    (docs / "help" / "warranty.md").write_bytes(b"\x00\x01binary now")
    report = sync(engine, docs)
    assert problems_by_path(report)["help/warranty.md"] == ("kept previous version", "the last good version is still served")
    assert "help/warranty.md" in indexed_paths(engine)
    assert report.changed == [] and report.removed == []


def test_a_page_that_grows_over_the_size_cap_keeps_its_last_good_version(engine, docs):
    sync(engine, docs, max_file_bytes=4096)
    (docs / "help" / "warranty.md").write_text("# Warranty\n\n" + "x " * 5000)
    report = sync(engine, docs, max_file_bytes=4096)
    assert problems_by_path(report)["help/warranty.md"] == ("kept previous version", "the last good version is still served")
    assert "help/warranty.md" in indexed_paths(engine) and report.removed == []


def test_a_yaml_alias_bomb_in_front_matter_is_refused_and_the_page_indexed(engine, docs):
    bomb = "\n".join(
        ["a: &a [x, x, x, x, x, x, x, x, x]"]
        + [f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]" for p, c in zip("abcdefgh", "bcdefghi")]
        + ["title: *i"]
    )
    (docs / "help" / "bomb.md").write_text(f"---\n{bomb}\n---\n# Laughs\n\nA page with a hostile header.\n")
    report = sync(engine, docs)
    action, reason = problems_by_path(report)["help/bomb.md"]
    assert action == "repaired" and "aliases" in reason
    assert "help/bomb.md" in indexed_paths(engine)


def test_files_that_cannot_be_read_are_skipped_one_by_one(engine, docs):
    os.mkfifo(docs / "help" / "pipe.md")
    os.symlink(docs / "help" / "loop-b.md", docs / "help" / "loop-a.md")
    os.symlink(docs / "help" / "loop-a.md", docs / "help" / "loop-b.md")
    with open(os.path.join(os.fsencode(docs / "help"), b"caf\xe9.md"), "w") as f:
        f.write("# Cafe\n\nA name that is not UTF-8.\n")
    (docs / "help" / "odd.html").write_text("<![a")
    report = sync(engine, docs)
    problems = problems_by_path(report)
    assert problems["help/pipe.md"] == ("skipped", "not a regular file")
    assert problems["help/loop-a.md"] == ("skipped", "symlink loop")
    assert problems["help/caf\\xe9.md"] == ("skipped", "file name is not valid UTF-8")
    assert problems["help/odd.html"][0] == "skipped"
    assert "help/warranty.md" in indexed_paths(engine), "the rest of the folder is indexed"


def test_a_broken_question_file_is_one_line_for_the_user(tmp_path, db_url):
    from tests.conftest import run_cli

    broken = tmp_path / "questions.yaml"
    broken.write_text("- question: [unclosed\n")
    result = run_cli("eval", str(broken), "--db", db_url)
    assert result.returncode == 1
    assert result.stderr.startswith("Error: ") and "is not valid YAML" in result.stderr and "Traceback" not in result.stderr


def test_a_database_from_a_newer_schema_is_one_line_naming_the_fix(db_url):
    from sqlalchemy import text

    from bot.database import open_database
    from tests.conftest import run_cli

    with open_database(db_url).begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '0999'"))
    result = run_cli("search", "warranty", "--db", db_url)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "schema revision 0999" in result.stderr and "supportbot db upgrade" in result.stderr


def test_a_resync_lists_only_new_problems_and_counts_the_known_ones(docs, db_url):
    from tests.conftest import run_cli

    (docs / "help" / "diagram.png").write_bytes(b"\x89PNG")
    (docs / "help" / "manual.pdf").write_bytes(b"%PDF")
    (docs / "help" / "broken.md").write_bytes(b"# Broken\x00\n")  # found when read, not by the folder scan
    first = run_cli("sync", "--docs", str(docs), "--db", db_url)
    assert "help/diagram.png: unsupported file type '.png'" in first.stdout and "help/manual.pdf" in first.stdout
    (docs / "help" / "logo.gif").write_bytes(b"GIF8")
    second = run_cli("sync", "--docs", str(docs), "--db", db_url)
    assert "help/logo.gif: unsupported file type '.gif'" in second.stdout
    assert "diagram.png" not in second.stdout and "manual.pdf" not in second.stdout and "broken.md" not in second.stdout
    assert "known problem(s), the same as at the last sync" in second.stdout


def test_a_problem_whose_reason_changed_is_new_again(docs, engine, tmp_path):
    link = docs / "help" / "moved.md"
    link.symlink_to(docs / "help" / "gone.md")  # broken
    sync(engine, docs)
    link.unlink()
    (tmp_path / "outside.md").write_text("# Outside\n\nNot ours.\n")
    link.symlink_to(tmp_path / "outside.md")
    report = sync(engine, docs)
    assert [p.key for p in report.new_problems if p.path == "help/moved.md"] == [
        ("help/moved.md", "skipped", "symlink leads outside the docs folder")
    ]
