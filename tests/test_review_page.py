"""The review page in a real browser (Debian's Chromium, driven by Playwright, JavaScript off), and its token."""

import shutil
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from bot.logs.store import Origin, record_feedback
from bot.runtime import Runtime
from bot.settings import load_settings
from tests.conftest import REPO, free_port, run_cli, wait_for_port

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
def logged(db_url, docs):
    rt = Runtime(load_settings(database_url=db_url, docs_dir=docs))
    rt.sync()
    for q in [
        "How much is express delivery?",
        "Is there a student discount?",
        "Can I go swimming with my earbuds?",
        "Do you offer a discount for students?",
    ]:
        a = rt.ask(q, answerer="local", origin=Origin("slack", channel="C_HELP", user_id="U1", thread_ts="1.1"))
        if q.startswith("Can I go"):
            record_feedback(rt.engine, a.log_id, "down", "U2")
    return rt


class ReviewServer:
    def __init__(self, db_url, tmp_path, host="127.0.0.1", env=None):
        import os

        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        full_env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REVIEW_TOKEN")} | (env or {})
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot.cli", "review", "--host", host, "--port", str(self.port), "--db", db_url],
            cwd=REPO,
            env=full_env,
            stdout=open(tmp_path / "review.log", "w"),
            stderr=subprocess.STDOUT,
        )
        wait_for_port(self.port, self.proc, (tmp_path / "review.log").read_text)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)


@pytest.fixture
def review(logged, db_url, tmp_path):
    server = ReviewServer(db_url, tmp_path)
    yield server
    server.stop()


def test_list_filter_and_detail_in_a_browser_with_javascript_off(review, tmp_path):
    import os

    from playwright.sync_api import sync_playwright

    if not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail("Debian's chromium is missing: .ci/run installs it")
        pytest.skip("needs Debian's chromium (apt-get install chromium); CI installs it and runs this test")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        page = browser.new_context(java_script_enabled=False).new_page()
        page.goto(review.base + "/")
        overview = page.locator("main").inner_text()
        assert "Overview" in overview and "4" in overview and "helpful (0 of 1 rated)" in overview and "of 4)" in overview
        assert page.locator("svg.chart").count() == 2 and page.locator("svg.chart rect[fill='#3a9a5b']").count() >= 1
        page.screenshot(path=str(tmp_path / "review-overview.png"), full_page=True)
        page.click("header >> text=Questions")
        page.wait_for_url("**/questions")
        assert page.locator("tbody tr").count() == 4

        page.select_option("select[name=status]", "abstained")
        page.click("button[type=submit]")
        page.wait_for_url("**/questions?status=abstained*")
        rows = page.locator("tbody tr")
        assert rows.count() == 2
        assert all("abstained" in rows.nth(i).inner_text() for i in range(rows.count()))

        page.click("text=Do you offer a discount for students?")
        page.wait_for_url("**/questions/*")
        body = page.locator("main").inner_text()
        assert "I couldn't find this in the docs." in body
        assert "Searches" in body and "Do you offer a discount for students?" in body
        assert "C_HELP" in body and "local" in body
        shot = tmp_path / "review-detail.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 10_000

        page.goto(review.base + "/questions?feedback=down")
        assert page.locator("tbody tr").count() == 1
        page.goto(review.base + "/gaps")
        gaps = page.locator("tbody tr")
        assert gaps.count() >= 1 and "2×" in gaps.first.inner_text()
        page.goto(review.base + "/syncs")
        assert "ok" in page.locator("tbody").inner_text()
        browser.close()


def fetch(url, headers=None):
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *a, **kw):
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(urllib.request.Request(url, headers=headers or {}), timeout=10) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


def test_on_a_public_address_the_page_needs_its_token(logged, db_url, tmp_path):
    server = ReviewServer(db_url, tmp_path, host="0.0.0.0", env={"REVIEW_TOKEN": "s3cret-review"})
    try:
        assert fetch(server.base + "/")[0] == 401
        assert fetch(server.base + "/?token=wrong")[0] == 401
        status, headers, _ = fetch(server.base + "/?token=s3cret-review&status=abstained")
        assert status == 302 and "supportbot_review=s3cret-review" in headers.get("Set-Cookie", "")
        assert "token" not in headers["Location"] and "status=abstained" in headers["Location"]
        assert fetch(server.base + "/", {"Cookie": "supportbot_review=s3cret-review"})[0] == 200
        assert fetch(server.base + "/", {"Authorization": "Bearer s3cret-review"})[0] == 200
    finally:
        server.stop()


def test_on_a_public_address_without_a_token_it_refuses_to_start(engine, db_url):
    from tests.conftest import run_cli

    result = run_cli("review", "--host", "0.0.0.0", "--port", "8799", "--db", db_url)
    assert result.returncode == 1 and "set REVIEW_TOKEN" in result.stderr


def test_pages_forbid_scripts_and_a_docs_javascript_link_is_not_a_link(db_url, docs):
    from bot.review.app import create_app

    (docs / "help" / "trap.md").write_text(
        "---\nurl: javascript:alert(1)\n---\n# Gift wrap\n\nGift wrapping costs $4 per order.\n"
    )
    rt = Runtime(load_settings(database_url=db_url, docs_dir=docs))
    rt.sync()
    a = rt.ask("How much does gift wrapping cost?", answerer="local")
    assert a.status == "answered" and a.sources[0].path == "help/trap.md" and a.sources[0].url is None
    client = create_app(rt.engine).test_client()
    page = client.get(f"/q/{a.log_id}")
    assert page.status_code == 200 and "Gift wrap" in page.text and "javascript:" not in page.text
    assert "default-src 'none'" in page.headers["Content-Security-Policy"]


def test_the_token_redirect_keeps_a_search_with_an_ampersand(logged):
    from bot.review.app import create_app

    client = create_app(logged.engine, token="s3cret-review").test_client()
    response = client.get("/?token=s3cret-review&search=returns+%26+refunds")
    assert response.status_code == 302 and response.headers["Location"].endswith("?search=returns+%26+refunds")


def test_out_of_range_input_is_a_client_error_not_a_crash(logged):
    from bot.review.app import create_app

    client = create_app(logged.engine).test_client()
    assert client.get("/q/99999999999999999999999").status_code == 404
    assert client.get("/questions?search=" + "a" * 100_000).status_code == 400
    assert client.get("/?x=" + "a" * 100_000).status_code == 400
    assert client.get("/questions?search=refund").status_code == 200


def many_questions(engine, n, source="slack"):
    """n logged answers, written straight to the log (what the page reads), oldest first."""
    from sqlalchemy import insert

    from bot.logs.models import questions
    from kb.clock import now

    row = dict(
        answerer="local",
        status="answered",
        answer="A.",
        sources=[],
        cited=[],
        closest=[],
        steps=[],
        problems=[],
        usage={},
        latency_ms=1.0,
    )
    with engine.begin() as conn:
        conn.execute(
            insert(questions), [{"created_at": now(), "source": source, "question": f"question {i}", **row} for i in range(n)]
        )


def test_the_list_pages_through_every_question_fifty_at_a_time(engine):
    import re

    from bot.review.app import create_app

    many_questions(engine, 120)
    client = create_app(engine).test_client()
    seen, url, pages = [], "/questions", 0
    while url:
        page = client.get(url).text
        seen += re.findall(r">question (\d+)</a>", page)
        older = re.search(r'href="([^"]+)" rel="next"', page)
        url = older.group(1).replace("&amp;", "&") if older else None
        pages += 1
    assert pages == 3 and [int(x) for x in seen] == list(range(119, -1, -1))
    last = client.get("/questions?before=" + "1" * 3).text  # id 111 and older
    newer = re.search(r'href="([^"]+)" rel="prev"', last).group(1).replace("&amp;", "&")
    assert re.findall(r">question (\d+)</a>", client.get(newer).text)[-1] == "110", "the newer page ends right above"


def test_eval_runs_are_left_out_unless_asked_for(engine):
    from bot.review.app import create_app

    many_questions(engine, 2, source="slack")
    many_questions(engine, 3, source="eval")
    client = create_app(engine).test_client()
    assert client.get("/questions").text.count('href="/questions/') == 2
    assert client.get("/questions?source=eval").text.count('href="/questions/') == 3
    assert client.get("/questions?source=all").text.count('href="/questions/') == 5
    assert ">2</div>" in client.get("/").text, "the overview counts the two Slack questions only"


def test_the_stale_page_shows_each_changed_line_under_its_page(db_url, docs):
    from bot.review.app import create_app

    rt = Runtime(load_settings(database_url=db_url, docs_dir=docs, search_mode="bm25"))
    rt.sync()
    a = rt.ask("How much is express delivery?", answerer="local")
    page = docs / "help" / "shipping.html"
    page.write_text(page.read_text().replace("costs $12", "costs $15"))
    rt.sync()
    client = create_app(rt.engine).test_client()
    stale = client.get("/stale").text
    assert "help/shipping.html" in stale and f'href="/questions/{a.log_id}"' in stale
    assert "<del>Express shipping takes 1 to 2 business days and costs $12.</del>" in stale and "costs $15" in stale
    assert "Stale" in client.get(f"/questions/{a.log_id}").text
    assert f'href="/questions/{a.log_id}"' in client.get("/questions?stale=1").text
    assert "1 stale answer</a>" in client.get("/").text


def test_the_detail_view_shows_each_cited_passage_whole_with_the_cited_lines_marked(db_url, docs):
    from bot.review.app import create_app

    rt = Runtime(load_settings(database_url=db_url, docs_dir=docs, search_mode="bm25"))
    rt.sync()
    a = rt.ask("How long is the warranty on Pods Pro?", answerer="local")
    page = create_app(rt.engine).test_client().get(f"/questions/{a.log_id}").text
    assert "the passage, cited lines marked" in page
    assert "<mark>9: Auralis Pods 2 come with a 1-year limited warranty" in page
    assert "## How long" not in page and "How long the warranty lasts" in page


def test_gaps_say_why_when_and_where_and_hide_unrelated_pages(logged):
    from bot.logs.gaps import gaps

    [discount, swimming] = gaps(logged.engine)[:2]
    assert discount.count == 2 and discount.reasons == {"no answer": 2} and discount.channels == ["C_HELP"]
    assert discount.first_asked <= discount.last_asked
    assert swimming.reasons == {"not helpful": 1}
    assert discount.closest_pages() == [], "no page shares a word with the question"
    assert swimming.closest_pages() == ["help/water-resistance.rst"], "the page the unhelpful answer cited"


def test_writing_needs_the_token_and_the_pages_csrf_field(logged):
    from bot.review.app import create_app

    read_only = create_app(logged.engine).test_client()
    assert "Mark covered" not in read_only.get("/gaps").text
    assert read_only.post("/gaps/mark", data={"ids": "1", "state": "covered"}).status_code == 403
    client = create_app(logged.engine, token="s3cret-review").test_client()
    auth = {"Authorization": "Bearer s3cret-review"}
    assert client.post("/gaps/mark", data={"ids": "1", "state": "covered", "csrf": "guess"}, headers=auth).status_code == 403
    assert client.get("/gaps", headers=auth).text.count("Mark covered") == 2


def test_a_gap_marked_covered_leaves_the_list_until_it_is_asked_again(logged):
    import re

    from bot.review.app import create_app

    client = create_app(logged.engine, token="s3cret-review").test_client()
    auth = {"Authorization": "Bearer s3cret-review"}
    page = client.get("/gaps", headers=auth).text
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)
    ids = re.search(r'name="ids" value="([\d,]+)"', page).group(1)  # the most asked gap: the student discount
    assert client.post("/gaps/mark", data={"ids": ids, "state": "covered", "csrf": csrf}, headers=auth).status_code == 303
    assert "student" not in client.get("/gaps", headers=auth).text.lower()
    logged.ask("Is there a discount for students?", answerer="local")
    assert "Is there a discount for students?" in client.get("/gaps", headers=auth).text


def test_an_answered_question_can_be_added_to_the_eval_set_once(logged, tmp_path):
    import re

    import yaml

    from bot.review.app import create_app

    a = logged.ask("How much is express delivery?", answerer="local")
    eval_file = tmp_path / "eval.yaml"
    client = create_app(logged.engine, token="s3cret-review", eval_file=eval_file).test_client()
    auth = {"Authorization": "Bearer s3cret-review"}
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', client.get(f"/questions/{a.log_id}", headers=auth).text).group(1)
    assert "Added to" in client.post(f"/questions/{a.log_id}/eval", data={"csrf": csrf}, headers=auth).text
    assert "Already in" in client.post(f"/questions/{a.log_id}/eval", data={"csrf": csrf}, headers=auth).text
    assert yaml.safe_load(eval_file.read_text()) == [
        {"question": "How much is express delivery?", "sources": ["help/shipping.html"]}
    ]


def test_adding_to_an_eval_file_that_is_not_a_list_says_why_and_changes_nothing(logged, tmp_path):
    import re

    from bot.review.app import create_app

    a = logged.ask("How much is express delivery?", answerer="local")
    eval_file = tmp_path / "eval.yaml"
    eval_file.write_text("cases: {}\n")
    client = create_app(logged.engine, token="s3cret-review", eval_file=eval_file).test_client()
    auth = {"Authorization": "Bearer s3cret-review"}
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', client.get(f"/questions/{a.log_id}", headers=auth).text).group(1)
    page = client.post(f"/questions/{a.log_id}/eval", data={"csrf": csrf}, headers=auth)
    assert page.status_code == 409 and "is not a list of questions" in page.text
    assert eval_file.read_text() == "cases: {}\n"


def test_the_owner_chooses_the_right_pages_and_facts_of_an_eval_case(logged, tmp_path):
    import re

    import yaml

    from bot.review.app import create_app

    a = logged.ask("How much is express delivery?", answerer="local")
    eval_file = tmp_path / "eval.yaml"
    client = create_app(logged.engine, token="s3cret-review", eval_file=eval_file).test_client()
    auth = {"Authorization": "Bearer s3cret-review"}
    page = client.get(f"/questions/{a.log_id}", headers=auth).text
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)
    assert 'name="pages" value="help/shipping.html" checked' in page, "the cited page is offered, kept by default"
    form = {"csrf": csrf, "chosen": "1", "more_pages": "help/nowhere.md", "facts": "$12"}
    refused = client.post(f"/questions/{a.log_id}/eval", data=form, headers=auth)
    assert refused.status_code == 422 and "help/nowhere.md" in refused.text and not eval_file.exists()
    form = {
        "csrf": csrf,
        "chosen": "1",
        "pages": "help/shipping.html",
        "more_pages": "help/returns-and-refunds.md",
        "facts": "$12; 1 to 2 business days",
    }
    assert "Added to" in client.post(f"/questions/{a.log_id}/eval", data=form, headers=auth).text
    assert yaml.safe_load(eval_file.read_text()) == [
        {
            "question": "How much is express delivery?",
            "sources": ["help/shipping.html", "help/returns-and-refunds.md"],
            "facts": ["$12", "1 to 2 business days"],
        }
    ]


def test_a_not_helpful_answer_is_not_added_with_its_own_citations_as_right(logged, tmp_path):
    import re

    from bot.logs.store import record_feedback
    from bot.review.app import create_app

    a = logged.ask("Is water damage covered by the warranty?", answerer="local")
    record_feedback(logged.engine, a.log_id, "down", "U1")
    eval_file = tmp_path / "eval.yaml"
    client = create_app(logged.engine, token="s3cret-review", eval_file=eval_file).test_client()
    auth = {"Authorization": "Bearer s3cret-review"}
    page = client.get(f"/questions/{a.log_id}", headers=auth).text
    assert "Marked not helpful" in page and '" checked>' not in page, "nothing is taken as right by default"
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)
    refused = client.post(f"/questions/{a.log_id}/eval", data={"csrf": csrf}, headers=auth)
    assert refused.status_code == 422 and "marked not helpful" in refused.text and not eval_file.exists()
    nothing = client.post(f"/questions/{a.log_id}/eval", data={"csrf": csrf, "chosen": "1"}, headers=auth)
    assert nothing.status_code == 422 and "at least one right page" in nothing.text


def test_a_team_answer_is_edited_and_published_from_the_page_and_leaves_its_gap(logged):
    import re

    from bot.logs.gaps import gaps
    from bot.logs.team_answers import add_candidate, team_answer
    from bot.review.app import create_app

    student = next(g for g in gaps(logged.engine) if "student" in g.latest["question"].lower()).latest
    answer_id = add_candidate(
        logged.engine, student["id"], student["question"], "Yes, 15% off.", ("U_BOB", "Bob"), "https://x.slack.com/archives/C/p1"
    )
    read_only = create_app(logged.engine).test_client()
    assert "Yes, 15% off." in read_only.get("/answers").text and "<textarea" not in read_only.get("/answers").text
    assert read_only.post(f"/answers/{answer_id}/publish", data={"text": "x"}).status_code == 403
    client = create_app(logged.engine, token="s3cret-review", team_answer_days=30).test_client()
    auth = {"Authorization": "Bearer s3cret-review"}
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', client.get("/answers", headers=auth).text).group(1)
    assert client.post(f"/answers/{answer_id}/publish", data={"text": "edited", "csrf": "guess"}, headers=auth).status_code == 403
    edited = "Students get 15% off with a university email address."
    done = client.post(f"/answers/{answer_id}/publish", data={"text": edited, "csrf": csrf}, headers=auth)
    assert done.status_code == 303 and done.headers["Location"].endswith("/answers?state=published")
    published = team_answer(logged.engine, answer_id)
    assert published.state == "published" and published.text == edited
    assert (published.review_by - published.reviewed_at).days == 30, "TEAM_ANSWER_DAYS"
    assert not [g for g in gaps(logged.engine) if "student" in g.latest["question"].lower()], (
        "the answered gap leaves the list, with the same question asked in other words"
    )
    assert "1 team answer" not in client.get("/", headers=auth).text, "none waiting any more"


def test_times_are_shown_in_the_review_time_zone_it_names_and_a_dm_is_said_to_be_one(db_url, docs):
    import re

    from bot.review.app import create_app

    rt = Runtime(load_settings(database_url=db_url, docs_dir=docs))
    rt.sync()
    a = rt.ask(
        "How much is express delivery?",
        answerer="local",
        origin=Origin("slack", channel="D_ALICE", user_id="U1", thread_ts="1.1"),
    )
    utc = create_app(rt.engine).test_client().get(f"/questions/{a.log_id}").text
    tokyo = create_app(rt.engine, timezone="Asia/Tokyo").test_client().get(f"/questions/{a.log_id}").text
    assert "times in UTC" in utc and "times in Asia/Tokyo" in tokyo
    stamp = lambda page: re.search(r"#\d+ · (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)", page).group(1)
    hours = lambda s: int(s[11:13])
    assert (hours(stamp(utc)) + 9) % 24 == hours(stamp(tokyo)), "Tokyo is 9 hours ahead of UTC"
    assert 'title="D_ALICE">direct message</span>' in utc
    listing = create_app(rt.engine).test_client().get("/questions?source=all").text
    assert ">direct message</td>" in listing
    link = "https://team.slack.com/archives/C_HELP/p1800000001000100"
    b = rt.ask("Is there a student discount?", answerer="local", origin=Origin("slack", channel="C_HELP", permalink=link))
    assert f'<a href="{link}">the thread in Slack</a>' in create_app(rt.engine).test_client().get(f"/questions/{b.log_id}").text


def test_a_review_time_zone_that_does_not_exist_is_one_line_at_start(db_url):
    result = run_cli("review", "--db", db_url, env={"REVIEW_TIMEZONE": "Mars/Olympus"})
    assert result.returncode != 0 and "REVIEW_TIMEZONE" in result.stderr and "Traceback" not in result.stderr


def test_the_overview_counts_answers_from_the_fallback_apart_from_errors(fake_anthropic, db_url, docs):
    from bot.review.app import create_app
    from tests.conftest import settings_for_claude
    from tests.fakes.anthropic import error

    down = error(529, "overloaded_error", "Overloaded")
    fake_anthropic.then(down, down)
    with_fallback = Runtime(settings_for_claude(fake_anthropic, db_url, docs))
    with_fallback.sync()
    without = Runtime(settings_for_claude(fake_anthropic, db_url, docs, answer_fallback="none"))
    origin = Origin("slack", channel="C_HELP", user_id="U1")
    assert with_fallback.ask("How much is express delivery?", origin=origin).status == "answered"
    assert without.ask("How much is express delivery?", origin=origin).status == "error"
    page = create_app(with_fallback.engine).test_client().get("/").text
    assert "model errors, no answer (1 of 2)" in page
    assert "the model failed, answered from the docs' lines (1 of 2)" in page


def test_a_gap_shows_why_its_answer_was_not_helpful(logged):
    from bot.logs.store import record_reason
    from bot.review.app import create_app

    [swimming] = [g for g in gaps_of(logged) if "swimming" in g.latest["question"]]
    vote, _ = record_feedback(logged.engine, swimming.latest["id"], "down", "U3")
    assert record_reason(logged.engine, vote, "U3", "Wrong: water damage is NOT covered")
    page = create_app(logged.engine).test_client().get("/gaps").text
    assert "“Wrong: water damage is NOT covered”" in page


def test_a_gap_gets_an_owner_and_wont_document_needs_a_note_then_leaves_the_list(logged):
    import re

    from bot.review.app import create_app

    client = create_app(logged.engine, token="s3cret-review").test_client()
    auth = {"Authorization": "Bearer s3cret-review"}
    page = client.get("/gaps", headers=auth).text
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)
    ids = re.search(r'name="ids" value="([\d,]+)"', page).group(1)  # the student discount
    form = {"ids": ids, "csrf": csrf}
    assert client.post("/gaps/mark", data=form | {"state": "open", "owner": "Dana"}, headers=auth).status_code == 303
    [discount] = [g for g in gaps_of(logged) if "student" in g.latest["question"]]
    assert discount.owner == "Dana", "an owner keeps the gap open"
    refused = client.post("/gaps/mark", data=form | {"state": "wont_document"}, headers=auth)
    assert refused.status_code == 422 and "Say why" in refused.text
    assert [g for g in gaps_of(logged) if "student" in g.latest["question"]], "nothing changed"
    note = "We don't offer student discounts; sales answers this."
    assert client.post("/gaps/mark", data=form | {"state": "wont_document", "note": note}, headers=auth).status_code == 303
    assert not [g for g in gaps_of(logged) if "student" in g.latest["question"]]
    [decided] = gaps_of(logged, state="wont_document")
    assert decided.note == note and decided.owner == "Dana" and decided.count == 2
    assert "sales answers this" in client.get("/gaps?state=wont_document&since=all", headers=auth).text


def gaps_of(rt, state="open"):
    from bot.logs.gaps import gaps

    return gaps(rt.engine, state=state)


def test_without_a_site_a_source_opens_the_review_pages_copy_with_its_lines_marked(db_url, docs):
    from bot.review.app import create_app

    rt = Runtime(load_settings(database_url=db_url, docs_dir=docs, review_url="https://review.example.com/"))
    rt.sync()
    answer = rt.ask("how long is the warranty on pods pro", answerer="local")
    [warranty] = [s for s in answer.sources if s.path == "help/warranty.md"]
    assert warranty.url.startswith("https://review.example.com/docs/help/warranty.md?lines=")
    first = int(warranty.url.split("#L")[1])
    page = create_app(rt.engine).test_client().get(warranty.url.removeprefix("https://review.example.com")).text
    assert f'<div id="L{first}"><mark><span class="muted">{first}:</span>' in page
    assert "Limited warranty" in page and page.count("<mark>") >= 1
    assert create_app(rt.engine).test_client().get("/docs/help/no-such-page.md").status_code == 404


def test_the_same_question_in_other_words_is_one_gap_and_a_different_one_stays_apart(db_url, docs):
    from bot.agent.types import Answer
    from bot.logs.gaps import gaps
    from bot.logs.store import record

    rt = Runtime(load_settings(database_url=db_url, docs_dir=docs))
    rt.sync()
    asked = [
        "accidentally deleted a branch, can i get it back??",
        "recover a branch i removed by mistake",
        "how many vacation days do I get",
    ]
    for q in asked:
        record(
            rt.engine,
            Answer(q, "abstained", "I couldn't find this in the docs.", "local"),
            Origin("slack"),
            vector=rt.question_vector(q),
        )
    by_size = sorted(([q["question"] for q in g.questions] for g in gaps(rt.engine)), key=len)
    assert by_size == [[asked[2]], [asked[1], asked[0]]], "no word in common, the same meaning"


def test_an_answered_question_keeps_its_meaning_in_the_log(db_url, docs):
    from sqlalchemy import select

    from bot.logs.models import questions

    rt = Runtime(load_settings(database_url=db_url, docs_dir=docs))
    rt.sync()
    a = rt.ask("How much is express delivery?", answerer="local")
    with rt.engine.connect() as conn:
        vector = conn.execute(select(questions.c.vector).where(questions.c.id == a.log_id)).scalar()
    assert vector is not None and len(vector) == 4 + 384, "int8 codes of the encoder's 384 dimensions after their scale"


def test_the_detail_page_renders_the_answer_and_keeps_markup_in_it_as_text(db_url, docs):
    from bot.agent.types import Answer
    from bot.logs.store import record
    from bot.review.app import create_app

    rt = Runtime(load_settings(database_url=db_url, docs_dir=docs))
    text = "Returns take **30 days** [1].\n\n- unopened\n- with receipt\n\n<script>alert(1)</script> [x](javascript:alert(1))"
    qid = record(rt.engine, Answer("how long?", "answered", text, "local"), Origin("slack"))
    page = create_app(rt.engine).test_client().get(f"/questions/{qid}").text
    assert "<strong>30 days</strong> [1]" in page and "<li>unopened</li>" in page
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page
    assert 'href="javascript:' not in page
