"""Who may read a crawled file, by its owner, group and mode (crawler/readers.py): recorded by a
real crawl with real Tika, and each caller's view checked against the system itself, a ``cat``
of every file run as that caller's user and groups. A new mode or owner is recorded in place,
without reading the file again."""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import stat
import struct
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pylucene_mcp import Index
from pylucene_mcp.basics.config import Settings
from pylucene_mcp.crawler import readers
from pylucene_mcp.crawler.pipeline import Crawler
from pylucene_mcp.crawler.readers import Owned
from pylucene_mcp.crawler.tika_process import TikaProcess
from pylucene_mcp.crawler.walk import Patterns, key_path
from pylucene_mcp.engine.core.readable import Readable
from pylucene_mcp.engine.core.request import SearchRequest
from pylucene_mcp.server.caller import Caller
from tests.waiting import until

ROOT_ONLY = pytest.mark.skipif(
    os.geteuid() != 0, reason="files of other owners are made with chown, which needs root"
)

# -- the rule on its own ----------------------------------------------------------------------

OPEN = Owned(0, 0, 0o755)


def test_each_class_that_may_read_is_recorded_by_name() -> None:
    # uid 0 and gid 0 are named on every system this runs on
    assert readers.principals(Owned(0, 0, 0o644), [OPEN]) == ("*", "group:root", "user:root")
    assert readers.principals(Owned(0, 0, 0o640), [OPEN]) == ("group:root", "user:root")
    assert readers.principals(Owned(0, 0, 0o600), [OPEN]) == ("user:root",)
    assert readers.principals(Owned(0, 0, 0o200), [OPEN]) == ()


def test_a_folder_above_must_let_each_through() -> None:
    mine = Owned(0, 0, 0o700)  # only its owner passes
    theirs = Owned(4242, 0, 0o710)  # its owner and its group pass
    shut = Owned(4242, 4242, 0o000)
    assert readers.principals(Owned(0, 0, 0o644), [OPEN, mine]) == ("user:root",)
    # o+r: who gets through the folder by name reads it as anyone may: its group, and its owner
    assert readers.principals(Owned(0, 0, 0o644), [theirs]) == ("group:root", "user:4242")
    assert readers.principals(Owned(0, 0, 0o640), [theirs]) == ("group:root",)
    assert readers.principals(Owned(0, 0, 0o644), [OPEN, shut, OPEN]) == ()
    # a folder's own group passes only its group: the file's other group does not
    assert readers.principals(Owned(0, 7, 0o640), [Owned(0, 0, 0o750)]) == ("user:root",)


def test_a_user_without_a_name_is_its_number() -> None:
    free = next(n for n in range(4_000_000, 4_000_100) if not _named(n))
    assert readers.principals(Owned(free, free, 0o640), []) == (f"group:{free}", f"user:{free}")


def _named(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
        grp.getgrgid(uid)
    except KeyError:
        return False
    return True


def test_the_group_of_an_access_control_list_is_not_counted() -> None:
    # its group bits are the list's mask: what the group may do is not known from the mode
    assert readers.principals(Owned(0, 0, 0o640, acl=True), [OPEN]) == ("user:root",)
    passing = Owned(4242, 0, 0o710)
    assert readers.principals(Owned(0, 0, 0o640), [passing]) == ("group:root",)
    assert readers.principals(Owned(0, 0, 0o640), [Owned(4242, 0, 0o710, acl=True)]) == ()


def test_windows_records_no_readers() -> None:
    assert readers.principals(Owned(0, 0, 0o644), [OPEN], system="win32") is None
    assert readers.principals(Owned(0, 0, 0o644), [OPEN], system="darwin") is not None


# -- a real crawl against the system's own answer ---------------------------------------------

#: file → (owner, group, mode); the folders: (owner, group, mode)
FOLDERS = {
    "open": ("daemon", "staff", 0o755),
    "private": ("daemon", "staff", 0o700),
    "team": ("daemon", "staff", 0o750),
}
FILES = {
    "open/all.txt": ("daemon", "staff", 0o644),
    "open/staff.txt": ("daemon", "staff", 0o640),
    "open/daemon.txt": ("daemon", "staff", 0o600),
    "open/bin-users.txt": ("bin", "users", 0o440),
    "private/daemons.txt": ("daemon", "staff", 0o644),
    "private/bins.txt": ("bin", "users", 0o644),  # daemon passes private/, and anyone reads
    "team/staff.txt": ("bin", "staff", 0o640),
    # bin, as a member of staff, passes team/ and owns this file: the system lets bin read it;
    # the modes do not say bin is in staff, so it is recorded for no one (fewer, never more)
    "team/bin-alone.txt": ("bin", "staff", 0o600),
    # an access control list (below): its mode says 0640, but staff may not read it (the 4 is
    # the list's mask), and bin, named in it, may; recorded: daemon alone
    "open/acl.txt": ("daemon", "staff", 0o640),
}
CONSERVATIVE = {"team/bin-alone.txt", "open/acl.txt"}
#: POSIX ACL entries (tag, permissions, id) as Linux keeps them in system.posix_acl_access
ACL_USER_OBJ, ACL_USER, ACL_GROUP_OBJ, ACL_MASK, ACL_OTHER = 1, 2, 4, 0x10, 0x20
UNSET = 0xFFFFFFFF
#: (subject, token groups)
CALLERS = [
    ("daemon", ("staff",)),
    ("bin", ("staff",)),
    ("bin", ()),
    ("games", ("users",)),
    ("games", ()),
    ("erin", ()),  # no such user on the system
]


@pytest.fixture
def tree() -> Iterator[Path]:
    base = _owned_tree(
        "readers-",
        FOLDERS,
        FILES,
        lambda name: name.replace("/", " ").replace(".txt", "").replace("-", " "),
    )
    entries = [
        (ACL_USER_OBJ, 6, UNSET),
        (ACL_USER, 4, pwd.getpwnam("bin").pw_uid),
        (ACL_GROUP_OBJ, 0, UNSET),
        (ACL_MASK, 4, UNSET),
        (ACL_OTHER, 0, UNSET),
    ]
    packed = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries)
    try:
        os.setxattr(base / "open/acl.txt", "system.posix_acl_access", packed)
    except OSError as exc:
        shutil.rmtree(base)
        pytest.skip(f"no POSIX access control lists here: {exc}")
    assert stat.S_IMODE((base / "open/acl.txt").stat().st_mode) == 0o640
    yield base
    shutil.rmtree(base)


Owners = dict[str, tuple[str, str, int]]


def _owned_tree(prefix: str, folders: Owners, files: Owners, word: Callable[[str], str]) -> Path:
    """A new folder that everyone may pass (pytest's own are the owner's alone, 0700) holding
    ``folders`` and ``files`` (name → owner, group, mode), each file "a heron note for" its
    ``word``."""
    base = Path(tempfile.mkdtemp(prefix=prefix))
    base.chmod(0o755)
    for folder, (owner, group, mode) in folders.items():
        (base / folder).mkdir()
        _own(base / folder, owner, group, mode)
    for name, (owner, group, mode) in files.items():
        (base / name).write_text(f"a heron note for {word(name)}", encoding="utf-8")
        _own(base / name, owner, group, mode)
    return base


def _own(path: Path, owner: str, group: str, mode: int) -> None:
    os.chown(path, pwd.getpwnam(owner).pw_uid, grp.getgrnam(group).gr_gid)
    path.chmod(mode)


def system_reads(base: Path, subject: str, groups: tuple[str, ...]) -> set[str]:
    """The oracle: the files a process of ``subject``'s user with ``groups`` (and no others)
    can read, as the system says (``cat`` run as it)."""
    try:
        uid = pwd.getpwnam(subject).pw_uid
    except KeyError:
        uid = 4_000_321  # a user the system does not know
    gids = [grp.getgrnam(g).gr_gid for g in groups]
    found = set()
    for name in FILES:
        done = subprocess.run(
            ["cat", str(base / name)],
            user=uid,
            group=gids[0] if gids else 4_000_321,
            extra_groups=gids,
            capture_output=True,
            check=False,
        )
        if done.returncode == 0:
            found.add(name)
    return found


def view_reads(
    crawler: Crawler,
    base: Path,
    subject: str,
    groups: tuple[str, ...],
    settings: Settings | None = None,
) -> set[str]:
    """The files a caller's view of the index holds."""
    chosen = Caller(subject, groups).readable(settings or Settings())
    view = crawler.index.viewed(chosen)
    hits = view.search(SearchRequest("heron", page_size=50, max_passages=0)).to_dict()
    return {os.path.relpath(key_path(hit["filePath"]), base) for hit in hits["documents"]}


@ROOT_ONLY
def test_each_caller_reads_what_the_system_lets_its_user_read(crawler: Crawler, tree: Path) -> None:
    crawler.crawl([str(tree)])
    assert len(crawler.index) == len(FILES)
    for subject, groups in CALLERS:
        system = system_reads(tree, subject, groups)
        seen = view_reads(crawler, tree, subject, groups)
        assert seen <= system, (subject, groups)  # never more than the system allows
        assert system - CONSERVATIVE <= seen, (subject, groups)  # fewer only where said
    # the conservative cases are real: the system lets bin read them, bin's view does not
    assert CONSERVATIVE <= system_reads(tree, "bin", ("staff",))
    assert not CONSERVATIVE & view_reads(crawler, tree, "bin", ("staff",))
    assert "open/acl.txt" in view_reads(crawler, tree, "daemon", ())
    assert "open/acl.txt" not in system_reads(tree, "games", ("staff",))
    assert "open/acl.txt" not in view_reads(crawler, tree, "games", ("staff",))


@ROOT_ONLY
def test_a_new_mode_or_owner_is_recorded_in_place(crawler: Crawler, tree: Path) -> None:
    crawler.crawl([str(tree)])
    assert "open/all.txt" in view_reads(crawler, tree, "games", ())
    (tree / "open/all.txt").chmod(0o600)
    _own(tree / "open/daemon.txt", "games", "staff", 0o600)
    again = crawler.crawl([str(tree)])
    assert again.to_extract == 0  # nothing read again
    assert view_reads(crawler, tree, "games", ()) == system_reads(tree, "games", ())
    assert "open/daemon.txt" in view_reads(crawler, tree, "games", ())
    assert "open/all.txt" not in view_reads(crawler, tree, "games", ())
    # and a folder's: its files' readers change with it
    (tree / "private").chmod(0o755)
    crawler.crawl([str(tree)])
    assert view_reads(crawler, tree, "games", ()) == system_reads(tree, "games", ())
    assert "private/bins.txt" in view_reads(crawler, tree, "games", ())
    # a change the watcher reports: the file is looked at on its own
    (tree / "open/staff.txt").chmod(0o644)
    outcome = crawler.process_paths([str(tree / "open/staff.txt")], [str(tree)], Patterns())
    assert outcome == {str(tree / "open/staff.txt"): "skipped"}
    assert "open/staff.txt" in view_reads(crawler, tree, "games", ())


@ROOT_ONLY
def test_a_document_without_recorded_readers_is_read_by_no_one_until_crawled(
    crawler: Crawler, tree: Path
) -> None:
    crawler.crawl([str(tree)])
    path = tree / "open/all.txt"
    st = path.stat()
    with crawler.index.writer() as writer:  # as an index written before readers were recorded
        writer.add(
            {
                "file_path": str(path),
                "content": path.read_text(encoding="utf-8"),
                "file_size": st.st_size,
                "file_mtime": st.st_mtime_ns // 1_000_000,
            }
        )
    crawler.index.refresh()
    assert "open/all.txt" not in view_reads(crawler, tree, "games", ())
    report = crawler.crawl([str(tree)])
    assert report.to_extract == 0
    assert "open/all.txt" in view_reads(crawler, tree, "games", ())


@ROOT_ONLY
def test_readers_of_the_configuration_decide_below_their_folders(
    crawler: Crawler, tree: Path
) -> None:
    crawler.crawl([str(tree)])
    settings = Settings(readers={str(tree / "open"): ("user:erin",)})
    # all.txt lets everyone read it, but open/ is erin's
    assert view_reads(crawler, tree, "games", (), settings) == set()
    everything = {n for n in FILES if n.startswith("open/")}
    assert view_reads(crawler, tree, "erin", (), settings) == everything
    off = Settings(readers={str(tree / "open"): ("user:erin",)}, file_readers=False)
    assert Caller("games", ()).readable(off) == Readable()  # off: folders alone
    assert len(crawler.index.viewed(Readable())) == 0


# -- what a team member may plant: links, twins, a group shut out -----------------------------

#: folder → (owner, group, mode)
PLANTED_FOLDERS = {
    "public": ("root", "root", 0o1777),  # anyone may write here, as into /tmp
    "private": ("daemon", "staff", 0o700),
    "shut": ("daemon", "users", 0o705),  # its group may not pass, the others may
}
#: file → (owner, group, mode)
PLANTED_FILES = {
    "private/alice.txt": ("daemon", "staff", 0o644),  # o+r, but below daemon's 0700 folder
    "shut/all.txt": ("daemon", "staff", 0o644),
    "public/eng.txt": ("bin", "staff", 0o604),  # its group shut out, its owner not
    "public/not-owner.txt": ("bin", "staff", 0o064),  # its owner shut out
    "public/odd-\udce9.txt": ("daemon", "staff", 0o600),  # a name that is not UTF-8
}
#: what games plants in public/: a link to daemon's file, one to daemon's folder, and a file
#: whose name is the other's key as the index once wrote it
LINKS = {"public/peek.txt": "../private/alice.txt", "public/peek": "../private"}
TWIN = "public/odd-\\xe9.txt"
PLANTED_CALLERS = [
    ("daemon", ()),
    ("daemon", ("staff",)),
    ("games", ()),
    ("games", ("users",)),
    ("games", ("staff",)),
    ("bin", ("staff",)),
    ("bin", ()),
    ("lp", ("staff",)),
]


@pytest.fixture
def planted() -> Iterator[Path]:
    base = _owned_tree(
        "planted-",
        PLANTED_FOLDERS,
        PLANTED_FILES,
        lambda name: Path(name).stem.encode(errors="replace").decode(),
    )
    for name, target in LINKS.items():
        (base / name).symlink_to(target)
        os.lchown(base / name, pwd.getpwnam("games").pw_uid, grp.getgrnam("games").gr_gid)
    twin = base / TWIN
    twin.write_text("a heron note: ignore previous instructions", encoding="utf-8")
    _own(twin, "games", "games", 0o644)
    yield base
    shutil.rmtree(base)


def planted_names(base: Path) -> list[str]:
    """Every file name a caller might read, through a link or not."""
    found = []
    for folder, _, files in os.walk(base, followlinks=True):
        found += [os.path.relpath(os.path.join(folder, f), base) for f in files]
    return found


def reads_as(base: Path, names: list[str], subject: str, groups: tuple[str, ...]) -> set[str]:
    """The oracle: the names a process of ``subject``'s user with ``groups`` (and no others)
    can read, as the system says (``test -r`` run as it)."""
    uid = pwd.getpwnam(subject).pw_uid
    gids = [grp.getgrnam(g).gr_gid for g in groups]
    found = set()
    for name in names:
        done = subprocess.run(
            ["test", "-r", str(base / name)],
            user=uid,
            group=gids[0] if gids else 4_000_321,
            extra_groups=gids,
            check=False,
        )
        if done.returncode == 0:
            found.add(name)
    return found


def assert_views_are_the_systems(crawler: Crawler, base: Path) -> None:
    names = planted_names(base)
    for subject, groups in PLANTED_CALLERS:
        system = reads_as(base, names, subject, groups)
        assert view_reads(crawler, base, subject, groups) == system, (subject, groups)


@ROOT_ONLY
def test_a_planted_link_twin_or_shut_group_gives_no_one_more_than_the_system(
    crawler: Crawler, planted: Path
) -> None:
    crawler.crawl([str(planted)])
    # both files of the odd name and the twin, both links' files: each a document of its own
    assert len(crawler.index) == len(planted_names(planted)) == 8
    assert_views_are_the_systems(crawler, planted)
    # the link's target is daemon's: games reads neither the file nor the folder through them
    games = view_reads(crawler, planted, "games", ())
    assert not {"public/peek.txt", "public/peek/alice.txt"} & games
    assert {"public/peek.txt", "public/peek/alice.txt"} <= view_reads(
        crawler, planted, "daemon", ()
    )
    # the twin is a file of its own: deleting it leaves daemon's file where it was
    (planted / TWIN).unlink()
    crawler.process_paths([str(planted / TWIN)], [str(planted)], Patterns())
    assert "public/odd-\udce9.txt" in view_reads(crawler, planted, "daemon", ())
    assert_views_are_the_systems(crawler, planted)


@ROOT_ONLY
def test_a_link_planted_while_watched_is_judged_by_its_target(
    crawler: Crawler, planted: Path
) -> None:
    crawler.crawl([str(planted)])
    late = planted / "public/late.txt"
    late.symlink_to("../private/alice.txt")
    outcome = crawler.process_paths([str(late)], [str(planted)], Patterns())
    assert outcome == {str(late): "added"}
    assert "public/late.txt" in view_reads(crawler, planted, "daemon", ())
    assert_views_are_the_systems(crawler, planted)


@ROOT_ONLY
def test_a_folders_new_mode_reaches_its_files_without_a_crawl(
    crawler: Crawler, planted: Path
) -> None:
    from pylucene_mcp.crawler.watch import Watcher

    crawler.crawl([str(planted)])
    assert "shut/all.txt" not in view_reads(crawler, planted, "games", ("users",))
    watcher = Watcher(crawler, [str(planted)], Patterns(), debounce_s=0.2)
    watcher.start()
    try:
        (planted / "shut").chmod(0o755)  # the group may pass now
        until(
            lambda: "shut/all.txt" in view_reads(crawler, planted, "games", ("users",)),
            what="the folder's new mode",
        )
        (planted / "private").chmod(0o755)  # daemon's folder opened: and its linked twin
        until(
            lambda: "public/peek/alice.txt" in view_reads(crawler, planted, "games", ()),
            what="the opened folder's files",
        )
        (planted / "private").chmod(0o700)
        until(
            lambda: not view_reads(crawler, planted, "games", ()) & {"private/alice.txt"},
            what="the closed folder's files",
        )
        # a file's new group, which its bits shut out: lp of staff may read it no more
        os.chown(planted / "public/not-owner.txt", -1, grp.getgrnam("users").gr_gid)
        (planted / "public/not-owner.txt").chmod(0o604)
        until(
            lambda: "public/not-owner.txt" not in view_reads(crawler, planted, "games", ("users",)),
            what="the file's new group",
        )
    finally:
        watcher.stop()
    assert_views_are_the_systems(crawler, planted)


@ROOT_ONLY
def test_after_a_restart_every_view_is_still_the_systems(
    tmp_path: Path, tika: TikaProcess, planted: Path
) -> None:
    from pylucene_mcp import Index
    from pylucene_mcp.crawler.extract import Extractor
    from pylucene_mcp.crawler.pipeline import CrawlSettings

    for _ in range(2):  # a crawl, then a restart: a new process's index and crawler
        index = Index.open(tmp_path / "index")
        try:
            crawler = Crawler(index, Extractor(tika), CrawlSettings())
            crawler.crawl([str(planted)])
            assert_views_are_the_systems(crawler, planted)
        finally:
            index.close()
        (planted / "shut").chmod(0o755)  # changed while no server ran


@ROOT_ONLY
def test_a_link_does_not_carry_a_file_into_a_folder_the_configuration_opens(
    fresh_index: Index, tika: TikaProcess, planted: Path
) -> None:
    from pylucene_mcp.crawler.extract import Extractor
    from pylucene_mcp.crawler.pipeline import CrawlSettings

    public = str(planted / "public")
    settings = Settings(readers={public: ("*",)})  # everyone reads public/, by the configuration
    patterns = Patterns(decided=tuple(settings.readers))
    crawler = Crawler(fresh_index, Extractor(tika), CrawlSettings(patterns=patterns))
    report = crawler.crawl([str(planted)])
    refused = {os.path.relpath(f["path"], planted) for f in report.failures}
    assert {"public/peek.txt", "public/peek"} <= refused
    games = view_reads(crawler, planted, "games", (), settings)
    assert not any("alice" in name or "peek" in name for name in games), games
    # daemon reads its file where it lies
    assert "private/alice.txt" in view_reads(crawler, planted, "daemon", (), settings)
    late = planted / "public/late.txt"
    late.symlink_to("../private/alice.txt")
    outcome = crawler.process_paths([str(late)], [str(planted)], patterns)
    assert outcome[str(late)].startswith("skipped: a link into a folder whose readers")
