"""Each format becomes a title, headings with anchors, and source-numbered lines."""

from kb.loaders import load_text
from kb.loaders.html import load_html
from kb.loaders.markdown import load_markdown
from kb.loaders.rst import load_rst


def headings(doc):
    return [(s.level, s.heading, s.anchor) for s in doc.sections if s.heading]


def texts(doc):
    return [line.text for s in doc.sections for line in s.lines]


def test_markdown_takes_title_and_url_from_front_matter():
    doc = load_markdown("---\ntitle: Refunds\nurl: https://x.example/refunds\n---\n\n## Window\n\n30 days.\n", "refunds")
    assert doc.title == "Refunds"
    assert doc.url == "https://x.example/refunds"


def test_markdown_front_matter_description_is_the_pages_first_line_at_its_source_line():
    src = "---\ntitle: npm-link\ndescription: Symlink a\n  package folder\n---\n\n### Synopsis\n\n    npm link\n"
    doc = load_markdown(src, "npm-link")
    assert (doc.sections[0].level, doc.sections[0].heading) == (0, "")
    assert [(line.number, line.text) for line in doc.sections[0].lines] == [(3, "Symlink a package folder")]
    assert load_markdown("---\ndescription: [1, 2]\n---\n# T\n\nBody text.\n", "t").sections[0].heading == "T"


def test_markdown_front_matter_keywords_are_the_pages_index_terms():
    src = "---\ntitle: Wrap\nkeywords: [text flow, wrapping text]\n---\n\n# Wrap\n\nChoose Format - Wrap.\n"
    assert [(line.number, line.text) for line in load_markdown(src, "wrap").sections[0].lines] == [
        (3, "Index terms: text flow; wrapping text")
    ]
    assert texts(load_markdown("---\nkeywords: billing, invoices\n---\n\nPay monthly.\n", "b"))[0] == (
        "Index terms: billing; invoices"
    )


def test_html_keywords_meta_are_the_pages_index_terms_but_not_its_title_again():
    page = (  # LibreOffice's help: one <meta> an index entry, in the page's body
        '<html><head><title>Wrapping Text</title></head><body><main><meta itemprop="keywords" content="text flow,'
        ' around objects"><meta itemprop="keywords" content="contour editor"><h1>Wrapping Text</h1>'
        "<p>Choose Format - Wrap.</p></main></body></html>"
    )
    assert texts(load_html(page, "wrap"))[0] == "Index terms: text flow, around objects; contour editor"
    texinfo = '<html><head><title>Thread Safety</title><meta name="keywords" content="Thread Safety"></head><p>Hi.</p>'
    assert texts(load_html(texinfo, "threads")) == ["Hi."], "keywords that only repeat the title say nothing more"


def test_markdown_headings_ignore_hashes_inside_code_fences():
    doc = load_markdown("# Guide\n\n```sh\n# not a heading\n```\n\n## Real heading\n\ntext\n", "guide")
    assert headings(doc) == [(1, "Guide", "guide"), (2, "Real heading", "real-heading")]


def test_markdown_lines_keep_their_source_line_numbers():
    doc = load_markdown("---\ntitle: T\n---\n# T\n\n## A\n\nfirst line\n\nsecond line\n", "t")
    section = doc.sections[-1]
    assert [(line.number, line.text) for line in section.lines] == [(8, "first line"), (10, "second line")]


def test_markdown_a_thematic_break_is_not_a_line_and_a_setext_underline_still_makes_a_heading():
    doc = load_markdown("# T\n\nBefore.\n\n---\n\nAfter.\n\n* * *\n\nSetext\n------\n\nBelow.\n", "t")
    assert [(s.heading, [line.text for line in s.lines]) for s in doc.sections] == [
        ("T", ["Before.", "After."]),  # "---" and "* * *" were lines of their own
        ("Setext", ["Below."]),
    ]


def test_a_paragraph_wrapped_over_several_lines_is_one_line_numbered_by_its_first():
    text = (
        "# T\n\nIf true, npm will not exit with an error code when `run` is invoked for a\n"
        "script that is not defined.\n\n- an item that\n  wraps\n\n> a quote that\n> wraps\n\n```\ncode a\ncode b\n```\n"
    )
    lines = load_markdown(text, "t").sections[-1].lines
    assert [(line.number, line.end, line.text) for line in lines] == [
        (3, 4, "If true, npm will not exit with an error code when `run` is invoked for a script that is not defined."),
        (6, 7, "- an item that wraps"),
        (9, 10, "> a quote that wraps"),
        (12, 12, "```"),
        (13, 13, "code a"),  # code keeps its lines
        (14, 14, "code b"),
        (15, 15, "```"),
    ]


def test_an_rst_paragraph_wrapped_over_several_lines_is_one_line():
    lines = load_rst("Title\n=====\n\nA paragraph that is\nwrapped over two lines.\n", "t").sections[-1].lines
    assert [(line.number, line.end, line.text) for line in lines] == [(4, 5, "A paragraph that is wrapped over two lines.")]


def test_markdown_leaves_out_a_docs_generators_syntax_and_keeps_its_text():
    page = (
        "import Tabs from '@theme/Tabs';\n\n# Returns\n\n:::tip Good to know\nReturn items within 30 days.\n:::\n\n"
        '{% hint style="warning" %}\nOpened software cannot be returned.\n{% endhint %}\n\n'
        "{{< note >}}\nGift cards are final sale.\n{{< /note >}}\n\n"
        '!!! warning "Opened items"\n\n!!! Important: keep the receipt!\n\n'
        "```js\nimport x from 'y';\n```\n"
    )
    doc = load_markdown(page, "returns.md")
    assert texts(doc) == [
        "Good to know: Return items within 30 days.",
        "Opened software cannot be returned.",
        "Gift cards are final sale.",
        "Opened items:",
        "!!! Important: keep the receipt!",
        "```js",
        "import x from 'y';",
        "```",
    ]


def test_markdown_reads_mkdocs_admonition_and_tab_text_as_text_not_a_code_block():
    page = (
        "# Plans\n\n"
        '!!! note "Who can change the plan"\n\n    Only workspace owners can\n    change the plan.\n\n'
        '=== "Annual"\n\n    Billed once a year.\n\n    ```sh\n    plans set annual\n    ```\n\n'
        "Refunds are not given.\n\n    an indented code block\n"
    )
    lines = load_markdown(page, "plans.md").sections[-1].lines
    assert [(line.number, line.text) for line in lines] == [
        (3, "Who can change the plan:"),
        (5, "Only workspace owners can change the plan."),  # one paragraph over two lines, not two code lines
        (8, "Annual:"),
        (10, "Billed once a year."),
        (12, "```sh"),
        (13, "plans set annual"),
        (14, "```"),
        (16, "Refunds are not given."),
        (18, "an indented code block"),  # outside the tab: still code
    ]


def test_markdown_reads_a_tab_or_accordion_by_the_label_its_site_shows():
    page = (
        '# Install\n\n<Tabs>\n<TabItem value="mac" label="macOS" default>\nDrag the app to Applications.\n'
        '</TabItem>\n<TabItem\n  value="win"\n  label="Windows">\nRun the installer.\n</TabItem>\n'
        '<TabItem value="BSD">\nUse pkg.\n</TabItem>\n</Tabs>\n\n'
        '<Accordion title="Is there a trial?">\n  Yes, 14 days.\n</Accordion>\n\n'
        '{% tab title="Linux" %}\nRun install.sh as root.\n{% endtab %}\n{% tab title="macOS" %}\nUse brew.\n{% endtab %}\n\n'
        '{{< tab name="CSV" >}}\nChoose CSV.\n{{< /tab >}}\n\n{{< alert title="Note" color="info" >}}\nKept 7 days.\n'
    )
    lines = load_markdown(page, "install.mdx").sections[-1].lines
    assert [(line.number, line.text) for line in lines] == [
        (4, "macOS: Drag the app to Applications."),
        (7, "Windows: Run the installer."),  # a component's attributes over several lines
        (12, "BSD: Use pkg."),  # no label: Docusaurus shows the value
        (17, "Is there a trial? Yes, 14 days."),
        (21, "Linux: Run install.sh as root."),  # GitBook
        (24, "macOS: Use brew."),  # the next tab, though no blank line comes between
        (28, "CSV: Choose CSV."),  # Hugo
        (32, "Note: Kept 7 days."),
    ]


def test_markdown_reads_html_inside_a_paragraph_as_its_page_shows_it():
    page = (
        "# Keys\n\n"
        'Press <kbd>Ctrl</kbd>+<kbd>S</kbd> to save your <abbr title="Single sign-on">SSO</abbr> settings.\n\n'
        '<a id="limits"></a>Up to 2<sup>31</sup>-1 rows.<br>See <a href="https://x.example/limits">the limits</a>.\n\n'
        "Type <code>npm ci</code> and <strong>wait</strong>; AT&amp;T &lt;3.\n\n"
        "Use `<br>` for a break; the host is s3.<region>.amazonaws.com.\n\n"
        '| Plan | Notes |\n|---|---|\n| Pro | billed<br>yearly |\n\n<a name="bottom"></a>\n'
    )
    lines = load_markdown(page, "keys.md").sections[-1].lines
    assert [(line.number, line.text) for line in lines] == [
        (3, "Press Ctrl+S to save your SSO settings."),
        (5, "Up to 2^31-1 rows. See [the limits](https://x.example/limits)."),  # an empty anchor shows nothing
        (7, "Type `npm ci` and **wait**; AT&T <3."),
        (9, "Use `<br>` for a break; the host is s3.<region>.amazonaws.com."),  # code as written; not an HTML name
        (11, "| Plan | Notes |"),
        (12, "|---|---|"),
        (13, "| Pro | billed yearly |"),
    ]


def test_markdown_reads_an_image_by_its_alt_text_and_a_line_of_images_not_at_all():
    page = (
        "# Plans\n\n![The billing page with Change plan highlighted](/img/billing.png)\n\n"
        'Click the ![gear](gear.png "Settings") icon, then `![x](y)`.\n\n'
        "[![CI](https://ci.example/badge.svg)](https://ci.example) [![MIT](https://img.example/l.svg)](#license)\n"
    )
    lines = load_markdown(page, "plans.md").sections[-1].lines
    assert [(line.number, line.text) for line in lines] == [(5, "Click the gear icon, then `![x](y)`.")]


def test_markdown_reads_inline_components_comments_and_attribute_lists_as_their_sites_show_them():
    page = (
        "# Backups\n\n{/* TODO: rewrite */}\n\n<Note>Backups run nightly.</Note>\n\n"
        '<Card title="Quickstart" href="/start">Set up in five minutes.</Card>\n\n'
        '[Get started](start.md){ .md-button .md-button--primary } or see the [guide]({{< ref "guide.md" >}}).\n\n'
        'Keep it safe.\n{: .warning }\n\n--8<-- "snippets/footer.md"\n\nA Box<T> holds one value.\n'
    )
    lines = load_markdown(page, "backups.mdx").sections[-1].lines
    assert [(line.number, line.text) for line in lines] == [
        (5, "Backups run nightly."),  # Mintlify
        (7, "Quickstart: Set up in five minutes."),
        (9, "[Get started](start.md) or see the guide."),  # MkDocs' button; Hugo's ref
        (11, "Keep it safe."),  # kramdown
        (16, "A Box<T> holds one value."),  # a type's parameter, not a component
    ]


def test_markdown_reads_footnotes_and_alerts_as_their_sites_show_them():
    page = (
        "# Billing\n\nInvoices are due in 30 days[^1].\n\n> [!NOTE]\n> Refunds take 5 days.\n\n"
        "> [!tip] Save money\n> Pay yearly.\n\n[^1]: Only on the Business plan.\n"
    )
    lines = load_markdown(page, "billing.md").sections[-1].lines
    assert [(line.number, line.text) for line in lines] == [
        (3, "Invoices are due in 30 days."),
        (5, "> Note: Refunds take 5 days."),  # GitHub
        (8, "> Save money: Pay yearly."),  # Obsidian, with a title
        (11, "Only on the Business plan."),
    ]


def test_markdown_leaves_out_link_reference_definitions_which_a_page_does_not_show():
    page = "# Pricing\n\nSee [our pricing page][pricing] for prices.\n\n[pricing]: https://example.com/pricing\n"
    lines = load_markdown(page, "pricing.md").sections[-1].lines
    assert [line.text for line in lines] == ["See [our pricing page](https://example.com/pricing) for prices."]


def test_markdown_reads_a_reference_link_as_a_link_to_where_its_definition_points():
    page = (
        "# Plans\n\nSee [Annual Plans][] and [the FAQ][faq  page], not `[x][faq page]` or m[i][j].\n\n"
        '[annual plans]: https://x.example/annual "Annual"\n[FAQ Page]: ../faq.md\n'
    )
    lines = load_markdown(page, "plans.md").sections[-1].lines
    assert [line.text for line in lines] == [
        "See [Annual Plans](https://x.example/annual) and [the FAQ](../faq.md), not `[x][faq page]` or m[i][j]."
    ]


def test_markdown_title_falls_back_to_h1_then_file_name():
    assert load_markdown("# Hello there\n\ntext\n", "x").title == "Hello there"
    assert load_markdown("just text\n", "setting-up_fast").title == "Setting up fast"


def test_markdown_duplicate_headings_get_distinct_anchors():
    doc = load_markdown("## Limits\n\na\n\n## Limits\n\nb\n", "x")
    assert [s.anchor for s in doc.sections if s.heading] == ["limits", "limits-1"]


def test_markdown_with_broken_front_matter_is_indexed_with_a_warning():
    doc = load_markdown("---\ntitle: [unclosed\n---\n# Page\n\nbody\n", "page")
    assert doc.title == "Page"
    assert doc.warnings and "front matter" in doc.warnings[0]


def test_rst_sections_nest_under_the_document_title():
    src = "Water\n=====\n\nIntro.\n\nSwimming\n--------\n\nNot for swimming.\n\nDrying\n~~~~~~\n\nDry 2 hours.\n"
    doc = load_rst(src, "water")
    assert doc.title == "Water"
    assert headings(doc) == [(1, "Water", "water"), (2, "Swimming", "swimming"), (3, "Drying", "drying")]
    assert [(line.number, line.text) for line in doc.sections[-1].lines] == [(14, "Dry 2 hours.")]


def test_rst_does_not_read_included_files():
    doc = load_rst("Title\n=====\n\n.. include:: /etc/passwd\n\nSafe text.\n", "t")
    assert "root:" not in " ".join(texts(doc))


def test_rst_reads_a_sphinx_directive_docutils_does_not_know_as_the_text_sphinx_shows():
    src = (
        "Install\n=======\n\n.. toctree::\n   :maxdepth: 2\n\n   windows\n\n"
        ".. versionadded:: 2.1\n   The ``--user`` option.\n\n"
        ".. tabs::\n\n   .. tab:: Linux\n\n      Run the installer\n      as root.\n\n"
        ".. only:: html\n\n   Shown in HTML.\n\n"
        ".. deprecated:: 3.0\n   Use :func:`client.connect` instead.\n\n"
        ".. versionchanged:: 4.0 The default is now 5.\n\n   It was 3.\n\n.. versionadded:: 5.0\n"
    )
    assert [(line.number, line.text) for line in load_rst(src, "install").sections[-1].lines] == [
        (9, "New in version 2.1: The --user option."),  # Sphinx shows a version note's label and text as one
        (14, "Linux:"),
        (16, "Run the installer as root."),
        (21, "Shown in HTML."),
        (23, "Deprecated since version 3.0: Use client.connect instead."),
        (26, "Changed in version 4.0: The default is now 5."),
        (28, "It was 3."),
        (30, "New in version 5.0."),
    ]


def test_rst_reads_a_sphinx_role_by_the_text_it_shows():
    src = "Title\n=====\n\nSee :ref:`Installing <install>` and :doc:`faq`, then call :py:func:`~client.connect`.\n"
    lines = load_rst(src, "t").sections[-1].lines
    assert [line.text for line in lines] == ["See Installing and faq, then call client.connect."]


def test_rst_never_reads_a_file_a_directive_docutils_does_not_know_names():
    doc = load_rst("Title\n=====\n\n.. literalinclude:: /etc/passwd\n   :lines: 1-3\n\nSafe text.\n", "t")
    assert texts(doc) == ["Safe text."]


def test_html_reads_main_content_without_navigation_header_or_footer():
    html = """<html><head><title>Shipping</title><script>var x=1;</script></head><body>
    <header><nav>Home Help Store</nav></header>
    <main><h1>Shipping</h1><p>We ship fast.</p>
    <h2 id="costs">Costs</h2><ul><li>Express costs <b>$12</b>.</li></ul></main>
    <footer>Copyright</footer></body></html>"""
    doc = load_html(html, "shipping")
    text = " ".join(texts(doc))
    assert doc.title == "Shipping"
    assert "Express costs $12 ." in text or "Express costs $12." in text
    assert "Home Help Store" not in text and "Copyright" not in text and "var x" not in text
    assert headings(doc) == [(1, "Shipping", "shipping"), (2, "Costs", "costs")]


def test_html_leaves_out_a_theme_sidebar_that_names_itself_only_by_its_class():
    html = """<html><head><title>borg mount — Borg 1.2.4 documentation</title></head><body>
    <div id="left-column"><div class="sphinxsidebar"><a href="../index.html">Borg 1.2.4</a>
    <div class="sidebar-toc"><ul><li><a href="init.html">borg init</a></li><li><a href="list.html">borg list</a></li>
    </ul></div></div></div>
    <div class="document body"><h1>borg mount</h1><p>Mount an archive as a FUSE filesystem.</p></div></body></html>"""
    doc = load_html(html, "usage/mount.html")
    text = " ".join(texts(doc))
    assert text == "Mount an archive as a FUSE filesystem."


def test_html_an_articles_header_is_its_title_not_chrome_as_a_help_centre_writes_it():
    page = (
        "<title>Reset your password – Acme Help Center</title><header><nav><a>Sign in</a></nav></header>"
        '<main><article><header><h1>Reset your password</h1></header><p>Click "Forgot password".</p></article></main>'
    )
    doc = load_html(page, "reset")
    assert doc.title == "Reset your password", "the h1 names the page, so the site's name is left out"
    assert [(s.heading, [line.text for line in s.lines]) for s in doc.sections if s.heading or s.lines] == [
        ("Reset your password", ['Click "Forgot password".'])
    ]


def test_html_a_heading_whose_id_names_a_sidebar_is_a_heading_not_chrome():
    page = '<main><h2 id="customize-the-sidebar"><a href="#customize-the-sidebar">Customize the sidebar</a></h2><p>Drag items.</p></main>'
    assert headings(load_html(page, "x")) == [(2, "Customize the sidebar", "customize-the-sidebar")]


def test_html_keeps_a_box_named_sidebar_when_its_text_is_prose():
    doc = load_html(
        '<main><h1>Refunds</h1><div class="sidebar">Refunds reach your card in <a href="t.html">5 days</a>, '
        "or 10 days for a bank transfer.</div></main>",
        "refunds",
    )
    assert [line.text for line in doc.sections[-1].lines] == [
        "Refunds reach your card in 5 days, or 10 days for a bank transfer."
    ]


def test_html_a_sidebar_is_judged_by_the_links_its_own_navigation_holds():
    page = (
        '<main><div class="bd-sidebar-secondary"><div class="page-toc">Contents</div><nav><ul>'
        '<li><a href="#synopsis">Synopsis</a></li><li><a href="#configuration">Configuration</a></li></ul></nav></div>'
        "<article><h1>npm ci</h1><p>Clean install a project.</p></article></main>"
    )
    doc = load_html(page, "npm-ci")
    assert texts(doc) == ["Clean install a project."]


def test_html_buttons_are_controls_not_text():
    page = (
        '<main><div class="header-article"><button data-mode="light">Light</button><button>Dark</button>'
        '<div class="dropdown dropdown-download-buttons"><ul class="dropdown-menu"><li><a href="_sources/zlib.md">.md</a>'
        '</li><li><button onclick="window.print()">.pdf</button></li></ul></div></div>'
        '<h1>Zlib <button id="copy-path" title="Copy item path to clipboard">Copy item path</button></h1>'
        '<pre><code>zlib.crc32("hello");</code><button class="copy-button">copy</button></pre>'
        "<p>Was this page helpful? <button>Yes</button> <button>No</button></p></main>"
    )
    doc = load_html(page, "zlib")
    assert headings(doc) == [(1, "Zlib", "zlib")]
    assert texts(doc) == [
        "```",
        'zlib.crc32("hello");',
        "```",
        "Was this page helpful?",
    ]


def test_html_a_button_that_opens_a_panel_or_is_its_heading_is_read_as_its_title():
    page = (
        '<main><h2 class="accordion-header"><button class="accordion-button">Can I pay yearly?</button></h2>'
        "<div><p>Yes, with two months free.</p></div>"
        '<button class="accordion" aria-expanded="false">Is there a trial?</button>'
        '<div class="panel"><p>14 days, no card needed.</p></div></main>'
    )
    doc = load_html(page, "faq")
    assert headings(doc) == [(2, "Can I pay yearly?", "can-i-pay-yearly")]
    assert [line.text for line in doc.sections[-1].lines] == [
        "Yes, with two months free.",
        "Is there a trial?",
        "14 days, no card needed.",
    ]


def test_html_text_right_inside_a_box_beside_blocks_is_read_where_it_stands():
    page = (
        "<html><body><h1>zlib Usage Example</h1>\nWe often get questions about <i>deflate()</i>.\n"
        "<pre>deflate(strm, Z_FINISH);</pre>\nor like this:\n<pre>inflate(strm, Z_NO_FLUSH);</pre>"
        "<div>See also <a href='faq.html'>the FAQ</a>.<p>Version 1.3.</p></div></body></html>"
    )
    doc = load_html(page, "zlib_how")
    assert [(line.number, line.text) for line in doc.sections[-1].lines] == [
        (2, "We often get questions about deflate()."),
        (3, "```"),
        (3, "deflate(strm, Z_FINISH);"),
        (3, "```"),
        (4, "or like this:"),
        (5, "```"),
        (5, "inflate(strm, Z_NO_FLUSH);"),
        (5, "```"),
        (5, "See also the FAQ."),
        (5, "Version 1.3."),
    ]


def test_html_title_leaves_out_the_site_name_every_page_shares():
    def title(html: str) -> str:
        return load_html(html, "page").title

    assert title("<title>borg mount — Borg 1.2.4 documentation</title><h1>borg mount</h1>") == "borg mount"
    assert title("<title>Returns | Help Center</title><main><h1>Returns</h1></main>") == "Returns"
    assert title("<title>File system | Node.js Docs</title><h1>Node.js Docs</h1>") == "File system | Node.js Docs"
    assert title("<title>git-cherry-pick(1)</title><h1>git-cherry-pick(1) Manual Page</h1>") == "git-cherry-pick(1)"
    assert title("<title>Cats - Dogs</title><h1>Birds</h1>") == "Cats - Dogs"


def test_html_lines_point_at_their_source_lines():
    doc = load_html("<html><body>\n<main>\n<h2>A</h2>\n<p>one</p>\n<p>two</p>\n</main></body></html>", "x")
    assert [(line.number, line.text) for line in doc.sections[-1].lines] == [(4, "one"), (5, "two")]


def test_plain_text_is_one_section_titled_by_file_name():
    doc = load_text("first\n\nsecond\n", "release-notes")
    assert doc.title == "Release notes"
    assert [(line.number, line.text) for line in doc.sections[0].lines] == [(1, "first"), (3, "second")]


def all_text(doc):
    return " ".join([doc.title] + [s.heading for s in doc.sections] + texts(doc))


def test_markdown_comments_and_html_blocks_leave_only_their_words():
    doc = load_markdown(
        "# fs\n\n## Promises API <!-- anchor -->\n\n<!-- YAML\nadded: v10.0.0\n-->\n\n"
        'The API is async. <!-- note -->\n\n<div align="center"><b>Warning:</b> be careful</div>\n',
        "fs",
    )
    assert "<" not in all_text(doc) and "YAML" not in all_text(doc)
    assert [line.text for line in doc.sections[-1].lines] == ["The API is async.", "Warning: be careful"]


def test_markdown_code_blocks_keep_their_markup():
    doc = load_markdown("# Page\n\n```html\n<!-- kept -->\n<div>x</div>\n```\n", "page")
    assert [line.text for line in doc.sections[-1].lines] == ["```html", "<!-- kept -->", "<div>x</div>", "```"]


def test_html_permalink_marks_and_comments_are_not_text():
    doc = load_html(
        '<main><h1>File system<a class="mark" href="#fs">#</a></h1><h2 id="p">Promises API <a href="#p">¶</a></h2>'
        '<!-- YAML added: v1 --><p>The API <!-- c --> has <a href="#q">other methods</a>.</p></main>',
        "fs",
    )
    assert headings(doc) == [(1, "File system", "file-system"), (2, "Promises API", "p")]
    assert [line.text for line in doc.sections[-1].lines] == ["The API has other methods."]


def test_html_a_self_link_drawn_with_an_icon_font_glyph_is_not_part_of_the_heading():
    doc = load_html(
        '<title>Configuration - MkDocs</title><main><h1 id="configuration">Configuration'
        '<a class="headerlink" href="#configuration" title="Permanent link">\uf0c1</a></h1><p>All settings.</p></main>',
        "configuration.html",
    )
    assert doc.title == "Configuration" and headings(doc) == [(1, "Configuration", "configuration")]


def test_html_definition_terms_are_read_with_their_definitions():
    doc = load_html(
        "<main><h2>Options</h2><dl><dt>-s</dt><dt>--soft</dt><dd><p>Keep the index.</p></dd>"
        "<dt>--hard</dt><dd><pre>git reset --hard</pre></dd></dl></main>",
        "opts",
    )
    assert [line.text for line in doc.sections[-1].lines] == [
        "-s, --soft: Keep the index.",
        "--hard",
        "```",
        "git reset --hard",
        "```",
    ]


def test_html_a_line_break_parts_words_and_a_power_is_read_as_one():
    doc = load_html(
        "<main><h2>Options</h2><p><code>-p</code><br><code>plain</code>: write plain files.</p>"
        "<p>Up to 2<sup>31</sup>-1 rows, in m<sup>2</sup>.</p></main>",
        "opts",
    )
    assert [line.text for line in doc.sections[-1].lines] == [
        "-p plain: write plain files.",  # was "-pplain": one word no one searches for
        "Up to 2^31-1 rows, in m2.",  # was "231-1", a number the answerer would quote; after a word, a unit's mark
    ]


def test_html_a_word_parted_by_tags_is_read_whole_and_words_a_tag_glues_are_read_apart():
    doc = load_html(
        '<main><h2>Report - <span class="accel">H</span>elp Menu</h2>'
        '<p>Open the menu<span class="guimenu"><span class="accel">E</span>dit</span> → '
        '<span class="guimenuitem">Pr<span class="accel">e</span>ferences</span>in the <em>I</em>ncome tab.</p>'
        "<p>Both <code>Hasher</code>s and <code>fmt</code><code>Arguments</code>.</p></main>",
        "docbook",
    )
    assert doc.sections[-1].heading == "Report - Help Menu"  # was "Report - H elp Menu"
    assert [line.text for line in doc.sections[-1].lines] == [
        "Open the menu Edit → Preferences in the Income tab.",  # was "menuE dit → Pr e ferencesin the I ncome"
        "Both Hashers and fmt Arguments.",  # an ending after a name's tag is the name's; two names are two words
    ]


def test_html_a_name_longer_than_any_word_keeps_the_ending_after_its_tag():
    name = "AbstractSingletonProxyFactoryBeanBuilder"  # 40 letters: no reading of it is an English word
    doc = load_html(f"<main><p>Two <code>{name}</code>s and <code>{name}</code><em>Impl</em>.</p></main>", "long")
    assert [line.text for line in doc.sections[-1].lines] == [f"Two {name}s and {name} Impl."]


def test_an_html_code_block_is_fenced_as_markdown_writes_one():
    doc = load_html(
        "<main>\n<h2>Config</h2>\n<p>Add to ~/.ssh/config:</p>\n<pre>Host *\n  ServerAliveInterval 10</pre>\n</main>", "x"
    )
    lines = [(line.number, line.text) for line in doc.sections[-1].lines]
    assert lines == [(3, "Add to ~/.ssh/config:"), (4, "```"), (4, "Host *"), (5, "ServerAliveInterval 10"), (5, "```")]


def test_html_a_code_block_written_a_div_a_line_is_read_once():
    page = (
        '<main><p>It should look like this:</p><pre class="prism-code"><code>'
        '<div class="token-line"><span>{</span><br/></div>'
        '<div class="token-line"><span>  "private": </span><span>true</span><br/></div>'
        '<div class="token-line"><span>}</span></div></code></pre></main>'
    )
    lines = texts(load_html(page, "package-json"))
    assert lines == ["It should look like this:", "```", "{", '"private": true', "}", "```"]


def test_html_two_listings_in_one_code_block_are_read_on_lines_of_their_own():
    page = (  # Node.js' docs: each example as an ES module and as CommonJS, one shown at a time
        "<main><p>Compress a buffer:</p><pre><code class=\"language-js mjs\">import zlib from 'node:zlib';</code>"
        "<code class=\"language-js cjs\">const zlib = require('node:zlib');</code></pre></main>"
    )
    lines = texts(load_html(page, "zlib"))
    assert lines == ["Compress a buffer:", "```", "import zlib from 'node:zlib';", "const zlib = require('node:zlib');", "```"]


def test_html_alternatives_a_script_shows_one_of_are_read_parted_not_glued():
    page = (  # LibreOffice's help: a shortcut for macOS and one for the rest, each hidden until a script shows one
        '<main><p>Choose View - Styles (<span class="switchinline"><span hidden="true" class="MAC">'
        '<span class="keycode">Command+T</span></span><span hidden="true"><span class="keycode">F11</span></span>'
        "</span>).</p></main>"
    )
    assert texts(load_html(page, "styles")) == ["Choose View - Styles (Command+T / F11)."]


def test_html_tabs_are_read_each_panel_under_its_label():
    aria = (  # Docusaurus: labels and panels in the same order; sphinx-tabs: each tab names its panel
        '<main><h1>Install</h1><div><ul role="tablist"><li role="tab">macOS</li><li role="tab">Windows</li></ul><div>'
        '<div role="tabpanel"><p>Drag the app to Applications.</p></div>'
        '<div role="tabpanel" hidden><p>Run the installer.</p></div></div></div>'
        '<div><div role="tablist"><button role="tab" aria-controls="b">Linux</button>'
        '<button role="tab" aria-controls="a">BSD</button></div>'
        '<div role="tabpanel" id="a"><p>Use pkg.</p></div><div role="tabpanel" id="b"><p>Use apt.</p></div></div></main>'
    )
    radios = (  # MkDocs Material: labels together, then the panels; sphinx-design: each label before its panel
        '<main><h1>Billing</h1><div class="tabbed-set"><input type="radio" id="t1" name="s"><input type="radio" id="t2" '
        'name="s"><div class="tabbed-labels"><label for="t1">Monthly</label><label for="t2">Annual</label></div>'
        '<div class="tabbed-content"><div class="tabbed-block"><p>Billed each month.</p></div>'
        '<div class="tabbed-block"><p>Billed once a year.</p></div></div></div>'
        '<div class="sd-tab-set"><input type="radio" id="p1" name="i"><label for="p1">pip</label><div><p>pip install x'
        '</p></div><input type="radio" id="p2" name="i"><label for="p2">conda</label><div><p>conda install x</p></div>'
        "</div></main>"
    )
    read = [texts(load_html(page, "p.html")) for page in (aria, radios)]
    assert read == [
        ["macOS:", "Drag the app to Applications.", "Windows:", "Run the installer.", "BSD:", "Use pkg.", "Linux:", "Use apt."],
        [
            "Monthly:",
            "Billed each month.",
            "Annual:",
            "Billed once a year.",
            "pip:",
            "pip install x",
            "conda:",
            "conda install x",
        ],
    ]
