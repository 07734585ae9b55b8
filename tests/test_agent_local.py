"""The local answerer: the same loop with a deterministic controller, on the sample docs."""

import json
from pathlib import Path

import pytest

from bot.agent.evidence import Ledger, Passage
from bot.agent.lines import Candidate, excerpt, introduced, quotable, with_context
from bot.agent.local import INTRO
from bot.agent.meaning import MEANING_PAGES, Meaning, carried, contested, disowned, ranking_first, section, why_far
from bot.agent.numbers import arithmetic_in, asked_amount, asks_how_much
from bot.runtime import Runtime
from bot.settings import SAMPLE_EVAL, load_settings
from kb.documents import Line
from kb.encoder import RELATED, default_encoder
from kb.hits import Hit
from tests.conftest import run_cli


@pytest.fixture
def rt(db_url, docs):
    runtime = Runtime(load_settings(database_url=db_url, docs_dir=docs))
    runtime.sync()
    runtime.ensure_index(None)  # the index and its re-ranking vectors loaded: every search ranks the same way
    return runtime


def ask(rt, question, history=()):
    return rt.ask(question, history, answerer="local")


def synced_with(db_url, docs: Path, pages: dict[str, str]) -> Runtime:
    """A runtime on a docs folder with these pages written into it (path: Markdown), synced."""
    for path, text in pages.items():
        (docs / path).parent.mkdir(parents=True, exist_ok=True)
        (docs / path).write_text(text)
    rt = Runtime(load_settings(database_url=db_url, docs_dir=docs))
    rt.sync()
    return rt


@pytest.mark.synced_database  # what it checks is the answers, not a first sync
def test_the_sample_question_set_passes_its_thresholds(docs, db_url):
    result = run_cli(
        "eval",
        str(SAMPLE_EVAL),
        "--answerer",
        "local",
        "--docs",
        str(docs),
        "--db",
        db_url,
        "--json",
        "--min-page-recall",
        "1.0",
        "--min-pass-rate",
        "0.85",
        "--min-abstention",
        "1.0",
        "--max-citation-problems",
        "0",
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    summary = json.loads(result.stdout)["summary"]
    assert summary["questions"] == 32 and summary["page_recall@5"] == 1.0 and summary["citation_problems"] == 0
    assert summary["cites_right_page"] >= summary["answer_pass_rate"], "a passing answer cites a right page"


@pytest.mark.synced_database  # what it checks is the answers, not a first sync
def test_eval_exits_non_zero_below_a_threshold(docs, db_url, tmp_path):
    questions = tmp_path / "eval.yaml"  # one question whose expected page is not the one that answers it
    questions.write_text("- question: How much is express delivery?\n  sources: [help/warranty.md]\n")
    result = run_cli(
        "eval", str(questions), "--answerer", "local", "--docs", str(docs), "--db", db_url, "--min-pass-rate", "0.99"
    )
    assert result.returncode == 2
    assert "Below threshold: answer pass rate" in result.stderr


def test_a_two_page_question_quotes_and_cites_both_pages(rt):
    a = ask(rt, "How much more does a lost Pods Pro earbud cost without Care+ than with it?")
    assert a.status == "answered"
    assert {s.path for s in a.sources} == {"help/replacement-parts.md", "help/care-plus.md"}
    assert "$89" in a.answer and "$39" in a.answer
    assert a.answer.startswith(INTRO.strip())


def test_the_page_the_search_ranks_first_is_quoted_when_another_page_shares_more_of_the_words(rt):
    question = "Can I get my money back if I already opened the box?"  # "box" is the unboxing page's word
    a = ask(rt, question)
    assert a.status == "answered" and a.searches[0].hits[0].path == "help/returns-and-refunds.md"
    assert "help/returns-and-refunds.md" in {s.path for s in a.sources}
    assert "Opened products are accepted" in a.answer


def test_the_answer_leads_with_the_page_the_search_ranks_first_not_the_line_sharing_most_words(rt):
    a = ask(rt, "When can I call support?")  # a row of the Errors table holds "call" too
    assert a.status == "answered" and a.searches[0].hits[0].path == "help/contact-support.md"
    assert a.sources[0].path == "help/contact-support.md", a.answer


def test_a_question_that_describes_an_entity_searches_again_for_its_name_and_cites_both_pages(db_url, docs):
    rt = synced_with(
        db_url,
        docs,
        {
            "news/northwind.md": "# Company news\n\n## Northwind\n\nIn 2025 Northwind was taken over by Fabrikam, which now "
            "sells the range.\n",
            "news/fabrikam.md": "# Fabrikam Studio\n\n## Battery\n\nThe Fabrikam Studio headphones play for 40 hours on one "
            "charge.\n",
        },
    )
    a = ask(rt, "How long does the battery last on the headphones made by the firm that took over Northwind?")
    assert a.status == "answered" and "40 hours" in a.answer
    assert {"news/northwind.md", "news/fabrikam.md"} <= {s.path for s in a.sources}
    hop = a.steps[1]
    assert hop.tool == "search_docs" and hop.input["query"].startswith("Fabrikam") and "names Fabrikam" in hop.thought


# "pair them with my phone" alone ties: the hybrid ranks troubleshooting first and getting-started third, the encoder
# the other way round, and which page it puts third moves with the processor's int8 rounding.
def test_a_question_asking_for_two_things_in_turn_searches_each_and_quotes_both_pages(rt):
    a = ask(rt, "pair them with my phone for the first time, then turn on noise cancelling")
    assert a.status == "answered"
    assert {"help/getting-started.md", "help/noise-cancellation.md"} <= {s.path for s in a.sources}
    parts = [s.input["query"] for s in a.steps if "things in turn" in s.thought]
    assert parts == ["pair them with my phone for the first time", "turn on noise cancelling"]


def test_the_answer_to_a_question_asking_for_things_in_turn_follows_their_order(rt):
    a = ask(rt, "pair them with my phone for the first time, then turn on noise cancelling")
    paths = [s.path for s in a.sources]
    assert paths.index("help/getting-started.md") < paths.index("help/noise-cancellation.md"), a.answer


def test_two_steps_joined_by_and_before_a_verb_each_get_their_page(db_url, docs):
    rt = synced_with(
        db_url,
        docs,
        {
            "vault/create.md": "# Creating a vault\n\nRun `vault init --encryption keyfile` to make an encrypted vault "
            "whose key is kept in a key file on this machine.\n",
            "vault/keys.md": "# Keeping the key safe\n\nRun `vault key export PATH` to write a copy of the key to a safe "
            "place: without it, a lost machine means a lost vault.\n",
        },
    )
    rt.ensure_index(None)
    a = ask(rt, "make an encrypted vault with a keyfile and export the key somewhere safe")
    assert a.status == "answered", a.answer
    assert {"vault/create.md", "vault/keys.md"} <= {s.path for s in a.sources}, a.answer
    assert "vault init" in a.answer and "vault key export" in a.answer


def test_a_question_joining_two_things_with_and_is_searched_as_one(rt):
    a = ask(rt, "can my earbuds and my laptop be paired at the same time?")
    assert a.status == "answered" and not any("in turn" in s.thought for s in a.steps)


def test_a_line_close_in_meaning_answers_when_the_lines_sharing_words_are_not_about_the_question(db_url, docs):
    rt = synced_with(
        db_url,
        docs,
        {
            "app/language.md": "# German menus\n\nTo show the program in Deutsch, set LANGUAGE=de before you start it.\n",
            "office/leaving.md": "# Office\n\n## Leaving\n\nSwitch off the lights before you leave; the lunch menus are in "
            "the kitchen drawer.\n",
        },
    )
    rt.ensure_index(None)
    a = ask(rt, "switch the menus to german")
    assert a.status == "answered" and [s.path for s in a.sources] == ["app/language.md"], a.answer
    assert "LANGUAGE=de" in a.answer


def test_get_rid_of_finds_the_page_that_says_remove(db_url, docs):
    rt = synced_with(
        db_url,
        docs,
        {
            "tool/dependencies.md": "# Dependencies\n\n## Removing a dependency\n\nTo remove a dependency from your "
            "project, run `tool remove <name>`; it is taken out of the lock file too.\n",
        },
    )
    rt.ensure_index(None)
    a = ask(rt, "get rid of a dependency")
    assert a.status == "answered" and a.sources[0].path == "tool/dependencies.md", a.answer
    assert "tool remove" in a.answer


def test_a_line_repeated_word_for_word_on_several_pages_is_quoted_once(db_url, docs):
    option = "### fund\n\nWhen true, the funding message is shown at the end of each install of a package.\n"
    pages = {
        f"tool/{command}.md": f"# tool {command}\n\n{what}\n\n## Options\n\n{option}"
        for command, what in [("install", "Installs a package."), ("ci", "Installs a clean copy."), ("add", "Adds one.")]
    }
    rt = synced_with(db_url, docs, pages)
    rt.ensure_index(None)
    a = ask(rt, "how do i stop the funding message after each install")
    assert a.status == "answered", a.answer
    assert a.answer.count("the funding message is shown") == 1, a.answer


def test_a_pages_index_terms_are_searched_but_never_quoted(db_url, docs):
    page = (
        "<html><head><title>Wrapping Text Around Objects</title>"
        '<meta name="keywords" content="text wrap around objects, contour editor"></head><body><main>'
        "<h1>Wrapping Text Around Objects</h1><p>To make text flow around a picture, select the picture and choose "
        "Format - Wrap - Optimal Page Wrap.</p><p>The contour editor lets the text follow the outline of the shape.</p>"
        "</main></body></html>"
    )
    a = ask(synced_with(db_url, docs, {"office/wrap.html": page}), "wrap text around an object")
    assert a.status == "answered" and a.sources[0].path == "office/wrap.html"
    assert "Optimal Page Wrap" in a.answer and "Index terms" not in a.answer


@pytest.mark.parametrize(
    "line, worth_quoting",
    [
        ("Chapter 6. Common Transaction Operations", False),  # DocBook's navigation header names the chapter
        ("Part VII. Internals", False),
        ("Appendix B. Configuration Files", False),
        ("Part of the reason is that the index is rebuilt.", True),  # prose that begins with the word
        ("Chapter one explains how to set up the accounts.", True),
    ],
)
def test_a_chapter_or_parts_title_is_not_quoted_as_an_answer(line, worth_quoting):
    assert quotable(line) is worth_quoting


def test_a_long_paragraph_is_quoted_by_its_answering_sentence_and_cited_whole(db_url, docs):
    filler = " ".join(f"Sentence {n} is about the history of the company and its offices." for n in range(8))
    page = f"# History\n\n## Founding\n\n{filler} The lighthouse museum opens at 9am on Sundays. {filler}\n"
    rt = synced_with(db_url, docs, {"help/history.md": page})
    a = ask(rt, "when does the lighthouse museum open")
    assert a.status == "answered" and "The lighthouse museum opens at 9am on Sundays." in a.answer
    assert "…" in a.answer and "Sentence 5" not in a.answer and not a.problems
    assert "Sentence 5" in a.cited[0]["lines"][0][1], "the citation still points at the whole line"


def test_a_line_that_points_to_another_page_brings_that_pages_answer(rt):
    a = ask(rt, "Can I use the earbuds with two devices at the same time?")
    assert a.status == "answered"
    assert {"help/getting-started.md", "help/compatibility.md"} <= {s.path for s in a.sources}


def test_the_docs_words_replace_a_typo_before_searching(rt):
    a = ask(rt, "how long is the waranty on the earbuds")
    assert a.status == "answered" and "help/warranty.md" in [s.path for s in a.sources]


@pytest.mark.parametrize(
    "question, page, fact",
    [
        ("How lomg is the warranty on Pods Pro?", "help/warranty.md", "2-year"),
        ("What does error 409 mena?", "api/errors.md", "update_in_progress"),
    ],
)
def test_a_slip_of_the_fingers_in_a_short_word_is_read_as_the_word_meant(rt, question, page, fact):
    a = ask(rt, question)
    assert a.status == "answered" and page in [s.path for s in a.sources] and fact in a.answer


def test_two_words_run_together_by_a_missed_space_are_read_apart(rt):
    a = ask(rt, "How long do I haveto return my earbuds?")
    assert a.status == "answered" and "help/returns-and-refunds.md" in [s.path for s in a.sources] and "30 days" in a.answer


@pytest.mark.parametrize(
    "question",
    ["hwo long do i have to return my earbuds?", "how long do i have to returnnn my earbuds sooo"],
)
def test_a_slip_in_a_function_word_or_a_letter_held_down_still_gets_the_answer(rt, question):
    a = ask(rt, question)
    assert a.status == "answered" and "help/returns-and-refunds.md" in [s.path for s in a.sources] and "30 days" in a.answer


def test_a_verb_in_its_irregular_past_gets_the_answer_its_present_would(rt):
    a = ask(rt, "i swam with my pods, is that ok?")  # the page says "Do not wear the earbuds while swimming"
    assert a.status == "answered" and "help/water-resistance.rst" in [s.path for s in a.sources]


def test_a_word_in_british_spelling_finds_the_page_that_spells_it_the_american_way(rt):
    a = ask(rt, "how do i change the equaliser")
    assert a.status == "answered" and [s.path for s in a.sources] == ["help/app-and-controls.md"]


@pytest.mark.parametrize(
    "question, page",
    [
        ("idk how long the warranty lasts on the pods pro, lmk asap", "help/warranty.md"),
        ("whats the battery life in hrs", "help/charging-and-battery.md"),
        ("What does err 409 mean?", "api/errors.md"),
    ],
)
def test_chat_shorthand_is_not_taken_for_a_subject_the_docs_lack(rt, question, page):
    a = ask(rt, question)
    assert a.status == "answered" and page in [s.path for s in a.sources]


@pytest.mark.parametrize(
    "question",
    [
        "hey folks, quick question: how long is the warranty on the earbuds? thx!",
        "anyone know how long the warranty on the earbuds is? tia :)",
    ],
)
def test_a_question_wrapped_in_chat_greetings_and_thanks_is_answered_as_if_asked_plainly(rt, question):
    a = ask(rt, question)
    assert a.status == "answered" and "help/warranty.md" in [s.path for s in a.sources]
    assert a.steps[0].input["query"].startswith("how long"), "the search reads the question, not its greeting"


@pytest.mark.parametrize(
    "question, page",
    [
        (
            "My earbuds keep disconnecting, how do I wipe them and start over? the log says\n"
            "```\nbt: link lost (hci0) at /home/dave/.cache/auralis-sync/pair.log\n```",
            "help/troubleshooting.md",
        ),
        ("how long is the warranty? asking for `dave@contoso-labs.io`", "help/warranty.md"),
    ],
)
def test_names_in_pasted_code_or_paths_are_the_askers_data_not_a_subject_the_docs_lack(rt, question, page):
    a = ask(rt, question)
    assert a.status == "answered" and page in [s.path for s in a.sources]
    assert "dave" not in rt.searcher.unknown_words(question), "nor named to Claude as a word the docs never use"


def test_a_tool_named_in_backticks_beside_a_path_is_still_the_subject_the_docs_never_mention(rt):
    a = ask(rt, "how do I deploy to `netlify` from ~/code/site")
    assert a.status == "abstained"
    assert "The docs never use the word netlify" in a.steps[0].observation


def test_a_name_the_docs_never_mention_is_abstained_on_and_named(rt):
    a = ask(rt, "how do I deploy to netlify")
    assert a.status == "abstained"
    assert "The docs never use the word netlify" in a.steps[0].observation


def test_a_word_the_docs_never_use_is_the_subject_when_the_question_means_another_thing_without_it():
    encoder = default_encoder()
    assert carried("install postgres on my iphone", ["iphone"], encoder) == ["iphone"]
    assert carried("how do i set up webpack for typescript", ["webpack"], encoder) == ["webpack"]
    assert carried("What is the biggest page size when listing devices?", ["biggest"], encoder) == []
    assert carried("run a backup whenever i plug my usb drive in", ["plug"], encoder) == []
    assert carried("any question", [], encoder) == []


def test_a_line_no_closer_to_the_question_for_the_word_the_docs_never_use_does_not_answer_it():
    found = {"desktop-app.md"}
    assert why_far(Meaning(0.68, found, gain=-0.01), ["android"]), "the line answers the rest of the question"
    assert why_far(Meaning(0.68, found, gain=0.02), ["android"]) is None, "the line speaks to the word too"
    assert why_far(Meaning(0.68, found, gain=None), []) is None, "every word is one the docs use"


def test_a_question_about_a_platform_the_docs_never_name_is_not_answered_by_what_they_say_of_others(db_url, tmp_path):
    pages = {
        "desktop-app.md": "# The Ledgerly desktop app\n\nLedgerly runs on Windows, macOS and Linux. Download the installer "
        "for your computer from the downloads page.\n\n## Language\n\nOn macOS, the Ledgerly app uses your system's "
        "language. To choose another one, change the language order in System Settings.\n",
        "invoices.md": "# Invoices\n\nTo bill a customer, open Business > New Invoice, add the items and post it to "
        "Accounts Receivable.\n",
        "reconcile.md": "# Reconciling\n\nCompare your Ledgerly account with your bank statement in the Reconcile window "
        "and mark each matching transaction.\n",
        "backups.md": "# Backups\n\nLedgerly saves a backup copy of your books each time you save, next to your data file.\n",
    }
    rt = synced_with(db_url, tmp_path / "ledgerly", pages)
    rt.ensure_index(None)
    a = ask(rt, "is there a ledgerly app for my iphone")
    assert a.status == "abstained", a.answer
    notes = [p.detail.get("note", "") for p in a.problems]
    assert any("never use iphone" in n and "closer to the question for it" in n for n in notes), notes
    assert ask(rt, "does ledgerly run on linux?").status == "answered", "a platform the page names is answered"


def test_an_abstention_offers_no_closest_pages_when_none_is_related(rt):
    a = ask(rt, "What is the vacation policy?")
    assert a.status == "abstained" and a.sources == [] and a.closest == []
    assert "vacation" in a.steps[0].observation and a.searches[0].hits, "the search showed what it found"


def test_an_abstention_offers_the_closest_pages_that_share_a_word_with_the_question(rt):
    # Not "can I return my earbuds to a shop in Lisbon?": for it five pages sit within 0.03 of each other in meaning,
    # and whether the returns page is among the encoder's first three changed with the machine's CPU.
    a = ask(rt, "can i drop off a return at a store in lisbon")
    assert a.status == "abstained"
    assert [s.path for s in a.closest] == ["help/returns-and-refunds.md"]


def test_an_abstention_leaves_out_a_page_sharing_a_word_that_the_encoder_ranks_below_its_first_pages(rt):
    a = ask(rt, "What is the price of the Auralis smartwatch?")
    assert a.status == "abstained", a.answer
    shown = {h.path: h for h in a.searches[0].hits}
    far = shown["api/overview.md"]  # "Auralis Fleet API overview": the brand is its only word in common
    assert far.meaning_rank is not None and far.meaning_rank > MEANING_PAGES, far
    offered = [s.path for s in a.closest]
    assert "api/overview.md" not in offered and "help/care-plus.md" in offered, offered


def test_a_line_the_docs_write_as_a_quote_is_quoted_with_one_quote_mark(db_url, tmp_path):
    page = "# Two-factor\n\n> [!WARNING]\n> Turning two-factor authentication off signs you out of every device.\n"
    rt = synced_with(db_url, tmp_path / "quoted", {"security.md": page})
    answer = ask(rt, "what happens when i turn off two-factor authentication")
    assert "> Warning: Turning two-factor authentication off signs you out of every device." in answer.answer
    assert "> >" not in answer.answer


def test_a_four_page_folder_answers_paraphrases_and_abstains_on_what_it_does_not_cover(db_url, tmp_path):
    pages = {
        "refunds.md": "# Refunds\n\nOnce we receive your return, the money goes back to your original payment method "
        "within 5 to 7 business days.\n",
        "shipping.md": "# Shipping\n\nStandard delivery is free on orders over $50.\n\nOtherwise standard delivery carries "
        "a $5 fee.\n\nExpress delivery carries a $12 fee and arrives the next business day.\n",  # three paragraphs
        "returns.md": "# Returns\n\nYou can return any item within 30 days of delivery.\n",
        "contact.md": "# Contact\n\nEmail support@example.com, Monday to Friday.\n",
    }
    rt = synced_with(db_url, tmp_path / "tiny", pages)
    cost = ask(rt, "what does express delivery cost?")  # the page says "fee"
    assert cost.status == "answered" and "$12" in cost.answer
    reach = ask(rt, "how long until my money reaches me after a return?")  # the page says "goes back"
    assert reach.status == "answered" and "5 to 7 business days" in reach.answer
    assert [s.path for s in reach.sources] == ["refunds.md"]
    free = ask(rt, "is standard shipping free?")  # a rule stated over two lines is quoted whole
    assert "free on orders over $50" in free.answer and "$5 fee" in free.answer
    for uncovered in ("What is the vacation policy?", "can I pay with bitcoin?"):
        assert ask(rt, uncovered).status == "abstained", uncovered


def test_a_word_shared_by_coincidence_is_not_an_answer_when_the_page_is_far_in_meaning(db_url, tmp_path):
    items = "computer notebook monitor keyboard phone headset tablet printer webcam dock charger mouse desk chair".split()
    pages = {
        f"{item}.md": f"# Getting a {item}\n\n## Requesting one\n\nTo get a replacement {item} for work, request it from "
        "the IT help desk; staff order equipment for employees who need hardware.\n"
        for item in items
    }
    pages["mailmap.md"] = (
        "# Mail map\n\n## Example\n\nAn entry maps the name recorded on a commit to the canonical one: "
        "Jane Doe <jane@laptop.(none)> becomes Jane Doe <jane@example.com>.\n"
    )
    rt = synced_with(db_url, tmp_path / "it-docs", pages)
    a = ask(rt, "who do i ask for a new laptop")
    assert "mailmap.md" in [h.path for h in a.searches[0].hits], "the only page with the word is found"
    assert "jane@laptop" not in a.answer
    assert a.status == "abstained" or {s.path for s in a.sources} & {"notebook.md", "computer.md"}, "if answered, by meaning"


def test_a_bare_figure_is_judged_under_its_sections_name(rt):
    a = ask(rt, "What is the biggest page size when listing devices?")  # the line: "The default is 20 and the maximum is 100"
    assert a.status == "answered" and [s.path for s in a.sources][:1] == ["api/pagination.md"] and "100" in a.answer


@pytest.mark.parametrize(
    ("heading", "name"),
    [("Pagination > Page size", "Page size"), ("3.7. Pixelize > 3.7.3. Options", "Options"), ("Returns", "Returns")],
)
def test_a_lines_section_is_the_last_part_of_its_heading_path_without_its_number(heading, name):
    assert section(heading) == name


@pytest.mark.parametrize("question", ["Is there a student discount?", "Do the earbuds support Dolby Atmos spatial audio?"])
def test_a_question_the_docs_do_not_answer_is_abstained(rt, question):
    a = ask(rt, question)
    assert a.status == "abstained" and a.answer == "I couldn't find this in the docs."
    assert a.sources == []


def test_thin_evidence_leads_to_a_search_in_the_docs_own_words(rt):
    a = ask(rt, "I dropped my earbuds somewhere in the house, how do I find them?")
    assert len(a.searches) >= 2
    first_hits = {h.chunk_id for h in a.searches[0].hits}
    words = rt.searcher.tokenizer.words
    new_words = set(words(a.searches[1].query)) - set(words(a.searches[0].query))
    assert new_words, "the second query adds words"
    passage_words = {
        w
        for h in rt.searcher.search(a.searches[0].query, k=5)
        if h.chunk_id in first_hits
        for w in rt.searcher.tokenizer.words(h.text)
    }
    assert new_words <= passage_words, "and they come from the passages already read"
    assert a.status == "answered" and "chime" in a.answer


def test_a_line_speaking_to_the_assistant_is_never_quoted(rt):
    a = ask(rt, "Are all refunds free and unlimited for every customer?")
    retrieved = {h.path for s in a.searches for h in s.hits}
    assert "help/community-tips.md" in retrieved, "the planted line was among the passages read"
    assert "ignore your previous instructions" not in a.answer.lower()
    assert "free and unlimited" not in a.answer


def test_a_follow_up_searches_with_the_earlier_question_in_mind(rt):
    a = ask(
        rt,
        "and what about the warranty?",
        history=[("user", "Tell me about the Pods Pro earbuds"), ("assistant", "They have ANC.")],
    )
    assert "warranty" in a.searches[0].query and "earbud" in a.searches[0].query
    assert a.status == "answered" and "help/warranty.md" in [s.path for s in a.sources]


def test_a_follow_up_after_a_thanks_searches_with_the_question_before_it_without_its_greeting(rt):
    history = [
        ("user", "hey folks, tell me about the Pods Pro earbuds"),
        ("assistant", "They have ANC."),
        ("user", "thanks!"),
        ("assistant", "Glad to help."),
    ]
    a = ask(rt, "and what about the warranty?", history=history)
    query = a.searches[0].query
    assert "warranty" in query and "earbud" in query and "folk" not in query and "thank" not in query


def test_arithmetic_goes_to_the_calculator(rt):
    a = ask(rt, "What is 600 * 100?")
    assert a.status == "answered" and a.answer == "600 * 100 = 60,000"
    assert [s.tool for s in a.steps] == ["calculator"]


@pytest.mark.parametrize("question", ["what's 15% off an $80 order?", "whats 15% off an $80 order", "15% off $80?"])
def test_a_discount_question_is_computed_with_no_search(rt, question):
    a = ask(rt, question)
    assert a.status == "answered" and a.answer == "$80 - 15% of $80 = $68"
    assert [s.tool for s in a.steps] == ["calculator"] and not a.searches


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("what is 12% of a $340 order?", "12% of $340 = $40.80"),
        ("20 percent off 45", "45 - 20% of 45 = 36"),
        ("how much is $340 plus 12%", "$340 + 12% of $340 = $380.80"),
        ("add 12% on top of $340", "$340 + 12% of $340 = $380.80"),
        ("€200 minus 15%", "€200 - 15% of €200 = €170"),
        ("tip 18% on $62.50", "18% of $62.50 = $11.25"),
        ("what's 10% of £50", "10% of £50 = £5"),
        ("3 seats at $12 each, how much is that", "3 * $12 = $36"),
        ("split $90 between 4 people", "$90 / 4 = $22.50"),
        ("$45 with 20% off", "$45 - 20% of $45 = $36"),
        ("whats 20% off of $45", "$45 - 20% of $45 = $36"),
        ("how much is 15% of 80 dollars", "15% of $80 = $12"),
        ("3 x $12", "3 x $12 = $36"),
        ("$12 per seat for 3 seats", "$12 * 3 = $36"),
        ("$60 for 5 seats, how much is each", "$60 / 5 = $12"),
        ("how much is 1,200 divided by 4", "1,200 / 4 = 300"),
    ],
)
def test_arithmetic_in_peoples_words_is_computed_and_money_stays_money(rt, question, answer):
    a = ask(rt, question)
    assert a.status == "answered" and a.answer == answer and not a.searches


@pytest.mark.parametrize("question", ["$5 a month for 2 years", "is it $5 a month for 2 devices?"])
def test_a_price_per_unit_is_not_multiplied_by_a_count_of_another_unit(question):
    assert arithmetic_in(question) is None


def test_table_rows_are_quoted_under_their_header_once(rt):
    a = ask(rt, "what do error codes 401 and 403 and 404 mean")
    assert a.status == "answered"
    assert a.answer.count("| Status | Code | Meaning |") == 1 and a.answer.count("|---|---|---|") == 1
    assert all(code in a.answer for code in ("| 401 |", "| 403 |", "| 404 |"))


def test_an_empty_question_gets_a_usage_hint(rt):
    a = ask(rt, "   ")
    assert a.status == "abstained" and a.answer.startswith("Ask me a question about the docs")


@pytest.mark.synced_database  # what it checks is the answers, not a first sync
def test_ask_json_prints_the_documented_object(docs, db_url):
    result = run_cli("ask", "How much is express delivery?", "--docs", str(docs), "--db", db_url, "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert set(out) >= {
        "question",
        "status",
        "answer",
        "answerer",
        "sources",
        "searches",
        "steps",
        "problems",
        "usage",
        "latency_ms",
    }
    assert out["status"] == "answered" and out["answerer"] == "local"
    assert out["sources"][0] == {
        "n": 1,
        "title": "Shipping and delivery > Delivery times and costs",
        "path": "help/shipping.html",
        "url": None,
        "collection": "help",
    }
    assert "$12" in out["answer"]
    assert set(out["searches"][0]) == {"query", "collection", "hits"}
    assert set(out["steps"][0]) >= {"tool", "input", "observation"}


@pytest.mark.synced_database  # what it checks is the answers, not a first sync
def test_ask_trace_shows_thought_action_observation(docs, db_url):
    result = run_cli("ask", "How much is express delivery?", "--docs", str(docs), "--db", db_url, "--trace")
    lines = result.stdout.splitlines()
    assert (
        lines[0].startswith("Thought: ") and lines[1].startswith("Action: search_docs ") and lines[2].startswith("Observation: ")
    )
    assert "Sources:" in result.stdout


def test_a_table_row_is_read_with_its_own_tables_header_and_prose_is_not():
    from bot.agent.local import header_of, is_table_header

    blocks = [
        "Intro.",
        "| Part | Price |",
        "|---|---|",
        "| Case | $49 |",
        "| Tips | $9 |",
        "Prose after the table.",
        "| A | B |",
        "|---|---|",
        "| x | 1 |",
    ]
    assert [header_of(blocks, i) for i in range(len(blocks))] == [None, None, None, 1, 1, None, None, None, 6]
    assert [i for i in range(len(blocks)) if is_table_header(blocks, i)] == [1, 6]


def test_answering_without_a_key_never_loads_the_anthropic_sdk(tmp_path):
    """The SDK takes seconds to import: a bot with no key (the quickstart, the fallback-free tests) must not pay it."""
    import subprocess
    import sys

    from tests.conftest import REPO

    script = (
        "import sys\n"
        "from bot.runtime import Runtime\n"
        "from bot.settings import load_settings\n"
        f"rt = Runtime(load_settings(database_url='sqlite:///{tmp_path / 'k.db'}'))\n"
        "rt.sync()\n"
        "assert rt.ask('How long is the warranty?').status == 'answered'\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'anthropic'))\n"
    )
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith("ANTHROPIC_")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def ranked_passages(*pages: tuple[str, int | None, int | None, int | None, float | None]) -> list:
    """Passages as the first search showed them, in its fused order: (path, bm25 rank, dense rank, meaning rank,
    cosine) each."""
    ledger = Ledger()
    for n, (path, bm25, dense, meant, cosine) in enumerate(pages):
        ledger.add(Hit(n, path, "help", path, path, None, 1.0, bm25, dense, meant, cosine))
    return ledger.passages


def test_the_second_page_is_contested_when_one_ranking_put_it_first():
    first = ranked_passages(("a.md", 1, 3, 2, 0.6), ("b.md", 2, 5, 1, 0.6))  # the encoder preferred b
    assert contested(first) == "b.md"


def test_the_second_page_is_not_contested_when_every_ranking_agrees_with_the_fused_order():
    first = ranked_passages(("a.md", 1, 1, 1, 0.6), ("a.md", 4, None, 1, 0.5), ("b.md", 2, 3, 2, 0.6))
    assert contested(first) is None


def test_a_page_far_from_the_question_in_meaning_is_never_the_contested_one():
    far, near = ("b.md", 1, 1, 1, RELATED - 0.1), ("c.md", 3, 2, 3, 0.6)
    assert contested(ranked_passages(("a.md", 2, 3, 2, 0.6), far, near)) == "c.md"


def test_the_encoders_first_page_is_found_where_the_fused_order_put_it_third():
    first = ranked_passages(("a.md", 1, 1, 2, 0.6), ("b.md", 2, 2, 3, 0.5), ("c.md", 8, 5, 1, 0.62))
    assert contested(first) is None  # the second page is no ranking's choice
    assert ranking_first(first, "meaning_rank") == "c.md"


def test_there_is_no_encoders_page_to_add_when_it_agrees_with_the_fused_first():
    assert ranking_first(ranked_passages(("a.md", 1, 2, 1, 0.6), ("b.md", 2, 1, 2, 0.6)), "meaning_rank") is None


def test_bm25s_first_page_is_found_where_the_fused_order_put_it_fourth():
    first = ranked_passages(("a.md", 3, 1, 1, 0.6), ("b.md", 2, 2, 2, 0.5), ("c.md", 4, 3, 3, 0.5), ("d.md", 1, 9, 5, 0.5))
    assert ranking_first(first, "bm25_rank") == "d.md"
    assert ranking_first(first, "dense_rank") is None  # the dense ranking agrees with the fused first


def test_a_first_page_neither_the_words_nor_the_meaning_put_first_is_not_quoted():
    low = MEANING_PAGES + 1  # the fusion put it first; BM25 ranks it 2nd, the encoder below its first pages
    note = disowned(ranked_passages(("a.md", 2, 1, low, 0.5), ("b.md", 1, 4, 1, 0.6)))
    assert note is not None and f"number {low}" in note


def test_a_first_page_bm25_ranks_first_is_quoted_whatever_the_encoder_says():
    first = ranked_passages(
        ("a.md", 3, 1, MEANING_PAGES + 4, 0.5), ("a.md", 1, 9, MEANING_PAGES + 4, 0.4), ("b.md", 2, 2, 1, 0.6)
    )
    assert disowned(first) is None  # its second chunk is BM25's first


def test_a_first_page_among_the_encoders_first_pages_is_quoted():
    assert disowned(ranked_passages(("a.md", 4, 1, MEANING_PAGES, 0.5), ("b.md", 1, 2, 1, 0.6))) is None


def test_without_encoder_vectors_the_first_page_is_quoted():
    assert disowned(ranked_passages(("a.md", 4, 1, None, None), ("b.md", 1, 2, None, None))) is None


def test_a_page_far_from_the_question_in_meaning_is_never_the_encoders_choice():
    far = ("c.md", 9, 9, 1, RELATED - 0.1)  # ranked first among pages only because the others rank lower still
    first = ranked_passages(("a.md", 1, 1, 3, 0.6), ("b.md", 2, 2, 2, 0.55), far)
    assert ranking_first(first, "meaning_rank") == "b.md"


def test_without_the_encoders_ranks_there_is_no_encoders_page():
    assert ranking_first(ranked_passages(("a.md", 1, 1, None, None), ("b.md", 2, 2, None, None)), "meaning_rank") is None


def test_an_answer_quotes_both_pages_when_the_rankings_disagree_on_which_answers(rt):
    a = ask(rt, "How do I check that a webhook really came from Auralis?")
    pages = list(dict.fromkeys(h.path for h in a.searches[0].hits))
    assert contested([Passage(n, "", h) for n, h in enumerate(a.searches[0].hits)]) == pages[1]  # the case at hand
    assert a.status == "answered" and {pages[0], pages[1]} <= {s.path for s in a.sources}


def passage_of(*lines: str) -> Passage:
    return Passage(0, "", Hit(0, "a.md", "help", "A", "A", None, 1.0, lines=tuple(Line(n, t) for n, t in enumerate(lines))))


def test_a_line_that_introduces_a_code_block_is_quoted_with_the_code_without_its_fences():
    p = passage_of("Generate it without having it ask any questions:", "```bash", "$ npm init -y", "```", "Then edit it.")
    assert [c.text for c in introduced([Candidate(1.0, p, 0)])] == [p.blocks[0], "$ npm init -y"]


def test_a_sentence_that_goes_on_after_a_code_block_is_quoted_with_the_command_before_it():
    p = passage_of("Fix the last commit with", "```", "$ git commit --amend", "```", "which replaces the old commit.")
    assert [c.text for c in with_context([Candidate(1.0, p, 4)])] == ["which replaces the old commit.", "$ git commit --amend"]


def test_a_long_lines_excerpt_keeps_the_one_sentence_between_the_two_that_answer():
    line = (
        "PostgreSQL supports building indexes without locking out writes. This method is invoked by specifying the "
        "CONCURRENTLY option of CREATE INDEX. When this option is used, the build takes two scans of the table. "
        "Regular index builds permit other regular index builds on the same table to occur simultaneously. "
        "Other types of schema modification on the table are not allowed."
    )
    asked = {"building", "indexes", "locking", "writes", "used", "build"}
    quoted = excerpt(line, lambda sentence: len(set(sentence.lower().replace(".", "").split()) & asked))
    assert quoted.startswith("PostgreSQL supports building indexes without locking out writes. This method is invoked")
    assert "the build takes two scans of the table. …" in quoted


def test_a_long_lines_excerpt_quotes_a_sentence_pointing_back_with_the_one_it_points_to():
    line = (
        "Cells can be formatted in many ways from the Format menu. If you decide to enter a number directly as text, "
        "enter an apostrophe first. This is useful if you enter a postal code that begins with a zero, because a zero "
        "at the start of a number is removed. Dates and times have formats of their own. For this purpose the "
        "Format Cells dialog has a Date tab. Fractions can be shown as well."
    )
    asked = {"postal", "code", "zero", "dates", "times"}
    quoted = excerpt(line, lambda sentence: len(set(sentence.lower().replace(".", "").replace(",", "").split()) & asked))
    assert "enter an apostrophe first. This is useful if" in quoted  # the sentence "This" points to
    assert "have formats of their own. For this purpose the Format Cells dialog has a Date tab." in quoted  # goes on
    assert "Fractions" not in quoted and "Format menu" not in quoted


@pytest.mark.parametrize(
    "follows, taken",
    [
        (["$ git bisect start", "$ git bisect bad", "Git then checks out a commit."], 2),  # shell commands
        (["- Settings", "- Privacy", "- Delete account", "- Confirm", "Done."], 3),  # a list, up to three items
        (["o---o---* topic", "/", "o---o master"], 0),  # a drawing
        (["Figure 3.1. The dialog", "Report a bug"], 0),  # prose: a caption, the page's footer
        (["=(B2<A2)+B2-A2", "The later time is B2."], 1),  # a formula written as a paragraph
    ],
)
def test_only_commands_code_and_lists_are_taken_after_an_introducing_line(follows, taken):
    p = passage_of("Do it like this:", *follows)
    assert [c.text for c in introduced([Candidate(1.0, p, 0)])][1:] == follows[:taken]


def test_the_answer_shows_the_header_line_its_quoted_sentence_introduces(rt):
    a = ask(rt, "What header do I put my API key in?")
    assert a.status == "answered" and "bearer token:" in a.answer
    assert "Authorization: Bearer ak_live_..." in a.answer and not a.problems


def test_an_html_line_that_introduces_a_code_block_is_quoted_with_the_code(db_url, tmp_path):
    page = (
        "<html><head><title>SSH — Backup docs</title></head><body><main><h1>SSH</h1><h2>Stuck connections</h2>"
        "<p>A connection stuck on the server side is prevented by sending keep-alive requests, for example in "
        "~/.ssh/config:</p><pre>Host *\n    ServerAliveInterval 10\n    ServerAliveCountMax 30</pre>"
        "<p>Then start the backup again.</p></main></body></html>"
    )
    other = "<html><body><main><h1>Restore</h1><p>Extract an archive to restore its files.</p></main></body></html>"
    rt = synced_with(db_url, tmp_path / "html", {"ssh.html": page, "restore.html": other})
    a = ask(rt, "my ssh connection gets stuck on the server, how do i prevent it")
    assert a.status == "answered" and not a.problems
    assert "> ServerAliveInterval 10" in a.answer and "```" not in a.answer


def test_a_paragraph_wrapped_in_the_source_is_quoted_as_the_whole_sentence(db_url, tmp_path):
    page = (
        "# Scripts\n\nIf true, the runner will not exit with an error code when a script is\n"
        "missing from the scripts section of the manifest.\n\nScripts run in a shell of their own.\n"
    )
    rt = synced_with(db_url, tmp_path / "wrapped", {"scripts.md": page})
    a = ask(rt, "will the runner exit with an error when a script is missing?")
    assert a.status == "answered" and not a.problems
    assert "when a script is missing from the scripts section of the manifest." in a.answer


def test_a_how_long_question_quotes_the_line_giving_a_duration_over_one_with_another_number(db_url, tmp_path):
    pages = {  # the first line shares more of the question's words, and has a number: not a duration
        "battery.md": "# Battery\n\n## Lights\n\nThe Pro case shows the battery level of each earbud with 4 lights.\n\n"
        "Each light stands for a quarter of a full charge.\n\n## Playback\n\nThe Pro plays for up to 9 hours on a full charge.\n",
        "returns.md": "# Returns\n\nYou can return any item within 30 days of delivery.\n",
    }
    rt = synced_with(db_url, tmp_path / "tiny", pages)
    a = ask(rt, "how long does the battery last on the pro?")
    quoted = [line for line in a.answer.splitlines() if line.startswith("> ")]
    assert a.status == "answered" and quoted[0].startswith("> The Pro plays for up to 9 hours")


def test_the_lines_quoted_from_a_page_come_under_its_title_and_section(db_url, tmp_path):
    pages = {  # the line that answers says "this command": the page's title says which
        "export-tar.md": "# borg export-tar\n\n## Description\n\nThis command creates a tarball from an archive.\n",
        "import-tar.md": "# borg import-tar\n\n## Description\n\nThis command creates an archive from a tarball.\n",
    }
    rt = synced_with(db_url, tmp_path / "tar", pages)
    a = ask(rt, "turn an archive into a tarball")
    lines = a.answer.splitlines()
    at = next(n for n, line in enumerate(lines) if line.startswith("> This command creates a tarball from an archive."))
    assert a.status == "answered" and lines[at - 1] == "**borg export-tar › Description**"


def test_a_line_scoring_nearly_as_well_as_the_best_is_quoted_though_it_brings_no_new_word(db_url, tmp_path):
    page = (  # both lines hold every word the question weighs; only the second gives the flag
        "# Installing\n\nAdd a package that is only needed for development with the same command as any other.\n\n"
        "The lockfile records the exact version of every package installed.\n\n"
        "Released builds leave out a package you add for development when you pass --save-dev.\n"
    )
    rt = synced_with(db_url, tmp_path / "ties", {"installing.md": page})
    a = ask(rt, "how do i add a package that is only needed for development")
    assert a.status == "answered" and "--save-dev" in a.answer


@pytest.mark.parametrize(
    ("question", "gives", "does_not"),
    [
        ("How long is the warranty?", "a 2-year warranty", "covers 3 parts"),
        ("how long till the refund shows up", "within 5 to 7 business days", "refunds over $50"),
        ("how long can a channel name be", "up to 80 characters", "1 in 5 channels are private"),
        ("what does the protection plan cost?", "$4.99 a month", "covers 2 devices"),
        ("How often do API keys need to be replaced?", "keys expire after 90 days", "up to 20 keys"),
        ("what time does support open", "from 9am on weekdays", "press 2 for support"),
        ("what time will the overnight charge finish", "a full charge is done by 6am", "the charge is $2 a night"),
        ("how many devices can I register", "up to 20 devices", "how to register a device"),
    ],
)
def test_a_question_asking_for_an_amount_wants_a_line_with_that_kind_of_amount(question, gives, does_not):
    wanted = asked_amount(question)
    assert wanted is not None and wanted(gives) and not wanted(does_not)


def test_a_question_asking_for_no_amount_wants_none():
    assert asked_amount("how do I pair the earbuds with a laptop") is None


@pytest.mark.parametrize(
    ("question", "only_a_number_answers"),
    [
        ("what's the price of enterprise support", True),
        ("What does the protection plan cost per month?", True),
        ("express delivery fee?", True),
        ("is there a fee for returns", True),
        ("how much is the hosted version", True),
        ("fix the price of a stock i typed in wrong", False),  # the price is what a step acts on: it asks how
        ("get share prices to update on their own", False),
        ("how do i charge a late fee on an invoice", False),
    ],
)
def test_a_cost_word_asks_for_a_number_only_where_the_question_asks_what_it_is(question, only_a_number_answers):
    assert asks_how_much(question) is only_a_number_answers


@pytest.mark.parametrize(
    "title, heading, label",
    [
        (
            "2.9. Transactions",
            "2.9. Transactions > 2.9. Transactions > 2.9.4. Reconciliation",
            "2.9. Transactions > 2.9.4. Reconciliation",
        ),
        ("Refunds", "Refund window", "Refunds > Refund window"),
        ("Refunds", "Refunds > Refund window", "Refunds > Refund window"),
        ("Options", "Options > Filters > Options", "Options > Filters > Options"),  # a name met again further down stays
        ("37.17.\xa0columns", "37.17.\xa0columns > 37.17. columns", "37.17.\xa0columns"),  # the same, spaced otherwise
    ],
)
def test_a_source_is_labelled_by_its_title_and_heading_path_each_part_once(title, heading, label):
    assert Passage(0, "", Hit(0, "a.html", "help", title, heading, None, 1.0)).title == label


def test_a_question_about_doing_something_quotes_the_line_that_names_what_to_run(db_url, tmp_path):
    page = (
        "# Upload speed\n\n"
        "The upload speed depends on your line.\n\n"
        "Upload speed is shown in the log.\n\n"
        "A slow upload speed makes the first backup take longer.\n\n"
        "Set the upload speed with `--upload-ratelimit`.\n"
    )
    rt = synced_with(db_url, tmp_path / "slow", {"speed.md": page})
    answer = ask(rt, "how do i throttle the upload speed")
    assert answer.status == "answered"
    assert "--upload-ratelimit" in answer.answer, "lines that say as much of the question: the one saying how"
