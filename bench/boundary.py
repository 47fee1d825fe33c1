"""The cost of the JPype boundary: one search driven from Python vs the same work in Java.

Budget (DESIGN.md): at most 20 % over the same Lucene work done in Java. The index is the CACM
test collection (3,204 abstracts, ``shared/eval/cacm``), indexed through the Python API; the
Java side is ``bench/shims/SearchWork.java`` (parse twice, DrillSideways with four facet
dimensions, passages for the page, stored fields of each hit), compiled here with the JDK's
``javac`` and put on the class path through ``PYLUCENE_MCP_CLASSPATH``.

    python bench/boundary.py [ITERATIONS] [--cacm PATH]
"""

from __future__ import annotations

import argparse
import gc
import html
import os
import re
import statistics
import subprocess
import tarfile
import tempfile
import time
from pathlib import Path

from _common import ROOT

QUERIES = [
    "computer",
    "algorithm* AND sort*",
    '"parallel processing"~3',
    "*graph*",
    "(compiler OR interpreter) AND language",
]


def javac() -> Path:
    from pylucene_mcp import jvm

    homes = [jvm.find_java_home(), *sorted(Path("/usr/lib/jvm").glob("*"), reverse=True)]
    for home in homes:
        if jvm.java_major(home) >= 21 and (home / "bin" / "javac").exists():
            return home / "bin" / "javac"
    raise SystemExit("needs a JDK >= 21 with javac to compile bench/shims/SearchWork.java")


def compile_work(out: Path) -> None:
    from pylucene_mcp import jvm

    jars = os.pathsep.join(jvm.class_path())
    subprocess.run(
        [
            str(javac()),
            "--release",
            "21",
            "-cp",
            jars,
            "-d",
            str(out),
            str(ROOT / "bench" / "shims" / "SearchWork.java"),
        ],
        check=True,
    )


def cacm_docs(archive: Path) -> list[dict[str, str]]:
    docs = []
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            if not member.name.endswith(".html"):
                continue
            raw = tar.extractfile(member)
            assert raw is not None
            text = html.unescape(re.sub(r"<[^>]+>", " ", raw.read().decode("utf-8", "replace")))
            lines = [line.strip() for line in text.splitlines() if line.strip()]
            name = Path(member.name).name
            docs.append(
                {
                    "file_path": f"/cacm/{name}",
                    "title": lines[0] if lines else name,
                    "content": "\n".join(lines),
                    "language": "en",
                }
            )
    return docs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("iterations", nargs="?", type=int, default=500)
    parser.add_argument("--cacm", type=Path, default=ROOT.parent / "shared/eval/cacm/cacm.tar.gz")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="pylucene-mcp-boundary-"))
    compile_work(work / "classes")
    os.environ["PYLUCENE_MCP_CLASSPATH"] = str(work / "classes")

    from pylucene_mcp import Index, analysis, jvm, schema
    from pylucene_mcp.search import search

    jvm.start()
    docs = cacm_docs(args.cacm)
    index = Index.open(work / "index")
    started = time.perf_counter()
    with index.writer() as writer:
        for doc in docs:
            writer.add(doc)
    took = time.perf_counter() - started
    print(
        f"indexed {len(docs)} CACM documents through the Python API in {took:.2f} s "
        f"({len(docs) / took:.0f} docs/s)"
    )
    del docs
    gc.collect()
    gc.freeze()  # as the server does after its start (Service._prime)

    work_class = jvm.jclass("SearchWork")
    sets = [
        jvm.jset(names)
        for names in (
            schema.TEXT_FIELDS,
            schema.KEYWORD_FIELDS,
            schema.LONG_FIELDS,
            schema.DATE_FIELDS,
        )
    ]
    print(f"{'query':42} {'java ms':>8} {'python ms':>10} {'overhead':>9}")
    ratios = []
    with index.searcher() as searcher:
        limited_reader, state = index.facet_state(searcher)
        for query in QUERIES:

            def java_run(n: int, query: str = query) -> list[float]:
                nanos = work_class.run(
                    searcher,
                    limited_reader,
                    index.facets_config,
                    state,
                    analysis.schema_analyzer(),
                    *sets,
                    query,
                    n,
                )
                return [int(x) / 1e6 for x in nanos]

            def python_run(n: int, query: str = query) -> list[float]:
                out = []
                for _ in range(n):
                    t = time.perf_counter()
                    search(index, query)
                    out.append((time.perf_counter() - t) * 1000)
                return out

            java_run(args.iterations)  # warm-up: JIT for both paths
            python_run(args.iterations)
            java_samples: list[float] = []
            python_samples: list[float] = []
            for _ in range(5):  # interleaved, so that drift hits both sides alike
                java_samples += java_run(args.iterations // 5)
                python_samples += python_run(args.iterations // 5)
            java_ms = statistics.median(java_samples)
            python_ms = statistics.median(python_samples)
            ratio = python_ms / java_ms - 1
            ratios.append(ratio)
            print(f"{query:42} {java_ms:8.3f} {python_ms:10.3f} {ratio:8.0%}")
    print(f"median overhead of the Python side: {statistics.median(ratios):.0%} (budget 20 %)")
    index.close()


if __name__ == "__main__":
    main()
