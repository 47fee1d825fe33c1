"""Crawl throughput and memory on a mixed real corpus.

The corpus: the PDFs of Debian's ``texlive-latex-base-doc`` package (LaTeX manuals, many pages;
``apt-get install texlive-latex-base-doc``), plus office files, e-mails and text made by the real
writers of the test suite (python-docx, openpyxl, python-pptx, odfpy, email), in English and
German. Prints files/s, MB/s, the time split and the peak memory (RSS) of this process and of the
Tika server's process tree.

The cost of the word forms (issue 10: "indexing throughput with the lemma fields is at least 75 %
of today's"): the corpus is crawled twice more into new indexes, without the lemma fields
(``schema.lemma_fields_of`` giving none, as before they existed) and with them, and the
documents the first crawl extracted are written again into two more indexes, each way, so that
the indexing alone is timed too (Tika's extraction dominates a crawl).

    python bench/crawl.py [--office N] [--workers W] [--pdf-dir DIR] [--no-compare]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from _common import ROOT  # noqa: F401  (puts the checkout on sys.path)

from pylucene_mcp import Index
from pylucene_mcp.basics import schema
from pylucene_mcp.crawler.extract import Extractor
from pylucene_mcp.crawler.pipeline import Crawler, CrawlSettings
from pylucene_mcp.crawler.tika_process import TikaProcess, TikaSettings
from tests.crawler import files

TEXLIVE_DOC = Path("/usr/share/doc/texlive-doc/latex")


def rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_rss_kb(pid: int) -> int:
    """RSS of a process and all its descendants (Tika forks its worker JVM)."""
    parents: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        total += rss_kb(current)
        todo.extend(parents.get(current, []))
    return total


def make_office(folder: Path, count: int) -> None:
    makers = [files.docx, files.xlsx, files.pptx, files.odt, files.eml, files.rtf, files.epub]
    suffixes = [".docx", ".xlsx", ".pptx", ".odt", ".eml", ".rtf", ".epub"]
    folder.mkdir(parents=True)
    for n in range(count):
        kind = n % len(makers)
        makers[kind](folder / f"office{n:04}{suffixes[kind]}")
        (folder / f"note{n:04}.md").write_text(
            f"# Note {n}\n\nDie Besprechung Nummer {n} behandelte den Arbeitsvertrag. " * 20
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--office", type=int, default=140, help="office files to generate")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--pdf-dir", type=Path, default=TEXLIVE_DOC)
    parser.add_argument("--no-compare", action="store_true", help="skip the word-forms runs")
    parser.add_argument("--tika-heap", default=TikaSettings().heap, help="the Tika worker's heap")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="pylucene-mcp-crawl-bench-"))
    corpus = work / "corpus"
    corpus.mkdir()
    pdfs = sorted(args.pdf_dir.rglob("*.pdf")) if args.pdf_dir.is_dir() else []
    if not pdfs:
        print(
            f"no PDFs under {args.pdf_dir}: "
            "apt-get install texlive-latex-base-doc for the full corpus"
        )
    for pdf in pdfs:
        target = corpus / "pdf" / pdf.relative_to(args.pdf_dir)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(pdf, target)
    make_office(corpus / "office", args.office)
    count = sum(1 for p in corpus.rglob("*") if p.is_file())
    size = sum(p.stat().st_size for p in corpus.rglob("*") if p.is_file())
    print(f"corpus: {count} files ({len(pdfs)} PDFs), {size / 1e6:.1f} MB")

    index = Index.open(work / "index")
    server = TikaProcess(TikaSettings(heap=args.tika_heap), log_dir=work / "logs")
    peak = {"self": 0, "tika": 0}
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.2):
            peak["self"] = max(peak["self"], rss_kb(os.getpid()))
            if server.pid is not None:
                peak["tika"] = max(peak["tika"], tree_rss_kb(server.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.perf_counter()
    server.start()
    tika_start = time.perf_counter() - started
    crawler = Crawler(index, Extractor(server), CrawlSettings(workers=args.workers))
    report = crawler.crawl([str(corpus)])
    elapsed = time.perf_counter() - started
    again = crawler.crawl([str(corpus)])
    stop.set()
    sampler.join()
    server.close()
    data = report.to_dict()
    crawl_s = data["duration_s"]
    print(f"Tika server start: {tika_start:.1f} s")
    print(
        f"first crawl: {data['added']} indexed, {data['failed']} failed in {crawl_s:.1f} s: "
        f"{data['processed'] / crawl_s:.1f} files/s, {data['bytes'] / 1e6 / crawl_s:.2f} MB/s "
        f"(total with Tika start {elapsed:.1f} s)"
    )
    for failure in data["failures"][:10]:
        print(f"  failed: {Path(failure['path']).name}: {failure['reason']}")
    print(
        f"second crawl (nothing changed): {again.skipped} skipped, {again.to_extract} re-read, "
        f"{again.duration_s:.2f} s"
    )
    print(
        f"peak RSS: this process {peak['self'] / 1024:.0f} MB, "
        f"Tika tree {peak['tika'] / 1024:.0f} MB (worker heap {args.tika_heap})"
    )
    print(f"index: {len(index)} documents")
    if not args.no_compare:
        compare_word_forms(index, corpus, work, args.workers)
    index.close()
    shutil.rmtree(work, ignore_errors=True)


@contextlib.contextmanager
def word_forms(way: str) -> Iterator[None]:
    """Inside, documents get their lemma fields (``way`` "with") or none ("without": the schema
    before issue 10)."""
    original = schema.lemma_fields_of
    if way == "without":
        schema.lemma_fields_of = lambda language: ()  # type: ignore[assignment]
    try:
        yield
    finally:
        schema.lemma_fields_of = original


def stored_documents(index: Index) -> list[dict[str, object]]:
    """The first crawl's documents as a writer takes them (path, content, language, title)."""
    out = []
    with index.searcher() as searcher:
        stored = searcher.storedFields()
        for doc_id in range(int(searcher.getIndexReader().maxDoc())):
            doc = stored.document(doc_id)
            out.append(
                {
                    "file_path": str(doc.get("file_path")),
                    "content": str(doc.get("content") or ""),
                    "language": str(doc.get("language") or "unknown"),
                    "title": str(doc.get("title") or ""),
                }
            )
    return out


def index_time(docs: list[dict[str, object]], folder: Path) -> tuple[float, int]:
    """Seconds to write and commit ``docs`` into a new index at ``folder``, and its size."""
    index = Index.open(folder)
    started = time.perf_counter()
    with index.writer() as writer:
        for doc in docs:
            writer.add(doc)
    seconds = time.perf_counter() - started
    index.close()
    return seconds, sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def crawl_time(corpus: Path, folder: Path, workers: int) -> float:
    index = Index.open(folder)
    server = TikaProcess(TikaSettings(), log_dir=folder.parent / f"{folder.name}-logs")
    server.start()
    try:
        report = Crawler(index, Extractor(server), CrawlSettings(workers=workers)).crawl(
            [str(corpus)]
        )
    finally:
        server.close()
        index.close()
    return float(report.duration_s)


def compare_word_forms(index: Index, corpus: Path, work: Path, workers: int) -> None:
    docs = stored_documents(index)
    megabytes = sum(len(str(d["content"]).encode()) for d in docs) / 1e6
    languages: dict[str, int] = {}
    for doc in docs:
        languages[str(doc["language"])] = languages.get(str(doc["language"]), 0) + 1
    print(f"word forms: {len(docs)} documents, {megabytes:.1f} MB of text, languages {languages}")
    timings: dict[str, list[float]] = {"with": [], "without": []}
    sizes: dict[str, int] = {}
    for round_ in range(3):  # interleaved, so that a slow moment of the machine hits both
        for way in ("without", "with"):
            with word_forms(way):
                seconds, sizes[way] = index_time(docs, work / f"index-{way}-{round_}")
            timings[way].append(seconds)
    best = {way: min(times) for way, times in timings.items()}
    for way in ("without", "with"):
        print(
            f"  indexing {way} lemma fields: {len(docs) / best[way]:.1f} docs/s, "
            f"{megabytes / best[way]:.2f} MB/s (best of 3: {best[way]:.2f} s; "
            f"all {', '.join(f'{t:.2f}' for t in timings[way])}), index {sizes[way] / 1e6:.1f} MB"
        )
    print(f"  indexing throughput with / without: {best['without'] / best['with']:.2f}")
    crawls: dict[str, list[float]] = {"with": [], "without": []}
    for round_ in range(2):  # interleaved too
        for way in ("without", "with"):
            with word_forms(way):
                crawls[way].append(crawl_time(corpus, work / f"crawl-{way}-{round_}", workers))
    fastest = {way: min(times) for way, times in crawls.items()}
    print(
        f"  crawl without lemma fields {fastest['without']:.1f} s, with {fastest['with']:.1f} s "
        f"(best of 2; all {crawls}): throughput with / without "
        f"{fastest['without'] / fastest['with']:.2f}"
    )


if __name__ == "__main__":
    main()
