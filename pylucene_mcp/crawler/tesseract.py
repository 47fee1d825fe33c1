"""Where Tesseract lives and what it can read: the program found by the setting
``tesseract_path``, the PATH or where its installers put it on each system, its languages, and
what to install where it is missing (said by the crawler's status and by ``doctor``)."""

from __future__ import annotations

import ntpath
import os
import posixpath
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from pylucene_mcp.basics import portable

#: where Tesseract's installers put it, by system, beside the PATH (``%VAR%``: from the
#: environment): the UB Mannheim installer on Windows (for all users or one), Homebrew on Apple
#: silicon and Intel, MacPorts
KNOWN_PLACES: dict[str, tuple[str, ...]] = {
    "win32": (
        r"%ProgramFiles%\Tesseract-OCR\tesseract.exe",
        r"%ProgramFiles(x86)%\Tesseract-OCR\tesseract.exe",
        r"%LOCALAPPDATA%\Programs\Tesseract-OCR\tesseract.exe",
    ),
    "darwin": (
        "/opt/homebrew/bin/tesseract",
        "/usr/local/bin/tesseract",
        "/opt/local/bin/tesseract",
    ),
    "linux": ("/usr/bin/tesseract", "/usr/local/bin/tesseract", "/snap/bin/tesseract"),
}


def find_tesseract(
    configured: str | None = None,
    *,
    system: str = portable.SYSTEM,
    environ: Mapping[str, str] | None = None,
    is_file: Callable[[str], bool] = os.path.isfile,
    which: Callable[..., str | None] = shutil.which,
) -> str | None:
    """The ``tesseract`` program: ``configured`` (the setting ``tesseract_path``, the program
    or its folder), else the one on the PATH, else one where its installer puts it
    (:data:`KNOWN_PLACES`); None when there is none."""
    env = os.environ if environ is None else environ
    name = "tesseract.exe" if system == "win32" else "tesseract"
    join = ntpath.join if system == "win32" else posixpath.join
    if configured:
        for candidate in (configured, join(configured, name)):
            if is_file(candidate):
                return candidate
        return None
    found = which(name, path=env.get("PATH"))
    if found:
        return found
    key = "linux" if system.startswith("linux") else system
    for place in KNOWN_PLACES.get(key, ()):
        expanded = _expand(place, env)
        if expanded and is_file(expanded):
            return expanded
    return None


def _expand(place: str, env: Mapping[str, str]) -> str | None:
    """``place`` with its ``%VAR%`` taken from ``env`` (None when one is not set)."""
    while "%" in place:
        start = place.index("%")
        end = place.index("%", start + 1)
        value = env.get(place[start + 1 : end])
        if not value:
            return None
        place = place[:start] + value + place[end + 1 :]
    return place


def installed_languages(program: str, timeout_s: float = 20.0) -> list[str]:
    """The languages ``program`` (Tesseract) has data for (``--list-langs``), ``osd`` left out.

    Raises:
        OSError: when it cannot be run or fails.
    """
    try:
        done = subprocess.run(
            [program, "--list-langs"],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired as exc:
        raise OSError(f"{program} --list-langs took longer than {timeout_s:g} s") from exc
    if done.returncode != 0:
        raise OSError(f"{program} --list-langs failed: {(done.stderr or '').strip()[:200]}")
    lines = (done.stdout or done.stderr).splitlines()
    return sorted(line.strip() for line in lines[1:] if line.strip() and line.strip() != "osd")


def install_hint(languages: Sequence[str], system: str = portable.SYSTEM) -> str:
    """How to install Tesseract with the data of ``languages`` (``eng``, ``deu``) on
    ``system``: the package manager's command, or the Windows installer."""
    if system == "win32":
        return (
            "the UB Mannheim installer "
            "(https://github.com/UB-Mannheim/tesseract/wiki), ticking the languages "
            f"{', '.join(languages)} under 'Additional language data'; it goes to "
            r"C:\Program Files\Tesseract-OCR (or set tesseract_path)"
        )
    if system == "darwin":
        extra = " tesseract-lang" if any(code != "eng" for code in languages) else ""
        return f"brew install tesseract{extra} (Homebrew)"
    debian = " ".join(f"tesseract-ocr-{code}" for code in languages)
    fedora = " ".join(f"tesseract-langpack-{code}" for code in languages)
    return (
        f"sudo apt-get install tesseract-ocr {debian} (Debian, Ubuntu) or sudo dnf install "
        f"tesseract {fedora} (Fedora)"
    )


def languages_of(setting: str) -> list[str]:
    """The languages of the setting ``ocr_languages`` (``eng+deu``)."""
    return [code.strip() for code in setting.replace(",", "+").split("+") if code.strip()]


@dataclass(frozen=True)
class Availability:
    """Whether OCR runs, with what, and why not."""

    program: str | None
    languages: tuple[str, ...]
    #: None: OCR runs; else why not, and what to do
    reason: str | None

    @property
    def on(self) -> bool:
        return self.reason is None


def availability(
    mode: str, wanted: str, configured: str | None = None, system: str = portable.SYSTEM
) -> Availability:
    """Whether OCR runs under the setting ``ocr`` (``auto``, ``on``, ``off``) with the languages
    ``wanted`` (``ocr_languages``): with ``auto`` or ``on``, when Tesseract is found with data
    for at least one of them (those it has not are left out, and said)."""
    codes = languages_of(wanted)
    if mode == "off":
        return Availability(None, (), "OCR is off (the setting ocr: off)")
    program = find_tesseract(configured, system=system)
    if program is None:
        return Availability(
            None, (), f"Tesseract is not installed; install it: {install_hint(codes, system)}"
        )
    try:
        have = installed_languages(program)
    except OSError as exc:
        return Availability(program, (), f"Tesseract cannot be run ({exc})")
    usable = tuple(code for code in codes if code in have)
    if not usable:
        return Availability(
            program,
            (),
            f"Tesseract has none of the languages {', '.join(codes)} (it has "
            f"{', '.join(have) or 'none'}); install them: {install_hint(codes, system)}",
        )
    return Availability(program, usable, None)
