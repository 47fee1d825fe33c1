"""Who may read a file, as its owner, group and mode say at crawl time (docs/team.md).

A file's readers are principals, as a caller's access token gives them
(:mod:`pylucene_mcp.server.caller`): ``user:<owner>`` when the owner may read it (``u+r``),
``group:<group>`` (``g+r``); and when anyone may (``o+r``), ``*``, every caller, and the owner and
group of each folder above it, who may get through that folder by name. Each must also get
through every folder above the file, from the file system's root down (search permission,
``x``): ``*`` through a folder with ``o+x``; ``user:NAME`` through one with ``o+x``, or that NAME
owns with ``u+x``; ``group:NAME`` through one with ``o+x``, or of group NAME with ``g+x``.

Where the modes alone cannot tell, fewer readers are recorded, never more: a user who could pass
a folder as a member of its group is not counted (who belongs to a group is the system's
knowledge, not the token's); of a file or folder with a POSIX access control list, whose group
bits are the list's mask, the group is not counted, nor the list's named users and groups. One
difference the other way: a file of mode ``0604`` is read by ``*`` and so by its owner too, whom
the system would refuse (the owner may change the mode).

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
    """Who may read ``file`` below ``folders`` (from the root down), sorted; None on a system
    whose modes do not say (Windows)."""
    if system == "win32":
        return None
    users = {file.uid} if file.mode & stat.S_IRUSR else set()
    groups = {file.gid} if file.mode & stat.S_IRGRP and not file.acl else set()
    found = set()
    if file.mode & stat.S_IROTH:  # whoever gets through the folders reads it
        if all(d.mode & stat.S_IXOTH for d in folders):
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
    return tuple(sorted(found))


def _passes(folder: Owned, uid: int | None = None, gid: int | None = None) -> bool:
    """Whether the user ``uid`` (or the group ``gid``) may search ``folder``."""
    if folder.mode & stat.S_IXOTH:
        return True
    if uid is not None:
        return folder.uid == uid and bool(folder.mode & stat.S_IXUSR)
    return folder.gid == gid and bool(folder.mode & stat.S_IXGRP) and not folder.acl


def above(folder: str) -> tuple[Owned, ...]:
    """The owners and modes of ``folder`` and of every folder above it, from the root down
    (links followed, as the walk follows them); a folder that cannot be looked at is taken as
    one nobody may pass."""
    chain: list[Owned] = []
    path = os.path.abspath(folder)
    while True:
        try:
            chain.append(Owned.of(os.stat(path), path))
        except OSError:
            chain.append(Owned(-1, -1, 0))
        parent = os.path.dirname(path)
        if parent == path:
            return tuple(reversed(chain))
        path = parent
