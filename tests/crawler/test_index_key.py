"""A file's ``file_path`` is one-to-one with its name (crawler/walk.py ``index_key``): no file
can be given another's key, however it is named, and the key leads back to the file."""

from __future__ import annotations

import os
import random

from pylucene_mcp.crawler.walk import index_key, key_path


def test_a_name_that_reads_as_an_escape_is_not_the_odd_name_it_spells() -> None:
    odd = os.fsdecode(b"/srv/docs/rapport-\xe9.txt")
    spelled = "/srv/docs/rapport-\\xe9.txt"  # a backslash, x, e and 9 in the name
    assert index_key(odd) == "/srv/docs/rapport-\\xe9.txt"  # as before: keys of odd names kept
    assert index_key(spelled) != index_key(odd)
    assert key_path(index_key(spelled)) == spelled
    assert key_path(index_key(odd)) == odd
    # a name with a backslash that reads as no escape is its text
    assert index_key("/srv/a\\b.txt") == "/srv/a\\b.txt"
    assert index_key("/srv/café.txt") == "/srv/café.txt"


def test_keys_of_random_names_are_one_to_one_and_lead_back() -> None:
    alphabet = [b"\\", b"x", b"e", b"9", b"5", b"c", b"a", b"\xe9", b"\xc3", b"\xa9", b"\xff", b"."]
    rng = random.Random(48)
    names = {
        b"".join(rng.choice(alphabet) for _ in range(rng.randint(1, 7))) for _ in range(20_000)
    }
    keys = {}
    for name in names - {b".", b".."}:  # not names of files
        path = os.fsdecode(b"/srv/" + name + b"/" + name)
        key = index_key(path)
        assert key not in keys, (name, keys.get(key))
        keys[key] = name
        assert key_path(key) == path
        key.encode("utf-8")  # a key is text Lucene can hold


def test_windows_keys_write_a_lone_surrogate_where_no_name_can_hold_it() -> None:
    odd = "C:\\x64\\rapport-\udce9.txt"
    key = index_key(odd, system="win32")
    assert key == "C:\\x64\\rapport-*uDCE9.txt"
    assert key_path(key, system="win32") == odd
    assert index_key("C:\\x64\\plain.txt", system="win32") == "C:\\x64\\plain.txt"
