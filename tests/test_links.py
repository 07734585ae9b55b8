"""A source links to where a reader can read it: a published site, else the file in its forge's web view at the
synced commit with the cited lines, never with the remote's credentials."""

import pytest

from kb.links import forge_template, source_url

LINES = (9, 12)


@pytest.mark.parametrize(
    "remote, expected",
    [
        ("https://github.com/acme/handbook.git", "https://github.com/acme/handbook/blob/c0ffee/docs/faq.md#L9-L12"),
        ("git@github.com:acme/handbook.git", "https://github.com/acme/handbook/blob/c0ffee/docs/faq.md#L9-L12"),
        ("https://codeberg.org/acme/handbook", "https://codeberg.org/acme/handbook/blob/c0ffee/docs/faq.md#L9-L12"),
        (
            "ssh://git@gitlab.example.com:2222/team/docs/handbook.git",
            "https://gitlab.example.com/team/docs/handbook/-/blob/c0ffee/docs/faq.md#L9-12",
        ),
        ("https://bitbucket.org/acme/handbook.git", "https://bitbucket.org/acme/handbook/src/c0ffee/docs/faq.md#lines-9:12"),
    ],
)
def test_a_git_remote_links_to_the_file_at_the_commit_with_its_lines(remote, expected):
    assert source_url(forge_template(remote, "docs"), "faq.md", "c0ffee", LINES) == expected


def test_a_remotes_credentials_never_reach_a_link():
    template = forge_template("https://x-access-token:ghp_secret@github.com/acme/handbook.git")
    assert "ghp_secret" not in template and "x-access-token" not in template


@pytest.mark.parametrize("remote", ["file:///srv/handbook.git", "/srv/handbook.git", "", None])
def test_a_remote_with_no_web_view_gives_no_link(remote):
    assert forge_template(remote) is None


def test_a_template_needing_the_commit_gives_no_link_without_one():
    assert source_url("https://git.example.com/{commit}/{path}", "faq.md", None, LINES) is None
    assert source_url("https://wiki.example.com/{path}#{anchor}", "a b.md", None, None, "refund-window") == (
        "https://wiki.example.com/a%20b.md#refund-window"
    )


def test_a_template_cannot_make_a_link_of_another_scheme():
    assert source_url("javascript:alert(1)//{path}", "faq.md", "c0ffee", LINES) is None
