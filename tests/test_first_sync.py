"""A process answers only from a complete index: a question that arrives during the first sync is told why it waits,
then answered in its thread, and /readyz is ready only when the index served is the newest one committed."""

import subprocess

from sqlalchemy import select

from bench.corpus import write_docs
from bot.database import open_database
from bot.logs.models import questions
from tests.conftest import base, bot_environment, get
from tests.fakes.git_http import GitHttpServer
from tests.fakes.slack import BOT_USER


def fresh_env(fake_slack, db_url, docs) -> dict:
    """The bot's environment with nothing synced yet: its first scheduled sync starts at once."""
    return bot_environment(fake_slack, db_url, docs)


def served(docs, tmp_path) -> GitHttpServer:
    """The docs folder as a repository on a git server over HTTP, as a team's docs repository is."""
    for args in (["init", "--quiet", "--initial-branch=main"], ["add", "-A"], ["commit", "--quiet", "-m", "docs"]):
        subprocess.run(["git", "-c", "user.name=Docs", "-c", "user.email=docs@example.com", *args], cwd=docs, check=True)
    subprocess.run(["git", "clone", "--quiet", "--bare", str(docs), str(tmp_path / "git" / "docs.git")], check=True)
    return GitHttpServer(tmp_path / "git")


def test_a_mention_during_the_first_sync_is_told_to_wait_then_answered_in_its_thread(
    fake_slack, db_url, docs, start_bot, tmp_path
):
    write_docs(docs / "bulk", n_docs=400, sections=5, words=100)  # a first sync of a few hundred pages
    repo = served(docs, tmp_path)
    repo.hold()  # the first sync waits on the docs repository until the question has been told to wait
    env = fresh_env(fake_slack, db_url, docs) | {
        "DOCS_GIT_URL": repo.url("docs.git"),
        "DOCS_GIT_CHECKOUT": str(tmp_path / "checkout"),
    }
    try:
        bot = start_bot(env)
        fake_slack.wait_for(repo.waiting.is_set, timeout=60)
        status, body = get(base(bot) + "/readyz")
        assert status == 503 and "the first sync has not finished" in body
        msg = fake_slack.user_says("C_GENERAL", f"<@{BOT_USER}> How much is express delivery?")
        assert fake_slack.deliver(bot.url, fake_slack.events_for(msg)[0]) == 200
        [told] = fake_slack.wait_for(lambda: fake_slack.replies("C_GENERAL", msg["ts"]), timeout=60)
        assert told["text"].startswith("I'm reading the docs for the first time")
        repo.release()
        replies = fake_slack.wait_for(
            lambda: (r := fake_slack.replies("C_GENERAL", msg["ts"])) and len(r) >= 2 and r, timeout=120
        )
    finally:
        repo.close()
    assert "$12" in replies[1]["text"] and len(replies) == 2
    with open_database(db_url).connect() as conn:
        logged = conn.execute(select(questions.c.status).where(questions.c.thread_ts == msg["ts"])).scalars().all()
    assert logged == ["answered"], "one answer, and no gap logged for the wait"


def test_readyz_is_ready_only_once_the_synced_index_is_served(fake_slack, db_url, docs, start_bot):
    bot = start_bot(fresh_env(fake_slack, db_url, docs))
    _status, body = fake_slack.wait_for(lambda: (r := get(base(bot) + "/readyz"))[0] == 200 and r, timeout=120)
    assert body.startswith("ready")
    msg = fake_slack.user_says("C_GENERAL", f"<@{BOT_USER}> How long do I have to return my earbuds?")
    fake_slack.deliver(bot.url, fake_slack.events_for(msg)[0])
    [answer] = fake_slack.wait_for(lambda: fake_slack.replies("C_GENERAL", msg["ts"]))
    assert "30 days" in answer["text"], "ready means the synced index answers, not the empty one loaded before it"


def test_a_ready_process_says_how_far_the_re_ranking_vectors_are(db_url, docs):
    import threading

    from bot.health import Health
    from bot.runtime import Runtime
    from bot.settings import load_settings
    from kb.encode import encode_missing

    runtime = Runtime(load_settings(database_url=db_url, docs_dir=docs))
    runtime.sync(encode=False)
    runtime.searcher.refresh()  # as serve does at start
    health = Health(runtime, threading.Event())
    assert health.not_ready() == [] and health.detail() == "; re-ranking vectors 0 of 92 passages (filling in)"
    encode_missing(runtime.engine, runtime.encoder)
    runtime.searcher.index.encoded.load_new(runtime.engine)
    assert health.detail() == ""


def test_readyz_waits_for_a_newer_committed_index_to_be_served(db_url, docs):
    import threading

    from bot.health import Health
    from bot.runtime import Runtime
    from bot.settings import load_settings

    runtime = Runtime(load_settings(database_url=db_url, docs_dir=docs, search_mode="bm25"))
    runtime.sync()
    health = Health(runtime, threading.Event())
    assert health.not_ready() == ["loading index version 1"], "not loaded yet: touching it starts the load"
    runtime.searcher.wait_for_rebuild()
    runtime.searcher.refresh()
    assert health.not_ready() == []
    (docs / "help" / "gift-cards.md").write_text("# Gift cards\n\nGift cards never expire.\n")
    Runtime(load_settings(database_url=db_url, docs_dir=docs, search_mode="bm25")).sync()  # another process syncs
    assert health.not_ready() == ["loading index version 2 (serving 1)"]
    runtime.searcher.refresh()
    assert health.not_ready() == []


def test_a_first_sync_that_fails_is_tried_again_within_seconds_not_an_interval_later(fake_slack, db_url, docs, start_bot):
    """Nothing committed yet means nothing to answer from: the bot tries again soon (SYNC_INTERVAL_MINUTES is 30)."""
    later = docs.parent / "docs-not-there-yet"
    bot = start_bot(fresh_env(fake_slack, db_url, later))
    fake_slack.wait_for(lambda: "the sync is tried again in" in bot.log(), timeout=60)
    assert get(base(bot) + "/readyz")[0] == 503
    docs.rename(later)  # the folder appears, as a docs checkout that could not be fetched at start later is
    _status, body = fake_slack.wait_for(lambda: (r := get(base(bot) + "/readyz"))[0] == 200 and r, timeout=60)
    assert body.startswith("ready")
