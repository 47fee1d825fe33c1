"""pyserini's on-the-fly indexer (``pyserini.index.lucene.LuceneIndexer``, Anserini's
``SimpleIndexer``), so that a script that indexes in-process documents runs with its import
changed::

    from pylucene_mcp.research import LuceneIndexer

    indexer = LuceneIndexer("indexes/notes")          # a new index (one already there is replaced)
    indexer.add_doc_dict({"id": "d1", "contents": "semantic networks"})
    indexer.add_batch_raw(['{"id": "d2", "contents": "parallel sorting"}'])
    indexer.close()

The index is Anserini's: ``id`` (a keyword with sorted doc values, stored), ``contents`` (stored,
with term vectors: the document vectors RM3 and Rocchio read), analysed by Anserini's English
analyzer, or split at white space with ``-pretokenized``. ``append=True`` (or ``-append``) adds
to an index already there instead of replacing it.

Learned sparse retrieval (SPLADE, uniCOIL): with ``-collection JsonVectorCollection`` a document
carries ``vector``, its terms' weights (``{"id": "d1", "vector": {"network": 87, "##s": 12}}``),
and its ``contents`` is each term written as many times as its weight's integer part (Jackson's
``asInt``, which Anserini reads it with: 2.9 is 2, a weight below 1 leaves the term out), split
at white space. ``-impact`` makes the index's similarity :meth:`Similarity.impact` (the frequency
times the query's weight), which :class:`~pylucene_mcp.research.impact.LuceneImpactSearcher`
searches.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors
from pylucene_mcp.research.components import Analyzer, FieldSpec
from pylucene_mcp.research.index import ResearchIndex
from pylucene_mcp.research.index_folder import commit_data, is_product_index

log = logging.getLogger(__name__)

#: the arguments of Anserini's indexer that take a value, and those that are flags, as read here
_VALUED = {"-index", "-threads", "-input", "-collection", "-generator", "-M", "-efC"}
_FLAGS = {
    "-pretokenized", "-append", "-storePositions", "-storeDocvectors", "-storeRaw",
    "-storeContents", "-optimize", "-impact", "-quantize.int8",
}  # fmt: skip
#: the collections and generators the command line reads here (Anserini's names)
COLLECTIONS = ("JsonCollection", "JsonVectorCollection", "JsonDenseVectorCollection")
#: Anserini's dense generators (their indexers' defaults), taken by name
DENSE_GENERATORS = ("DenseVectorDocumentGenerator", "HnswDenseVectorDocumentGenerator")
GENERATORS = ("DefaultLuceneDocumentGenerator",)


class LuceneIndexer:
    """Indexes documents given in Python into an Anserini-style research index."""

    def __init__(
        self,
        index_dir: str | Path | None = None,
        args: Sequence[str] | None = None,
        append: bool = False,
        threads: int = 8,
    ) -> None:
        """Raises:
        InvalidRequestError: without a folder, for an argument Anserini's indexer does not
            take here, or for a folder whose index has another schema.
        """
        options = _options(list(args or ()))
        folder = index_dir if index_dir is not None else options.get("-index")
        if folder is None:
            raise errors.InvalidRequestError(
                "LuceneIndexer needs the index folder: LuceneIndexer('path') or args=['-index', "
                "'path']"
            )
        self.index_dir = str(folder)
        self.threads = int(options.get("-threads", threads))
        self.append = bool(append or "-append" in options)
        self._vectors = _vectors(options)
        fields = _fields(_analyzer(options), stored=True, term_vectors=True)
        if not self.append:  # Anserini's indexer replaces what was there
            _remove_index(Path(self.index_dir))
        self._index = ResearchIndex.create(Path(self.index_dir), fields, _similarity(options))

    def add_doc_raw(self, doc: str) -> None:
        """Adds a document given as JSON text (``{"id": …, "contents": …}``)."""
        self.add_batch_raw([doc])

    def add_doc_dict(self, doc: Mapping[str, str]) -> None:
        """Adds a document given as a dict with ``id`` and ``contents``."""
        self.add_batch_dict([doc])

    def add_batch_raw(self, docs: Iterable[str]) -> None:
        """Adds documents given as JSON texts."""
        self.add_batch_dict(_parsed(doc) for doc in docs)

    def add_batch_dict(self, docs: Iterable[Mapping[str, str]]) -> None:
        """Adds documents given as dicts with ``id`` and ``contents``."""
        rows = [_row(doc, self._vectors) for doc in docs]
        self._index.add_many(rows, threads=max(1, min(self.threads, 2)))

    def add_doc_json(self, node: Mapping[str, str]) -> None:
        """Adds a document given as a JSON object node (:class:`JacksonObjectMapper`'s)."""
        self.add_batch_json([node])

    def add_batch_json(self, nodes: Iterable[Mapping[str, str]]) -> None:
        """Adds documents given as JSON object nodes."""
        self.add_batch_dict(nodes)

    def close(self) -> None:
        """Commits every document added and closes the index."""
        self._index.close()

    def __enter__(self) -> LuceneIndexer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ObjectNode(dict[str, Any]):
    """A JSON object as Jackson's ``ObjectNode`` is built: ``put`` returns the node."""

    def put(self, name: str, value: Any) -> ObjectNode:
        self[name] = value
        return self

    def toString(self) -> str:  # Jackson's name
        return json.dumps(self, ensure_ascii=False, separators=(",", ":"))


class JacksonObjectMapper:
    """pyserini's ``JacksonObjectMapper``, for the JSON nodes its indexer takes: here they are
    Python dicts (no Jackson in the JVM)."""

    def createObjectNode(self) -> ObjectNode:  # Jackson's name
        return ObjectNode()


def _remove_index(folder: Path) -> None:
    """Removes the Lucene index in ``folder`` (its files), refusing a folder that holds
    anything else: only an index is replaced, never a folder of other files.

    Raises:
        InvalidRequestError: for a folder with other things in it, or the product's own index.
    """
    if not folder.is_dir():
        return
    entries = list(folder.iterdir())
    if not entries:
        return
    data = commit_data(folder)
    if data is not None and is_product_index(data):
        raise errors.InvalidRequestError(
            f"{folder} is the product's own index (the crawler's): the indexer does not replace "
            "it; give another folder"
        )
    if data is None or any(not entry.is_file() for entry in entries):
        raise errors.InvalidRequestError(
            f"{folder} holds other things than an index: the indexer replaces only an index; "
            "give an empty or new folder, or append=True to add to the index there"
        )
    for entry in entries:
        entry.unlink()


def _options(args: list[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    i = 0
    while i < len(args):
        name = args[i]
        if name in _FLAGS:
            options[name] = ""
            i += 1
        elif name in _VALUED and i + 1 < len(args):
            options[name] = args[i + 1]
            i += 2
        else:
            raise errors.InvalidRequestError(
                f"{name!r} is no argument of the indexer here; it takes "
                f"{', '.join(sorted(_VALUED | _FLAGS))}"
            )
    return options


def _parsed(doc: str) -> Mapping[str, str]:
    try:
        value = json.loads(doc)
    except json.JSONDecodeError as exc:
        raise errors.InvalidRequestError(f"a raw document is JSON text: {exc}") from exc
    if not isinstance(value, dict):
        raise errors.InvalidRequestError("a raw document is a JSON object with id and contents")
    return value


def _row(doc: Mapping[str, Any], vectors: bool = False) -> dict[str, str]:
    if vectors:
        return _vector_row(doc)
    if "id" not in doc or "contents" not in doc:
        raise errors.InvalidRequestError(
            f"a document has an id and contents, this one has {', '.join(map(str, doc))}"
        )
    return {"id": str(doc["id"]), "contents": str(doc["contents"])}


def _vector_row(doc: Mapping[str, Any]) -> dict[str, str]:
    """A ``JsonVectorCollection`` document as Anserini indexes it: each term of ``vector``
    written as many times as its weight's integer part, in the vector's order."""
    vector = doc.get("vector")
    if "id" not in doc or not isinstance(vector, Mapping):
        raise errors.InvalidRequestError(
            "a JsonVectorCollection document has an id and a vector of term weights "
            '({"id": "d1", "vector": {"network": 87}}), this one has ' + ", ".join(map(str, doc))
        )
    words: list[str] = []
    for term, weight in vector.items():
        count = _as_int(weight)
        if count > 0 and any(c.isspace() for c in str(term)):
            raise errors.InvalidRequestError(
                f"document {doc['id']}: the term {term!r} has white space in it, which the "
                "index would split into other terms"
            )
        words.extend([str(term)] * count)
    return {"id": str(doc["id"]), "contents": " ".join(words)}


def _as_int(weight: Any) -> int:
    """A weight as Jackson's ``asInt`` reads it: a number's integer part (toward zero), a text's
    number, 0 for anything else."""
    if isinstance(weight, bool):
        return int(weight)
    if isinstance(weight, int | float):
        return int(weight) if weight == weight and abs(weight) != float("inf") else 0
    try:
        return int(float(str(weight)))
    except ValueError:
        return 0


def _vectors(options: Mapping[str, str]) -> bool:
    """Whether the documents are ``JsonVectorCollection``'s (term weights)."""
    return options.get("-collection") == "JsonVectorCollection" or "-impact" in options


def _similarity(options: Mapping[str, str]) -> Any:
    """The index's similarity: impact for ``-impact``, else (None) the default BM25."""
    from pylucene_mcp.research.components import Similarity

    return Similarity.impact() if "-impact" in options else None


def index_collection(args: Sequence[str]) -> int:
    """Indexes a folder of JSON documents as Anserini's ``IndexCollection`` does
    (``-collection JsonCollection -input DIR -index DIR``): each ``.json`` or ``.jsonl`` file
    below ``-input`` holds one object, an array of them, or one a line, each with ``id`` and
    ``contents``. ``contents`` is stored with ``-storeContents`` (or ``-storeRaw``: here the
    raw document is its contents) and has term vectors with ``-storeDocvectors``; positions
    are always kept. Returns how many documents were indexed.

    Raises:
        InvalidRequestError: for an argument, collection or generator not taken here, a
            missing ``-input`` folder, or a document that is not a JSON object with both.
    """
    options = _options(list(args))
    for name in ("-input", "-index"):
        if name not in options:
            raise errors.InvalidRequestError(f"the indexer needs {name} FOLDER")
    collection = options.get("-collection", COLLECTIONS[0])
    if collection == "JsonDenseVectorCollection":
        return _index_dense(options)
    generator = options.get("-generator", GENERATORS[0])
    if collection not in COLLECTIONS or generator not in GENERATORS:
        raise errors.InvalidRequestError(
            f"the collection here is {', '.join(COLLECTIONS)} and the generator "
            f"{', '.join(GENERATORS)}, not {collection} with {generator}"
        )
    source = Path(options["-input"]).expanduser()
    if not source.is_dir():
        raise errors.InvalidRequestError(f"-input {source} is no folder of JSON documents")
    stored = "-storeContents" in options or "-storeRaw" in options
    fields = _fields(_analyzer(options), stored, "-storeDocvectors" in options)
    target = Path(options["-index"]).expanduser()
    if "-append" not in options:
        _remove_index(target)
    threads = int(options.get("-threads", "1"))
    vectors = _vectors(options)
    with ResearchIndex.create(target, fields, _similarity(options)) as index:
        rows = (_row(doc, vectors) for doc in _json_documents(source))
        return index.add_many(rows, threads=threads)


#: the documents sent to Java in one call while a dense index is built
_DENSE_BATCH = 1000


def _index_dense(options: Mapping[str, str]) -> int:
    """Anserini's ``IndexHnswDenseVectors``: each document's ``vector`` in an HNSW graph of
    ``-M`` (16) links a node built with a beam of ``-efC`` (100); ``-quantize.int8`` over 8-bit
    scalar-quantized vectors. Returns how many documents were indexed."""
    if options.get("-generator", DENSE_GENERATORS[0]) not in DENSE_GENERATORS:
        raise errors.InvalidRequestError(
            f"the generator of dense vectors here is one of {', '.join(DENSE_GENERATORS)}"
        )
    source = Path(options["-input"]).expanduser()
    if not source.is_dir():
        raise errors.InvalidRequestError(f"-input {source} is no folder of JSON documents")
    target = Path(options["-index"]).expanduser()
    _remove_index(target)
    target.mkdir(parents=True, exist_ok=True)
    try:
        links, beam = int(options.get("-M", "16")), int(options.get("-efC", "100"))
    except ValueError as exc:
        raise errors.InvalidRequestError(f"-M and -efC are whole numbers: {exc}") from exc
    dense = jvm.jclass("io.github.pylucenemcp.research.DenseVectors")
    with jvm.java_errors(caller_input=True):
        writer = dense.writer(
            jvm.jclass("java.nio.file.Paths").get(str(target)), links, beam,
            "-quantize.int8" in options,
        )  # fmt: skip
    count = 0
    try:
        batch: list[Mapping[str, Any]] = []
        for doc in _json_documents(source):
            batch.append(doc)
            if len(batch) >= _DENSE_BATCH:
                add_dense(writer, batch)
                count, batch = count + len(batch), []
        if batch:
            add_dense(writer, batch)
            count += len(batch)
        with jvm.java_errors():
            writer.commit()
    finally:
        with jvm.java_errors():
            writer.close()
    return count


def add_dense(writer: Any, docs: Sequence[Mapping[str, Any]]) -> None:
    """Adds ``docs`` (``{"docid", "vector"}``, Anserini's keys; ``id`` is taken for ``docid``)
    through a :meth:`DenseVectors.writer`."""
    ids: list[str] = []
    flat: list[float] = []
    width = None
    for doc in docs:
        vector = doc.get("vector")
        key = doc.get("docid", doc.get("id"))
        if key is None or not isinstance(vector, list) or not vector:
            raise errors.InvalidRequestError(
                "a JsonDenseVectorCollection document has a docid and a vector (a list of "
                f"floats), this one has {', '.join(map(str, doc))}"
            )
        if width is not None and len(vector) != width:
            raise errors.InvalidRequestError(
                f"document {key}: its vector has {len(vector)} numbers, the others {width}"
            )
        width = len(vector)
        ids.append(str(key))
        flat.extend(float(x) for x in vector)
    with jvm.java_errors(caller_input=True):
        jvm.jclass("io.github.pylucenemcp.research.DenseVectors").add(
            writer, jvm.jarray("String", ids), jvm.jarray("float", flat)
        )


def _fields(analyzers: tuple[Any, Any], stored: bool, term_vectors: bool) -> dict[str, FieldSpec]:
    """Anserini's fields: ``id`` (a keyword with sorted doc values, the tie order) and
    ``contents`` analysed by ``analyzers`` (the documents', the queries')."""
    documents, queries = analyzers
    return {
        "id": FieldSpec.keyword(doc_values=True),
        "contents": FieldSpec.text(documents, stored, term_vectors, query_analyzer=queries),
    }


def _analyzer(options: Mapping[str, str]) -> tuple[Any, Any]:
    """Anserini's English analyzer; with ``-pretokenized`` the documents split at white space
    and the queries still analysed by the English analyzer, as pyserini's searcher does (its
    query analyzer knows nothing of how the documents were indexed): the field's length is its
    count of white-space tokens, and a query's words match only where its stemmed forms were
    written so."""
    from pylucene_mcp.research.analysis import get_lucene_analyzer

    if "-pretokenized" in options or _vectors(options):  # a vector's terms as they are
        return Analyzer.custom("whitespace"), get_lucene_analyzer()
    return get_lucene_analyzer(), None


def _json_documents(folder: Path) -> Iterable[Mapping[str, str]]:
    """The JSON documents of each ``.json``/``.jsonl`` file below ``folder``, files in name
    order."""
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.suffix not in (".json", ".jsonl"):
            continue
        if path.suffix == ".jsonl":  # read as it is indexed: the first batch need not wait
            with path.open(encoding="utf-8") as lines:
                yield from (_parsed(line) for line in lines if line.strip())
            continue
        text = path.read_text(encoding="utf-8")
        try:
            whole = json.loads(text)
        except json.JSONDecodeError:
            for line in text.splitlines():
                if line.strip():
                    yield _parsed(line)
            continue
        for doc in whole if isinstance(whole, list) else [whole]:
            if not isinstance(doc, dict):
                raise errors.InvalidRequestError(f"{path}: a document is a JSON object")
            yield doc


def main(argv: Sequence[str] | None = None) -> None:
    """The command line: ``python -m pylucene_mcp.research.indexer -collection JsonCollection
    -input DIR -index DIR [-threads N] [-storeDocvectors] …`` (Anserini's arguments; a
    ``--name`` is taken as ``-name``). Says how many documents it indexed, on stderr."""
    import sys
    import time

    args = [a[1:] if a.startswith("--") else a for a in (sys.argv[1:] if argv is None else argv)]
    _class_archive()
    try:
        jvm.start()  # the indexing is timed from a running JVM, as Anserini times its own
        started = time.perf_counter()
        count = index_collection(args)
    except errors.PyLuceneMcpError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from exc
    took = time.perf_counter() - started
    print(f"{count:,} documents indexed in {took:.2f} s", file=sys.stderr)


def _class_archive() -> None:
    """The JVM's class-data archive, written by the first run (a child process, about 3 s, once
    per runtime and installed version; the server writes the same one): Lucene's classes are
    then mapped, not read from the jars, and the JVM reaches its indexing speed sooner."""
    from pylucene_mcp.engine.lucene import class_archive

    try:
        class_archive.ensure()
    except Exception:  # an optimization: the indexer runs as well without it
        log.info("no class-data archive", exc_info=True)


if __name__ == "__main__":
    main()
