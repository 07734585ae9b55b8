"""Docs straight from git: each sync brings a shallow checkout to the branch's head and records the commit;
a fetch that fails leaves the last checkout and index serving, and says why."""

import shutil
import subprocess

import pytest
from sqlalchemy import select

from bot.runtime import Runtime
from bot.settings import load_settings
from kb.git_source import DocsFetchFailed, redact
from kb.models import sync_runs
from kb.scan import DocsRootOutside


def git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def origin(tmp_path):
    """A bare repository (file://) and a working clone to push docs from."""
    bare, work = tmp_path / "docs.git", tmp_path / "work"
    git("init", "--quiet", "--bare", "--initial-branch=main", str(bare), cwd=tmp_path)
    git("init", "--quiet", "--initial-branch=main", str(work), cwd=tmp_path)
    for k, v in {"user.email": "docs@example.com", "user.name": "Docs"}.items():
        git("config", k, v, cwd=work)
    git("remote", "add", "origin", bare.as_uri(), cwd=work)
    return bare, work


def publish(work, path, text, message="docs", amend=False):
    (work / path).parent.mkdir(parents=True, exist_ok=True)
    (work / path).write_text(text)
    git("add", "-A", cwd=work)
    git("commit", "--quiet", "-m", message, *(["--amend"] if amend else []), cwd=work)
    git("push", "--quiet", "--force", "origin", "main", cwd=work)
    return git("rev-parse", "HEAD", cwd=work)


def runtime(db_url, tmp_path, bare, **more) -> Runtime:
    return Runtime(
        load_settings(
            database_url=db_url,
            docs_git_url=bare.as_uri(),
            docs_git_checkout=tmp_path / "checkout",
            search_mode="bm25",
            **more,
        )
    )


def top_path(rt, query):
    return rt.searcher.search(query, k=1)[0].path


def test_the_first_sync_clones_the_branch_and_records_its_commit(db_url, tmp_path, origin):
    bare, work = origin
    commit = publish(work, "help/gift-cards.md", "# Gift cards\n\nGift cards never expire.\n")
    rt = runtime(db_url, tmp_path, bare)
    report = rt.sync()
    assert report.added == ["help/gift-cards.md"] and report.source_commit == commit
    assert top_path(rt, "do gift cards expire") == "help/gift-cards.md"
    with rt.engine.connect() as conn:
        assert conn.execute(select(sync_runs.c.source_commit)).scalar() == commit


def test_a_force_push_is_followed(db_url, tmp_path, origin):
    bare, work = origin
    publish(work, "help/gift-cards.md", "# Gift cards\n\nGift cards never expire.\n")
    rt = runtime(db_url, tmp_path, bare)
    rt.sync()
    rewritten = publish(work, "help/gift-cards.md", "# Gift cards\n\nGift cards expire after two years.\n", amend=True)
    report = rt.sync()
    assert report.changed == ["help/gift-cards.md"] and report.source_commit == rewritten
    rt.searcher.refresh()
    assert "two years" in " ".join(line.text for line in rt.searcher.search("do gift cards expire", k=1)[0].lines)


def test_a_subfolder_of_the_repository_can_be_the_docs(db_url, tmp_path, origin):
    bare, work = origin
    publish(work, "README.md", "# The repo\n\nNot docs.\n")
    publish(work, "docs/help/gift-cards.md", "# Gift cards\n\nGift cards never expire.\n")
    report = runtime(db_url, tmp_path, bare, docs_git_subdir="docs").sync()
    assert report.added == ["help/gift-cards.md"]


def test_a_deleted_branch_fails_the_fetch_and_the_last_index_keeps_serving(db_url, tmp_path, origin):
    bare, work = origin
    publish(work, "help/gift-cards.md", "# Gift cards\n\nGift cards never expire.\n")
    rt = runtime(db_url, tmp_path, bare)
    rt.sync()
    git("update-ref", "-d", "refs/heads/main", cwd=bare)  # the branch is gone from the origin
    with pytest.raises(DocsFetchFailed, match="the last index keeps serving"):
        rt.sync()
    assert (tmp_path / "checkout" / "help" / "gift-cards.md").exists(), "the last checkout is untouched"
    assert top_path(rt, "do gift cards expire") == "help/gift-cards.md"
    with rt.engine.connect() as conn:
        last = conn.execute(select(sync_runs.c.status, sync_runs.c.error).order_by(sync_runs.c.id.desc())).first()
    assert last.status == "failed" and "fetching the docs failed" in last.error


def test_a_failed_fetch_from_the_command_line_is_one_line(db_url, tmp_path):
    from tests.conftest import run_cli

    env = {"DOCS_GIT_URL": (tmp_path / "nowhere.git").as_uri(), "DOCS_GIT_CHECKOUT": str(tmp_path / "checkout")}
    result = run_cli("sync", "--db", db_url, env=env)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("Error: fetching the docs from file://") and "the last index keeps serving" in line


def test_a_token_in_the_url_is_never_shown():
    assert (
        redact("https://x-access-token:ghp_secret@github.com/acme/docs.git")
        == "https://x-access-token:***@github.com/acme/docs.git"
    )
    assert redact("https://ghp_secret@github.com/acme/docs.git") == "https://***@github.com/acme/docs.git"
    assert redact("file:///srv/docs.git") == "file:///srv/docs.git"


def test_a_docs_folder_the_repository_made_a_symlink_to_a_host_folder_is_refused_and_the_last_index_serves(
    db_url, tmp_path, origin
):
    bare, work = origin
    publish(work, "docs/help/gift-cards.md", "# Gift cards\n\nGift cards never expire.\n")
    rt = runtime(db_url, tmp_path, bare, docs_git_subdir="docs")
    rt.sync()
    host = tmp_path / "host"
    host.mkdir()
    (host / "notes.md").write_text("# Notes\n\nThe staging database password is hunter2.\n")
    shutil.rmtree(work / "docs")
    (work / "docs").symlink_to(host)  # a push that turns the docs folder into a link to the bot's host
    git("add", "-A", cwd=work)
    git("commit", "--quiet", "-m", "docs is a link now", cwd=work)
    git("push", "--quiet", "origin", "main", cwd=work)
    with pytest.raises(DocsRootOutside, match="leads outside"):
        rt.sync()
    rt.searcher.refresh()
    assert {h.path for h in rt.searcher.search("staging database password", k=5)} <= {"help/gift-cards.md"}
    assert top_path(rt, "do gift cards expire") == "help/gift-cards.md"
    with rt.engine.connect() as conn:
        last = conn.execute(select(sync_runs.c.status, sync_runs.c.error).order_by(sync_runs.c.id.desc())).first()
    assert last.status == "failed" and "the last index keeps serving" in last.error


@pytest.mark.parametrize("subdir", ["../..", "../../host", "/etc", "docs/../../host"])
def test_a_docs_subfolder_outside_the_repository_is_refused_in_one_line(db_url, tmp_path, subdir):
    from tests.conftest import run_cli

    env = {"DOCS_GIT_URL": "file:///srv/docs.git", "DOCS_GIT_CHECKOUT": str(tmp_path / "checkout"), "DOCS_GIT_SUBDIR": subdir}
    result = run_cli("sync", "--db", db_url, env=env)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert "DOCS_GIT_SUBDIR" in line and "inside the docs repository" in line
    assert not (tmp_path / "checkout").exists(), "refused before anything was fetched"


def test_a_token_in_the_url_reaches_the_server_as_a_header_and_never_gits_argv(tmp_path):
    import os
    import socket
    import threading

    from kb.git_source import fetch_docs

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    seen: dict = {}

    def answer_once():
        conn, _ = server.accept()
        seen["request"] = conn.recv(65536).decode(errors="replace")
        seen["argv"] = []
        for pid in filter(str.isdigit, os.listdir("/proc")):  # git is waiting for this reply: read its command line
            try:
                cmd = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if f"127.0.0.1:{port}" in cmd:
                seen["argv"].append(cmd)
        conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        conn.close()

    threading.Thread(target=answer_once, daemon=True).start()
    with pytest.raises(DocsFetchFailed) as failed:
        fetch_docs(f"http://x-access-token:ghp_secret123@127.0.0.1:{port}/docs.git", "main", tmp_path / "checkout", 2**20)
    server.close()
    assert seen["argv"] and all("ghp_secret123" not in cmd for cmd in seen["argv"]), "not in git's argv"
    assert "Authorization: Basic eC1hY2Nlc3MtdG9rZW46Z2hwX3NlY3JldDEyMw==" in seen["request"], "but sent as a header"
    assert "ghp_secret123" not in str(failed.value)


def test_a_file_over_the_size_cap_is_never_downloaded_nor_written_to_disk(db_url, tmp_path, origin):
    bare, work = origin
    git("config", "uploadpack.allowFilter", "true", cwd=bare)  # as GitHub and GitLab allow partial clones
    (work / "help").mkdir()
    (work / "help" / "huge.md").write_text("# Huge\n\n" + "word " * 100_000)  # 500 KB, over the 100 KB cap below
    publish(work, "help/gift-cards.md", "# Gift cards\n\nGift cards never expire.\n")
    rt = runtime(db_url, tmp_path, bare, max_file_bytes=100_000)
    report = rt.sync()
    assert report.added == ["help/gift-cards.md"]
    assert [(p.path, p.action) for p in report.problems if "left out of the git checkout" in p.reason] == [
        ("help/huge.md", "skipped")
    ]
    checkout = tmp_path / "checkout"
    assert not (checkout / "help" / "huge.md").exists(), "never written to the checkout"
    missing = git("rev-list", "--objects", "--missing=print", "HEAD", cwd=checkout)
    assert any(line.startswith("?") for line in missing.splitlines()), "nor downloaded: its blob is not in .git"
    publish(work, "help/gift-cards.md", "# Gift cards\n\nGift cards expire after two years.\n")
    again = rt.sync()  # a fetch keeps the checkout bounded too
    assert again.changed == ["help/gift-cards.md"] and not (checkout / "help" / "huge.md").exists()


def test_a_source_links_to_the_cited_lines_at_the_synced_commit(db_url, tmp_path, origin):
    bare, work = origin
    publish(work, "help/gift-cards.md", "# Gift cards\n\nBuy them online.\n\n## Expiry\n\nGift cards never expire.\n")
    template = "https://git.example.com/acme/handbook/blob/{commit}/{path}#L{start}-L{end}"
    rt = runtime(db_url, tmp_path, bare, docs_source_url=template)
    rt.sync()
    rewritten = publish(
        work, "help/gift-cards.md", "# Gift cards\n\nBuy them online.\n\n## Expiry\n\nThey expire after two years.\n"
    )
    rt.sync()
    rt.searcher.refresh()
    hit = rt.searcher.search("do gift cards expire", k=1)[0]
    first, last = hit.lines[0].number, hit.lines[-1].number
    assert hit.url == f"https://git.example.com/acme/handbook/blob/{rewritten}/help/gift-cards.md#L{first}-L{last}"
    [page] = rt.searcher.pages(["help/gift-cards.md"])
    assert page.url == f"https://git.example.com/acme/handbook/blob/{rewritten}/help/gift-cards.md", "a page: no lines"


def test_a_published_site_wins_over_the_repository(db_url, tmp_path, origin):
    bare, work = origin
    publish(work, "help/gift-cards.md", "# Gift cards\n\nGift cards never expire.\n")
    rt = runtime(db_url, tmp_path, bare, docs_base_url="https://help.example.com", docs_source_url="https://x/{path}")
    rt.sync()
    assert rt.searcher.search("do gift cards expire", k=1)[0].url.startswith("https://help.example.com/help/gift-cards")
