"""Shared fixtures: a fresh database (SQLite, or PostgreSQL when DATABASE_URL says so) and a docs folder.

The suite runs against whatever DATABASE_URL names: unset or SQLite, each test gets
its own SQLite file; a PostgreSQL URL gives each test a fresh schema in that database, or, for a test whose fixtures
sync the sample docs first, a schema made from the dump of one synced once per worker (SYNCED_FIRST).
Tests run in parallel (pytest-xdist, `-n auto`): each has its own database, ports and fakes, and a test marked
`stops_postgres` has the machine's PostgreSQL to itself while it stops and starts it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from bot.database import open_database
from bot.settings import SAMPLE_DOCS

REPO = Path(__file__).resolve().parent.parent
TARGET_URL = os.environ.get("DATABASE_URL", "")
ON_POSTGRES = TARGET_URL.startswith("postgresql")


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch, tmp_path):
    """No setting leaks in from the developer's shell or .env."""
    for name in list(os.environ):
        if name.startswith(("DOCS_", "SLACK_", "ANTHROPIC_", "AGENT_", "SEARCH_", "SYNC_", "INDEX_")) or name == "DATABASE_URL":
            monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # so a stray .env in the repo is not read


# A test's PostgreSQL sessions commit without waiting for the WAL's flush to disk: a crash of the server could lose
# the last commits, which no test makes (the one that stops PostgreSQL stops it cleanly), and each commit stops
# costing a disk flush. What the bot does is unchanged; how long the disk takes is not what the tests measure.
TEST_SESSION = "-csynchronous_commit=off"


@contextmanager
def postgres_in_use(alone: bool) -> Iterator[None]:
    """Shared by every test that uses the machine's PostgreSQL, in every xdist worker; `alone` waits until no other
    test uses it and keeps them out meanwhile (a test that stops the cluster)."""
    import fcntl

    with open(Path(tempfile.gettempdir()) / f"supportbot-tests-postgres-{os.getuid()}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def pytest_configure(config):
    config.addinivalue_line("markers", "stops_postgres: stops the machine's PostgreSQL, so runs with no other test using it")
    config.addinivalue_line("markers", "empty_database: its db_url has no tables yet (no database file, on SQLite)")
    config.addinivalue_line(
        "markers",
        "synced_database: its db_url starts with the sample docs synced (a command it runs with --docs finds them unchanged)",
    )
    config.addinivalue_line(
        "markers",
        "shared_serve: needs only a bot serving the sample docs: its `bot` and `fake_slack` are the worker's shared ones",
    )


# The fixtures that sync the sample docs before their test: their database starts as a copy of one synced once per
# worker, so their own sync finds every page unchanged instead of parsing and encoding it all again (about half a
# second a test). The sync, its scan and its checks still run; only the work that gives the same result is shared.
SYNCED_FIRST = {"bot_env", "runtime", "logged", "bot", "rt", "searcher", "synced"}


@pytest.fixture
def db_url(tmp_path, request) -> str:
    """A database at the newest revision, as the first command run on it leaves it: a copy of one migrated once per
    worker, or of the synced one for the fixtures that sync first and tests marked synced_database. Marked
    empty_database: nothing at all."""
    synced = not SYNCED_FIRST.isdisjoint(request.fixturenames) or request.node.get_closest_marker("synced_database") is not None
    empty = request.node.get_closest_marker("empty_database") is not None
    made_from = "_synced_template" if synced else None if empty else "_migrated_template"
    template = request.getfixturevalue(made_from) if made_from else None  # made before the lock is taken
    if not ON_POSTGRES:
        path = tmp_path / "test.db"
        if template is not None:
            shutil.copyfile(template, path)
        yield f"sqlite:///{path}"
        return
    with postgres_in_use(alone=request.node.get_closest_marker("stops_postgres") is not None):
        yield from pooled_schema(template) if template is not None else postgres_schema()


@pytest.fixture(scope="session")
def _migrated_template(tmp_path_factory):
    """An empty database at the newest revision, once per worker, that tests' databases are copied from instead of
    each running every migration (about 0.1 s on SQLite and 0.2-0.3 s on PostgreSQL a test, more in a subprocess,
    which imports Alembic for it)."""
    yield from _template(tmp_path_factory, "migrated", lambda url: open_database(url).dispose())


@pytest.fixture(scope="session")
def _synced_template(tmp_path_factory):
    """The sample docs synced (and encoded) once per worker."""
    from bot.runtime import Runtime
    from bot.settings import load_settings

    def synced(url: str) -> None:
        rt = Runtime(load_settings(database_url=url, docs_dir=SAMPLE_DOCS))
        rt.sync()
        rt.engine.dispose()

    yield from _template(tmp_path_factory, "synced", synced)


def _template(tmp_path_factory, name: str, make: Callable[[str], None]) -> Iterator[Path | Template]:
    """A database made by make(url) once per worker: a SQLite file that tests copy, or on PostgreSQL a schema's dump
    that each test's schema is made from (Template)."""
    if not ON_POSTGRES:
        path = tmp_path_factory.mktemp(name) / "template.db"
        make(f"sqlite:///{path}")
        yield path
        return
    with postgres_in_use(alone=False), contextmanager(postgres_schema)() as url:
        make(url)
        schema = str(make_url(url).query["application_name"])
        template = Template(SchemaDump.of(schema, "--schema-only"), SchemaDump.of(schema, "--data-only"), _shape(schema))
    yield template
    with postgres_in_use(alone=False), psycopg_admin() as conn:  # the worker's last test is over: its schemas go
        for schema in _EMPTIED.pop(template.shape, []):
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@dataclass(frozen=True)
class SchemaDump:
    """A schema's tables or rows as the SQL that makes them again (pg_dump), with the schema's name to replace."""

    schema: str
    sql: str

    @classmethod
    def of(cls, schema: str, part: str) -> SchemaDump:
        rows = ["--inserts", "--rows-per-insert=1000", "--no-owner", "--no-privileges", "--no-comments"]
        dump = subprocess.run(
            ["pg_dump", f"--dbname={_libpq(TARGET_URL)}", f"--schema={schema}", part, *rows],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        return cls(schema, "\n".join(line for line in dump.splitlines() if not line.startswith("\\")))  # psql's own

    def into(self, schema: str) -> str:
        return self.sql.replace(self.schema, schema)  # a random name: it occurs nowhere else


@dataclass(frozen=True)
class Template:
    """A PostgreSQL template: its tables (the newest revision's), its rows, and its shape (_shape), by which a test's
    emptied schema is known to be fit for the next test."""

    tables: SchemaDump
    rows: SchemaDump
    shape: str


# A worker's schemas whose test is over, emptied, by shape. Making a schema from the dump of its tables took about
# 100-150 ms a test and dropping it 25 ms, most of the PostgreSQL suite's extra time over SQLite's; deleting its
# rows and resetting its sequences takes about 10 ms.
_EMPTIED: dict[str, list[str]] = {}


def pooled_schema(template: Template) -> Iterator[str]:
    """A schema holding the template's rows: an emptied one a test of this worker used before, else a new one. After
    the test it is emptied for the next (its sessions ended first), or dropped if the test changed its tables or it
    cannot be emptied."""
    emptied = _EMPTIED.get(template.shape)
    schema = emptied.pop() if emptied else None
    with psycopg_admin() as conn:
        if schema is None:
            schema = f"t_{uuid.uuid4().hex[:12]}"
            conn.execute(template.tables.into(schema))
        conn.execute(f"SET session_replication_role = replica; {template.rows.into(schema)}")  # in any order
    yield _schema_url(schema)
    import psycopg

    with psycopg_admin() as conn:
        _end_sessions(conn, schema)
        try:
            _empty(conn, schema)
            fit = _shape(schema, conn) == template.shape
        except psycopg.Error:  # a table that cannot be emptied: the transaction is undone, the schema dropped
            conn.execute("ROLLBACK")
            fit = False
        if fit:
            _EMPTIED.setdefault(template.shape, []).append(schema)
        else:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def _end_sessions(conn, schema: str) -> None:
    """End the sessions a test left in its schema (a killed bot's), found by their application_name; what comes next
    on this connection fails after 30 s instead of hanging on one that outlived its termination."""
    conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s", [schema])
    conn.execute("SET lock_timeout = '30s'")


def _empty(conn, schema: str) -> None:
    """Every row deleted (foreign keys unchecked: superuser) and every sequence back to its start, in one transaction."""
    tables = [r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s", [schema])]
    sequences = [r[0] for r in conn.execute("SELECT sequencename FROM pg_sequences WHERE schemaname = %s", [schema])]
    statements = [f'DELETE FROM "{schema}"."{t}"' for t in tables]
    statements += [f"""SELECT setval('"{schema}"."{q}"', 1, false)""" for q in sequences]
    conn.execute("; ".join(["BEGIN", "SET LOCAL session_replication_role = replica", *statements, "COMMIT"]))


def _shape(schema: str, conn=None) -> str:
    """A digest of the schema's relations and their columns: tables, indexes and sequences, as the migrations left
    them."""
    with nullcontext(conn) if conn is not None else psycopg_admin() as c:
        return c.execute(
            "SELECT md5(string_agg(c.relname || '.' || a.attname || ':' || a.atttypid, ',' ORDER BY c.relname, a.attnum)) "
            "FROM pg_attribute a JOIN pg_class c ON a.attrelid = c.oid "
            "WHERE c.relnamespace = %s::regnamespace AND a.attnum > 0 AND NOT a.attisdropped",
            [schema],
        ).fetchone()[0]


def psycopg_admin(server: str = TARGET_URL):
    """A connection of its own to the server, autocommitting: a test may have restarted PostgreSQL since the last."""
    import psycopg

    return psycopg.connect(_libpq(server), autocommit=True)


def _schema_url(schema: str, server: str = TARGET_URL) -> str:
    """The URL whose sessions work in this schema, named by it (application_name), committing without waiting."""
    url = make_url(server).update_query_dict({"options": f"-csearch_path={schema} {TEST_SESSION}", "application_name": schema})
    return url.render_as_string(hide_password=False)


def _libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def postgres_schema(server: str = TARGET_URL) -> Iterator[str]:
    """A fresh, empty schema in the server's database, dropped after. Its sessions carry its name as their
    application_name, so the drop first ends any a test left behind (a killed bot's)."""
    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg_admin(server) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    yield _schema_url(schema, server)
    with psycopg_admin(server) as conn:
        _end_sessions(conn, schema)
        conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture
def engine(db_url):
    engine = open_database(db_url)
    yield engine
    engine.dispose()


@pytest.fixture
def docs(tmp_path) -> Path:
    """A private copy of the sample docs, free to change."""
    target = tmp_path / "docs"
    shutil.copytree(SAMPLE_DOCS, target)
    return target


def run_cli(*args: str, env: dict | None = None, timeout: float = 120, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """`supportbot ARGS` as a real process, the way a user or cron runs it."""
    full_env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"} | (env or {})
    full_env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), full_env.get("PYTHONPATH")]))  # from any folder
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args], capture_output=True, text=True, env=full_env, timeout=timeout, cwd=cwd
    )


@pytest.fixture
def fake_anthropic():
    from tests.fakes.anthropic import FakeAnthropic

    fake = FakeAnthropic().start()
    yield fake
    fake.stop()


def settings_for_claude(fake_anthropic, db_url: str, docs: Path, **more):
    """Settings that send the real anthropic SDK to the fake API."""
    from bot.settings import load_settings

    return load_settings(
        database_url=db_url,
        docs_dir=docs,
        anthropic_api_key="sk-ant-test-key",
        anthropic_base_url=fake_anthropic.url,
        anthropic_max_retries=0,
        anthropic_timeout_s=10,
        **more,
    )


@pytest.fixture
def claude_settings(fake_anthropic, db_url, docs):
    return settings_for_claude(fake_anthropic, db_url, docs)


@pytest.fixture
def runtime(claude_settings):
    from bot.runtime import Runtime

    rt = Runtime(claude_settings)
    rt.sync()
    rt.ensure_index(None)  # the index and its re-ranking vectors loaded: every search ranks the same way
    return rt


@pytest.fixture
def fake_slack(request):
    """The fake Slack; for a test marked shared_serve, the worker's shared one, once its bot is idle, recordings
    forgotten (each test's messages and threads are new to it: its evidence is its own)."""
    if request.node.get_closest_marker("shared_serve"):
        own = {"bot_env", "db_url", "docs", "engine", "start_bot"} & set(request.fixturenames)
        if own:
            raise pytest.UsageError(f"{request.node.name}: a shared serve has its own database and docs, not {sorted(own)}")
        fake, bot = request.getfixturevalue("_shared_serve")
        with postgres_in_use(alone=False) if ON_POSTGRES else nullcontext():
            _until_idle(bot, fake)
            fake.forget()
            bot.turn_page()
            yield fake
            _until_idle(bot, fake)  # a test ends with its answers made, not half way through a post
        return
    from tests.fakes.slack import FakeSlack

    fake = FakeSlack()
    yield fake
    fake.stop()


def _until_idle(bot: BotProcess, fake) -> None:
    """Ready, and no answer in flight (the bot's own /readyz and /metrics)."""

    def idle() -> bool:
        try:
            in_flight = samples(get(base(bot) + "/metrics")[1]).get(("supportbot_answers_in_flight", ()))
            return get(base(bot) + "/readyz")[0] == 200 and in_flight == 0  # a missing gauge is not idle
        except OSError:
            return False

    fake.wait_for(idle)


@pytest.fixture(scope="session")
def _shared_serve(tmp_path_factory, _synced_template):
    """One `supportbot serve` per worker, with its own fake Slack and a copy of the synced sample docs' database,
    for the tests that need only a running bot (about 3 s of start each, saved)."""
    from tests.fakes.slack import FakeSlack

    folder = tmp_path_factory.mktemp("shared-serve")
    docs = folder / "docs"
    shutil.copytree(SAMPLE_DOCS, docs)
    fake = FakeSlack()
    if ON_POSTGRES:
        with postgres_in_use(alone=False):
            database = pooled_schema(_synced_template)
            url = next(database)
    else:
        shutil.copyfile(_synced_template, folder / "shared.db")
        url = f"sqlite:///{folder / 'shared.db'}"
    bot = BotProcess(bot_environment(fake, url, docs), folder / "bot.log")
    yield fake, bot
    bot.end()
    fake.stop()
    if ON_POSTGRES:
        with postgres_in_use(alone=False):
            next(database, None)


def get(url: str) -> tuple[int, str]:
    """(status, body) of a GET, an error status included."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def base(bot: BotProcess) -> str:
    return bot.url.removesuffix("/slack/events")


def samples(text: str) -> dict[tuple[str, tuple], float]:
    from prometheus_client.parser import text_string_to_metric_families

    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def metric(bot, name: str, **labels) -> float:
    return samples(get(base(bot) + "/metrics")[1]).get((name, tuple(sorted(labels.items()))), 0)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, log: Callable[[], str], timeout: float = 60) -> None:
    """Until the process listens on the port; its log if it dies or never does."""
    import socket
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the process exited with {proc.returncode}:\n{log()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"the process did not start listening:\n{log()}")


class BotProcess:
    """`supportbot serve --http` as a real subprocess, talking to the fake Slack."""

    def __init__(self, env: dict, log_path: Path, args: tuple[str, ...] = (), http: bool = True) -> None:
        self.env = env  # its DATABASE_URL is where a test reads what the bot logged
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/slack/events"
        self.log_path = log_path
        self.page = 0  # where log() starts reading
        mode = ["--http", "--host", "127.0.0.1", "--port", str(self.port)] if http else []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot.cli", "serve", *mode, *args],
            env=env,
            stdout=open(log_path, "w"),
            stderr=subprocess.STDOUT,
            cwd=REPO,
        )
        if http:
            wait_for_port(self.port, self.proc, self.log)

    def log(self) -> str:
        """What the process has written since it started, or since `turn_page` (a shared bot's next test)."""
        if not self.log_path.exists():
            return ""
        with open(self.log_path, "rb") as f:
            f.seek(self.page)
            return f.read().decode(errors="replace")

    def turn_page(self) -> None:
        self.page = self.log_path.stat().st_size if self.log_path.exists() else 0

    def stop(self) -> None:
        """SIGTERM, as a container stop sends: it finishes the answers in flight, then exits."""
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)

    def end(self) -> None:
        """A teardown's end: killed, without waiting for a graceful stop (its sync child dies with it)."""
        self.proc.kill()
        self.proc.wait(10)


def bot_environment(fake_slack, db_url: str, docs: Path) -> dict:
    """The bot's environment for the fake Slack, with none of the developer's settings; nothing synced."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "ANTHROPIC_", "DOCS_")) and k != "DATABASE_URL"}
    return env | {
        "SLACK_BOT_TOKEN": "xoxb-test-token",
        "SLACK_SIGNING_SECRET": fake_slack.signing_secret,
        "SLACK_API_URL": fake_slack.api_url,
        "DATABASE_URL": db_url,
        "DOCS_DIR": str(docs),
        "DOCS_BASE_URL": "https://help.auralis.example",
        "LOG_LEVEL": "DEBUG",  # the bot says why it ignored an event: the evidence negative tests wait for
    }


@pytest.fixture
def bot_env(fake_slack, db_url, docs):
    """The bot's environment: fake Slack, a synced database, no model key (local answerer)."""
    from bot.runtime import Runtime
    from bot.settings import load_settings

    Runtime(load_settings(database_url=db_url, docs_dir=docs)).sync()
    return bot_environment(fake_slack, db_url, docs)


@pytest.fixture
def start_bot(tmp_path):
    started = []

    def start(env: dict, *args: str, http: bool = True) -> BotProcess:
        bot = BotProcess(env, tmp_path / f"bot-{len(started)}.log", args, http)
        started.append(bot)
        return bot

    start.started = started  # type: ignore[attr-defined]  # read by pytest_runtest_makereport on a failure
    yield start
    for bot in started:
        bot.end()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test's report ends with the log of each bot it started: a wait that timed out says why."""
    report = yield
    if report.when == "call" and report.failed:
        bots = list(getattr(item.funcargs.get("start_bot"), "started", []))
        if isinstance(item.funcargs.get("bot"), BotProcess) and item.funcargs["bot"] not in bots:
            bots.append(item.funcargs["bot"])
        for n, bot in enumerate(bots):
            text = bot.log_path.read_text(errors="replace") if bot.log_path.exists() else "(no log)"
            report.sections.append((f"bot {n}: the end of its log", text[-6000:]))
    return report


@pytest.fixture
def bot(request, fake_slack):
    """`supportbot serve` on a synced database of its own; marked shared_serve, the worker's shared one."""
    if request.node.get_closest_marker("shared_serve"):
        return request.getfixturevalue("_shared_serve")[1]
    return request.getfixturevalue("start_bot")(request.getfixturevalue("bot_env"))


@pytest.fixture
def cuttable_postgres():
    """A private schema on the machine's PostgreSQL, reached through a proxy the test can cut."""
    with postgres_in_use(alone=False):
        yield from _cuttable_schema()


def _cuttable_schema():
    from tests.fakes.tcp_proxy import TcpProxy

    server = TARGET_URL if ON_POSTGRES else "postgresql+psycopg://postgres@127.0.0.1:5432/test"
    with contextmanager(postgres_schema)(server=server) as schema_url:
        url = make_url(schema_url)
        proxy = TcpProxy(url.host or "127.0.0.1", url.port or 5432)
        yield proxy, url.set(host="127.0.0.1", port=proxy.port)
        proxy.cut()
