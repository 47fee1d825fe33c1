"""The cost of the JPype boundary: one search driven from Python vs the same work in Java.

Budget (DESIGN.md): at most 20 % over the same Lucene work done in Java. The index is the CACM
test collection (3,204 abstracts, ``shared/eval/cacm``), indexed through the Python API; the
Java side is ``bench/shims/SearchWork.java``: the same one call into the product's
``SearchContext`` (parse twice, DrillSideways with four facet dimensions, passages and stored
fields of the page written as the tool's JSON), looped in Java, compiled here with the JDK's
``javac`` and put on the class path through ``PYLUCENE_MCP_CLASSPATH``. The Python side is
``Index.search`` of the public API, which returns every field of the result.

    python bench/boundary.py [ITERATIONS] [--cacm PATH]
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from _common import ROOT, cacm_pages

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
    return [
        {
            "file_path": f"/cacm/{name}",
            "title": lines[0] if lines else name,
            "content": "\n".join(lines),
            "language": "en",
        }
        for name, _, lines in cacm_pages(archive)
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("iterations", nargs="?", type=int, default=500)
    parser.add_argument("--cacm", type=Path, default=ROOT.parent / "shared/eval/cacm/cacm.tar.gz")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="pylucene-mcp-boundary-"))
    compile_work(work / "classes")
    os.environ["PYLUCENE_MCP_CLASSPATH"] = str(work / "classes")

    from pylucene_mcp import Index, jvm
    from pylucene_mcp.engine.core.query import context
    from pylucene_mcp.engine.core.request import SearchRequest
    from pylucene_mcp.engine.lucene.search import search

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
    print(
        f"{'query':42} {'java ms':>8} {'python ms':>10} {'overhead':>9} {'read ms':>10} "
        f"{'overhead':>9}"
    )
    ratios: list[float] = []
    read_ratios: list[float] = []
    for query in QUERIES:

        def java_run(n: int, query: str = query) -> list[float]:
            nanos = work_class.run(context(), index.searchers, query, n)
            return [int(x) / 1e6 for x in nanos]

        def python_run(n: int, query: str = query, read: bool = False) -> list[float]:
            out = []
            for _ in range(n):
                t = time.perf_counter()
                result = search(index, SearchRequest(query))
                if read:  # every field of every hit and passage, as Python objects
                    seen = [(h.file_path, h.title, h.score) for h in result.documents]
                    seen += [
                        (p.text, p.matched_terms) for h in result.documents for p in h.passages
                    ]
                out.append((time.perf_counter() - t) * 1000)
            return out

        java_run(args.iterations)  # warm-up: JIT for both paths
        python_run(args.iterations)
        python_run(args.iterations, read=True)
        java_samples: list[float] = []
        python_samples: list[float] = []
        read_samples: list[float] = []
        for _ in range(5):  # interleaved, so that drift hits all sides alike
            java_samples += java_run(args.iterations // 5)
            python_samples += python_run(args.iterations // 5)
            read_samples += python_run(args.iterations // 5, read=True)
        java_ms = statistics.median(java_samples)
        python_ms = statistics.median(python_samples)
        read_ms = statistics.median(read_samples)
        ratios.append(python_ms / java_ms - 1)
        read_ratios.append(read_ms / java_ms - 1)
        print(
            f"{query:42} {java_ms:8.3f} {python_ms:10.3f} {ratios[-1]:8.0%} "
            f"{read_ms:10.3f} {read_ratios[-1]:8.0%}"
        )
    print(f"median overhead of the Python side: {statistics.median(ratios):.0%} (budget 20 %)")
    print(
        "median overhead with every hit and passage read in Python: "
        f"{statistics.median(read_ratios):.0%}"
    )
    index.close()


if __name__ == "__main__":
    main()
