"""One family for the failures a person has to act on: the message is the one line they see.

It lives in kb (which never imports bot) so both floors can raise it; the command line catches the base
once and prints the message, exiting with `exit_code`.
"""

from __future__ import annotations


class SupportbotError(Exception):
    """A failure with a message written for the user, never a traceback."""

    exit_code = 1


class IndexUnavailable(SupportbotError, ConnectionError):
    """The database behind the index could not be read: a search now would find nothing for the wrong reason, so
    the question waits for the database instead of being answered "not in the docs"."""
