"""Who may read a file, as its owner, group and mode say at crawl time (docs/team.md).

A file's readers are principals, as a caller's access token gives them
(:mod:`pylucene_mcp.server.caller`): ``user:<owner>`` when the owner may read it (``u+r``),
``group:<group>`` (``g+r``); and when anyone may (``o+r``), ``*``, every caller, and the owner and
group of each folder above it, who may get through that folder by name. Each must also get
through every folder above the file, from the file system's root down (search permission,
``x``): ``*`` through a folder with ``o+x``; ``user:NAME`` through one with ``o+x``, or that NAME
owns with ``u+x``; ``group:NAME`` through one with ``o+x``, or of group NAME with ``g+x``.

The system judges a caller by one class of bits only: the owner's for the owner, the group's for
a member of the group, the others' for everyone else. So a class whose bits refuse what the
others' allow is shut out however many others may: ``-user:<owner>`` and ``-group:<group>`` are
recorded for each file or folder on the way whose owner or group bits lack what is needed (``r``
on the file, ``x`` on a folder); a caller with such a principal reads nothing of the file, even
where another of its principals is named (a member of a shut-out group who owns the folder is
refused too: fewer, never more).

A file is judged where it really is: a link (the file's own name, or a folder on its way) is
resolved, and the file it leads to is judged with every folder above *that* file. Who may plant
a link may not lend it the readers of the folder it stands in.

Where the modes alone cannot tell, fewer readers are recorded, never more: a user who could pass
a folder as a member of its group is not counted (who belongs to a group is the system's
knowledge, not the token's); of a file or folder with a POSIX access control list, whose group
bits are the list's mask, the group is shut out, the list's named users and groups are not
counted, and ``*`` is not recorded (whom the list shuts out cannot be told from the mode).

Windows decides by access control lists, which the mode does not reflect: no readers are
recorded there (None), and its files are read through the configuration's ``readers`` alone.
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass

from pylucene_mcp.basics import portable


@dataclass(frozen=True)
class Owned:
    """The owner, group and mode of a file or folder (of ``os.stat``)."""

    uid: int
    gid: int
    mode: int
    #: it has a POSIX access control list: its group bits are then the list's mask, not what its
    #: group may do, and named users and groups may have more
    acl: bool = False

    @classmethod
    def of(cls, st: os.stat_result, path: str | None = None) -> Owned:
        """The stat ``st`` of the file or folder ``path`` (looked at for an access control
        list when given)."""
        return cls(st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode), path is not None and acl(path))


def acl(path: str) -> bool:
    """Whether ``path`` has a POSIX access control list (Linux; elsewhere: not known, False)."""
    try:
        return "system.posix_acl_access" in os.listxattr(path)
    except (AttributeError, OSError):
        return False


@functools.lru_cache(maxsize=4096)
def user_name(uid: int) -> str:
    """The name of the user ``uid`` (its number where the system has no name for it)."""
    try:
        import pwd

        return pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return str(uid)


@functools.lru_cache(maxsize=4096)
def group_name(gid: int) -> str:
    """The name of the group ``gid`` (its number where the system has no name for it)."""
    try:
        import grp

        return grp.getgrgid(gid).gr_name
    except (ImportError, KeyError):
        return str(gid)


def principals(
    file: Owned,
    folders: Sequence[Owned],
    system: str = portable.SYSTEM,
) -> tuple[str, ...] | None:
    """Who may read ``file`` below ``folders`` (from the root down), sorted, the shut-out
    classes among them (``-user:NAME``; ``-group:NAME except user:OWNER``, its owner judged by
    the owner's bits); None on a system whose modes do not say (Windows)."""
    if system == "win32":
        return None
    users = {file.uid} if file.mode & stat.S_IRUSR else set()
    groups = {file.gid} if file.mode & stat.S_IRGRP and not file.acl else set()
    found = set()
    shut = _shut(file, stat.S_IRUSR, stat.S_IRGRP, stat.S_IROTH)
    for d in folders:
        shut |= _shut(d, stat.S_IXUSR, stat.S_IXGRP, stat.S_IXOTH)
    if file.mode & stat.S_IROTH:  # whoever gets through the folders reads it
        listed = file.acl or any(d.acl for d in folders)  # whom its list shuts out: not known
        if all(d.mode & stat.S_IXOTH for d in folders) and not listed:
            found.add("*")
        # but for the file's owner and group, whose own bits the system takes instead
        users |= {d.uid for d in folders if d.uid != file.uid}
        groups |= {d.gid for d in folders if d.gid != file.gid}
    found |= {
        f"user:{user_name(uid)}" for uid in users if all(_passes(d, uid=uid) for d in folders)
    }
    found |= {
        f"group:{group_name(gid)}" for gid in groups if all(_passes(d, gid=gid) for d in folders)
    }
    found |= {_refusal(*one) for one in shut if _matters(one, found)}
    return tuple(sorted(found))


#: a shut-out class: ("user", uid, uid) or ("group", gid, uid of the object's owner)
Shut = tuple[str, int, int]
#: between a shut-out group and the owner it does not shut out (the owner's bits decide for it)
EXCEPT = " except "


def _matters(shut: Shut, named: set[str]) -> bool:
    """Whether a caller named by ``named`` may be one that ``shut`` shuts out (else it is
    not recorded)."""
    kind, number, owner = shut
    if kind == "user":
        # named itself, or perhaps as a member of a named group, or as anyone
        return any(p == f"user:{user_name(number)}" or not p.startswith("user:") for p in named)
    return bool(named - {f"user:{user_name(owner)}"})


def _refusal(kind: str, number: int, owner: int) -> str:
    if kind == "user":
        return f"-user:{user_name(number)}"
    return f"-group:{group_name(number)}{EXCEPT}user:{user_name(owner)}"


def _shut(owned: Owned, user_bit: int, group_bit: int, other_bit: int) -> set[Shut]:
    """The owner and the group of ``owned`` whose own bits refuse what is needed (the system
    judges each by those bits alone: a member of the group who owns ``owned`` by its owner's);
    the group of one with an access control list always (its group entry is not in the mode)."""
    if not owned.mode & (user_bit | group_bit | other_bit):
        return set()  # no one gets through: nobody to tell apart
    shut: set[Shut] = set() if owned.mode & user_bit else {("user", owned.uid, owned.uid)}
    if owned.acl or not owned.mode & group_bit:
        shut.add(("group", owned.gid, owned.uid))
    return shut


def _passes(folder: Owned, uid: int | None = None, gid: int | None = None) -> bool:
    """Whether the user ``uid`` (or the group ``gid``) may search ``folder``."""
    if folder.mode & stat.S_IXOTH:
        return True
    if uid is not None:
        return folder.uid == uid and bool(folder.mode & stat.S_IXUSR)
    return folder.gid == gid and bool(folder.mode & stat.S_IXGRP) and not folder.acl


def of_file(path: str, st: os.stat_result) -> tuple[str, ...] | None:
    """Who may read the file at ``path`` (its ``os.stat``, links followed: ``st``), judged where
    it really is: links resolved, the folders above the file it leads to."""
    real = os.path.realpath(path)
    return principals(Owned.of(st, real), above(os.path.dirname(real)))


def above(folder: str) -> tuple[Owned, ...]:
    """The owners and modes of ``folder`` and of every folder above it, from the root down,
    where they really are (links resolved first: the system passes the folders of a link's
    target); a folder that cannot be looked at is taken as one nobody may pass."""
    chain: list[Owned] = []
    path = os.path.realpath(folder)
    while True:
        try:
            chain.append(Owned.of(os.stat(path), path))
        except OSError:
            chain.append(Owned(-1, -1, 0))
        parent = os.path.dirname(path)
        if parent == path:
            return tuple(reversed(chain))
        path = parent
