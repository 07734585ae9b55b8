"""When a docs change alters or removes a line an answer cited, that answer is flagged stale, and no other."""

import pytest
from sqlalchemy import insert, select

from bot.database import upgrade
from bot.logs.models import cited_pages, questions
from bot.logs.report import Filters, export, list_questions
from bot.logs.stale import stale_by_page
from bot.runtime import Runtime
from bot.settings import load_settings
from kb.database import create_db_engine

WARRANTY = "help/warranty.md"
OLD_LINE = "Auralis Pods 2 come with a 1-year limited warranty and Auralis Pods Pro with a 2-year limited warranty"


def asked(db_url, docs):
    rt = Runtime(load_settings(database_url=db_url, docs_dir=docs, search_mode="bm25"))
    rt.sync()
    ids = {}
    for key, q in {
        "length": "how long is the warranty on pods pro",
        "coverage": "what does the warranty cover",
        "express": "how much is express delivery",
    }.items():
        a = rt.ask(q, answerer="local")
        assert a.status == "answered", (q, a.answer)
        ids[key] = a.log_id
    return rt, ids


def stale_ids(rt) -> set[int]:
    return {r["id"] for r in list_questions(rt.engine, Filters(stale=True))}


def test_changing_a_cited_line_flags_the_answers_citing_it_and_no_other(db_url, docs):
    rt, ids = asked(db_url, docs)
    page = docs / WARRANTY
    page.write_text(page.read_text().replace("Pods Pro with a 2-year", "Pods Pro with a 3-year"))
    report = rt.sync()
    assert report.changed == [WARRANTY] and report.stale_answers == 1
    assert stale_ids(rt) == {ids["length"]}, "the coverage answer cites an unchanged line of the same page"
    [entry] = stale_by_page(rt.engine)[WARRANTY]
    [line] = entry["lines"]
    assert line["line"] == 9 and OLD_LINE in line["old"] and "3-year" in line["new"]


def test_a_cited_line_that_only_moved_is_not_stale(db_url, docs):
    rt, _ = asked(db_url, docs)
    page = docs / WARRANTY
    page.write_text(page.read_text().replace("# Limited warranty\n", "# Limited warranty\n\nRead this first.\n", 1))
    assert rt.sync().stale_answers == 0
    assert stale_ids(rt) == set()


def test_a_removed_page_makes_its_answers_stale_with_nothing_in_their_place(db_url, docs):
    rt, ids = asked(db_url, docs)
    (docs / "help" / "shipping.html").unlink()
    rt.sync()
    assert stale_ids(rt) == {ids["express"]}
    [entry] = stale_by_page(rt.engine)["help/shipping.html"]
    assert entry["lines"][0]["new"] is None


def test_the_export_says_which_answers_are_stale(db_url, docs):
    import json

    rt, ids = asked(db_url, docs)
    (docs / "help" / "shipping.html").unlink()
    rt.sync()
    rows = {r["id"]: r["stale"] for r in map(json.loads, export(rt.engine, Filters(), "jsonl"))}
    assert rows == {ids["length"]: False, ids["coverage"]: False, ids["express"]: True}


@pytest.mark.empty_database  # migrated here, from an older revision
def test_answers_logged_before_the_upgrade_get_their_cited_pages(db_url):
    from datetime import UTC, datetime

    engine = create_db_engine(db_url)
    upgrade(engine, "0004")  # the schema before answers remembered their pages
    with engine.begin() as conn:
        conn.execute(
            insert(questions).values(  # only columns revision 0004 has
                created_at=datetime.now(UTC),
                source="slack",
                question="how long is the warranty",
                answerer="local",
                status="answered",
                answer="One year. [1]",
                sources=[{"n": 1, "title": "Limited warranty", "path": WARRANTY, "url": None, "collection": "help"}],
                cited=[{"n": 1, "chunk_id": 7, "lines": [[9, OLD_LINE]]}],
                closest=[],
                steps=[],
                problems=[],
                usage={},
                latency_ms=3.0,
            )
        )
    upgrade(engine)
    with engine.connect() as conn:
        assert conn.execute(select(cited_pages.c.path)).scalars().all() == [WARRANTY]
    engine.dispose()


def test_a_changed_line_two_citations_quote_is_one_change(db_url, docs):
    from sqlalchemy import update

    rt, ids = asked(db_url, docs)
    with rt.engine.begin() as conn:  # the answer cites the same line twice, as Claude's answers can
        cited = conn.execute(select(questions.c.cited).where(questions.c.id == ids["length"])).scalar_one()
        conn.execute(update(questions).where(questions.c.id == ids["length"]).values(cited=cited + cited))
    page = docs / WARRANTY
    page.write_text(page.read_text().replace("Pods Pro with a 2-year", "Pods Pro with a 3-year"))
    rt.sync()
    [entry] = stale_by_page(rt.engine)[WARRANTY]
    assert [line["line"] for line in entry["lines"]] == [9]
