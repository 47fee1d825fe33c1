"""What one reader may read of an index (docs/team.md): the documents below some folders, and those
whose recorded readers name one of the reader's principals."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Readable:
    """The documents below ``folders``; and, below none of ``assigned`` (the folders whose readers
    the configuration names: theirs go by it alone), those whose readers, as the crawler recorded
    them from the file's owner, group and mode, name one of ``principals``."""

    folders: tuple[str, ...] = ()
    principals: tuple[str, ...] = ()
    assigned: tuple[str, ...] = ()

    @classmethod
    def of(cls, value: Readable | Sequence[str]) -> Readable:
        """``value`` as it is, or the documents below the folders ``value``."""
        if isinstance(value, Readable):
            return value
        if isinstance(value, str):
            raise TypeError("give a sequence of folders, not one string")
        return cls(tuple(value))

    def __post_init__(self) -> None:  # one identity whatever the order given
        for name in ("folders", "principals", "assigned"):
            object.__setattr__(self, name, tuple(sorted(set(getattr(self, name)))))

    @property
    def key(self) -> tuple[str, ...]:
        """The identity of this reader's view, as text: what a cursor of it belongs to."""
        parts = [*self.folders]
        if self.principals:
            parts += [f"readers={','.join(self.principals)}", *(f"-{f}" for f in self.assigned)]
        return tuple(parts)
