"""Names the classroom service, its clients and the instructor's commands agree on.

* :func:`user_key` — a hub user name as one file name of the exchange folder
  (``inbound/NN/<key>.ipynb``) and as the submission id ``collect`` gives it;
* :data:`CHAPTER`, :data:`POLL_ID` — what a chapter id and a poll id look like.
"""

from __future__ import annotations

import re
import urllib.parse

__all__ = ["CHAPTER", "POLL_ID", "user_key", "user_of_key"]

CHAPTER = re.compile(r"\d\d")
"""A chapter id: two digits (``"01"``)."""

POLL_ID = re.compile(r"\d\d\.[a-z][a-z0-9_]{0,39}")
"""A poll id: a question's or a prediction's id (``"01.c_support"``, ``"01.p_support"``)."""

_PLAIN = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}")


def user_key(name: str) -> str:
    """A hub user name as one safe file name: itself when it is plain (letters, digits and
    ``._-``, not starting with a dot, at most 100 characters), else percent-encoded (every
    character outside that set, and a leading dot as ``%2E``). One-to-one: two users never
    share a file, and :func:`user_of_key` gives the name back."""
    if _PLAIN.fullmatch(name):
        return name
    key = urllib.parse.quote(name, safe="")
    return "%2E" + key[1:] if key.startswith(".") else key


def user_of_key(key: str) -> str:
    """The user name of a :func:`user_key`."""
    return key if _PLAIN.fullmatch(key) and "%" not in key else urllib.parse.unquote(key)
