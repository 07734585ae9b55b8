"""Links land on the section: each site generator's heading anchors and page paths, checked against the
generators' own code where it is Python (Python-Markdown for MkDocs, docutils for Sphinx) and against
github-slugger's documented cases for GitHub, Docusaurus and Hugo."""

import pytest
from docutils.core import publish_doctree
from docutils.nodes import section

from kb.anchors import Anchors, site_path
from kb.links import page_url
from kb.loaders.markdown import load_markdown

HEADINGS = [
    "Refund window",
    "What’s new in 2.0?",
    "Ünïcode & Café",
    "1. Getting started",
    "C++ / C# tips",
    "foo  --  bar",
    "Setup",
    "Setup",
    "Setup_1",
    "Setup",
]


def markdown_anchors(headings, style):
    doc = load_markdown("".join(f"## {h}\n\ntext\n\n" for h in headings), "page.md", style)
    return [s.anchor for s in doc.sections if s.heading]


def test_mkdocs_anchors_are_python_markdowns_own():
    markdown = pytest.importorskip("markdown", reason="the test extra installs Python-Markdown")
    import re

    md = markdown.Markdown(extensions=["toc"])
    html = md.convert("".join(f"## {h}\n\ntext\n\n" for h in HEADINGS))
    assert markdown_anchors(HEADINGS, "mkdocs") == re.findall(r'<h2 id="([^"]*)"', html)


def test_sphinx_anchors_are_docutils_own():
    rst = "Page\n====\n\n" + "".join(f"{h}\n{'-' * (len(h) + 4)}\n\ntext\n\n" for h in HEADINGS)
    ids = [node["ids"][0] for node in publish_doctree(rst).findall(section)]
    assert markdown_anchors(HEADINGS, "sphinx") == ids


@pytest.mark.parametrize("style", [None, "github", "docusaurus", "hugo"])
def test_github_style_anchors_follow_github_slugger(style):
    cases = ["Foo Bar", "foo", "foo", "foo-1", "😄 emoji", "Привет non-latin", "a - b", "Hello, World!", "under_score"]
    expected = ["foo-bar", "foo", "foo-1", "foo-1-1", "-emoji", "привет-non-latin", "a---b", "hello-world", "under_score"]
    anchors = Anchors(style)
    assert [anchors(c) for c in cases] == expected


@pytest.mark.parametrize("style", [None, "docusaurus", "mkdocs", "hugo"])
def test_an_explicit_heading_id_is_the_anchor_where_the_generator_reads_one(style):
    [sec] = [s for s in load_markdown("## Install it {#custom-id}\n\ntext\n", "p.md", style).sections if s.heading]
    assert (sec.heading, sec.anchor) == ("Install it", "custom-id")
    [plain] = [s for s in load_markdown("## Install it {#custom-id}\n\ntext\n", "p.md", "github").sections if s.heading]
    assert plain.anchor == "install-it-custom-id", "GitHub shows the braces as text"


@pytest.mark.parametrize(
    ("style", "path", "served"),
    [
        (None, "guide/install.md", "guide/install"),
        (None, "guide/index.md", "guide"),
        ("github", "guide/README.md", "guide/README.md"),
        ("mkdocs", "guide/install.md", "guide/install/"),
        ("mkdocs", "index.md", ""),
        ("docusaurus", "01-guide/02-install.md", "guide/install"),
        ("docusaurus", "guide/index.mdx", "guide"),
        ("sphinx", "guide/install.rst", "guide/install.html"),
        ("sphinx", "index.md", "index.html"),
        ("hugo", "Guide/Install.md", "guide/install/"),
        ("hugo", "guide/_index.md", "guide/"),
        ("sphinx", "api/page.html", "api/page.html"),
    ],
)
def test_each_generator_serves_a_file_at_its_own_path(style, path, served):
    assert site_path(path, style) == served


def test_front_matter_slug_and_id_move_a_page_where_the_generator_moves_it():
    def url(front, style, path="guide/install.md"):
        doc = load_markdown(f"---\n{front}\n---\n\n# T\n\ntext\n", path, style)
        return page_url("https://docs.example.com/", path, doc.url, style)

    assert url("slug: /start-here", "docusaurus") == "https://docs.example.com/start-here"
    assert url("slug: setup", "docusaurus") == "https://docs.example.com/guide/setup"
    assert url("id: installing", "docusaurus") == "https://docs.example.com/guide/installing"
    assert url("slug: Setup-Guide", "hugo") == "https://docs.example.com/guide/setup-guide/"
    assert url("slug: /start-here", "mkdocs") == "https://docs.example.com/guide/install/", "MkDocs has no slug"


def test_a_source_links_where_the_sites_generator_serves_it_and_a_new_style_reindexes(db_url, docs):
    from bot.runtime import Runtime
    from bot.settings import load_settings

    def source(style):
        rt = Runtime(
            load_settings(database_url=db_url, docs_dir=docs, docs_base_url="https://docs.example.com", docs_anchor_style=style)
        )
        report = rt.sync(encode=False)
        answer = rt.ask("how long is the warranty on pods pro", answerer="local")
        return report, next(s.url for s in answer.sources if s.path == "help/warranty.md")

    first, url = source(None)
    assert url == "https://docs.example.com/help/warranty#how-long-the-warranty-lasts"
    again, url = source("mkdocs")
    assert url == "https://docs.example.com/help/warranty/#how-long-the-warranty-lasts"
    assert again.index_version == first.index_version + 1 and not again.changed, "re-indexed, no page changed"


def test_an_unknown_anchor_style_is_one_line_naming_the_choices():
    from bot.settings import ConfigError, load_settings

    with pytest.raises(ConfigError, match=r"DOCS_ANCHOR_STYLE: .*mkdocs"):
        load_settings(docs_anchor_style="jekyll")
