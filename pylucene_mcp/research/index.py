"""A research index: a schema of your own, bulk writes, bag-of-words batch search, explain,
deletes by query or id, stored documents and term vectors."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sized
from pathlib import Path
from typing import Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors
from pylucene_mcp.engine.core.explain import Explanation
from pylucene_mcp.research import index_folder
from pylucene_mcp.research.anserini import similarity as anserini_similarity
from pylucene_mcp.research.bulk import add_all
from pylucene_mcp.research.components import FieldSpec, Similarity
from pylucene_mcp.research.results import ResearchHit, ResearchResults
from pylucene_mcp.research.schema import KEY, describe, from_json, to_json

QUERY = "org.apache.lucene.search.Query"
#: the writer's buffer before it flushes a segment (Lucene's default is 16 MB)
RAM_BUFFER_MB = 256.0


class ResearchIndex:
    """A Lucene index with a schema of your own and one similarity. The schema (fields,
    analyzers, similarity) is kept in the index's commit data: :meth:`open` builds it again."""

    def __init__(
        self,
        path: Path,
        fields: Mapping[str, FieldSpec],
        similarity: Any,
        *,
        read_only: bool = False,
    ) -> None:
        self.path = path
        self.fields = dict(fields)
        self.similarity = similarity
        self.read_only = read_only
        self._closed = False
        self._reader: Any = None
        self._schema = to_json(self.fields, similarity)
        j = jvm.jclass
        documents, queries = j("java.util.HashMap")(), j("java.util.HashMap")()
        for name, spec in fields.items():
            if spec.analyzer is not None:
                documents.put(name, spec.analyzer)
            if (spec.query_analyzer or spec.analyzer) is not None:
                queries.put(name, spec.query_analyzer or spec.analyzer)
        per_field = j("org.apache.lucene.analysis.miscellaneous.PerFieldAnalyzerWrapper")
        standard = j("org.apache.lucene.analysis.standard.StandardAnalyzer")
        with index_folder.opening(path, read_only):
            #: what analyses the documents' fields
            self.analyzer = per_field(standard(), documents)
            #: what analyses a query's text for each field (the fields' own analyzers, but
            #: where a field names another for its queries)
            self.query_analyzer = per_field(standard(), queries)
            self._directory = index_folder.fs_directory(path)
            self.java: Any = None
            if not read_only:
                config = j("org.apache.lucene.index.IndexWriterConfig")(self.analyzer)
                config.setSimilarity(similarity)
                # bulk loads, as Anserini's indexer sets them: fewer, larger flushes, and no
                # compound file copied out of each flushed segment
                config.setRAMBufferSizeMB(RAM_BUFFER_MB)
                config.setUseCompoundFile(False)
                self.java = j("org.apache.lucene.index.IndexWriter")(self._directory, config)
                self.java.setLiveCommitData(jvm.jmap({KEY: self._schema}).entrySet())

    @classmethod
    def create(
        cls, path: str | Path, fields: Mapping[str, FieldSpec], similarity: Any = None
    ) -> ResearchIndex:
        """Creates the index at ``path`` with this schema (BM25 with Lucene's defaults unless
        ``similarity`` says otherwise), or opens the one there if it has the same schema.

        Raises:
            InvalidRequestError: when the index at ``path`` has another schema (the message
                shows both; :meth:`open` opens it as it is), or is no research index at all
                (Anserini's, the product's, another program's: never written to).
            IndexLockedError: when the index is open for writing elsewhere.
        """
        folder = Path(path).expanduser()
        folder.mkdir(parents=True, exist_ok=True)
        similarity = similarity or Similarity.bm25()
        given = to_json(fields, similarity)
        data = index_folder.commit_data(folder)  # before a writer: closing one commits its schema
        kept = None if data is None else data.get(KEY)
        if kept is None and data is not None:
            what = index_folder.what_index(folder, data)
            raise errors.InvalidRequestError(
                f"{folder} holds an index that is no research index ({what}): "
                "create adds to none but its own; open it with ResearchIndex.open(path, "
                "read_only=True), or create the new one in another folder"
            )
        if kept is not None and kept != given:
            raise errors.InvalidRequestError(
                f"the index at {folder} has another schema: it has {describe(kept)}; "
                f"create was given {describe(given)}. Open it as it is with "
                "ResearchIndex.open(path), or create the new one in another folder"
            )
        index = cls(folder, fields, similarity)
        if kept is None:
            with jvm.java_errors():
                index.java.commit()  # the schema is kept from the start
        return index

    @classmethod
    def open(
        cls,
        path: str | Path,
        read_only: bool = False,
        *,
        analyzers: Mapping[str, Any] | None = None,
        similarity: Any = None,
    ) -> ResearchIndex:
        """The index at ``path`` with the schema it keeps; ``read_only``: without a writer (no
        lock: several may be open, beside one that writes), adding and deleting refused.
        ``analyzers`` gives a field an analyzer the index could not build again (one of your own
        Java classes); ``similarity`` replaces the kept one.

        Raises:
            IndexAccessError: when there is no index at ``path``, or one without a research
                schema (the product's own index: ``pylucene_mcp.Index.open``).
            IndexLockedError: when not ``read_only`` and it is open for writing elsewhere.
        """
        folder = Path(path).expanduser()
        if not folder.is_dir():
            raise errors.IndexAccessError(
                f"no research index at {folder}: the folder does not exist; create one with "
                "ResearchIndex.create(path, fields)"
            )
        data = index_folder.commit_data(folder)
        kept = None if data is None else data.get(KEY)
        if kept is None:  # Anserini's (pyserini's indexer) is read as its fields show it
            anserini = index_folder.anserini_fields(folder, data, read_only, analyzers)
            return cls(folder, anserini, similarity or anserini_similarity(), read_only=True)
        fields, kept_similarity = from_json(kept, analyzers)
        return cls(folder, fields, similarity or kept_similarity, read_only=read_only)

    def add_many(
        self,
        documents: Iterable[Mapping[str, str]],
        batch: int = 2_000,
        progress: bool = False,
        *,
        threads: int = 1,
    ) -> int:
        """Adds the documents (mappings of field name to text) and commits; returns how many.
        They cross into Java ``batch`` at a time, as one text and its values' lengths
        (``BulkWriter``), analysed on ``threads`` Java threads (with more than one, Lucene's ids
        follow no fixed order: ties of searches that break them by Lucene id may differ from run
        to run); with ``progress``, a progress bar counts them (on stderr, or in the notebook)."""
        if progress:
            from rich.progress import Progress

            total = len(documents) if isinstance(documents, Sized) else None
            with Progress(transient=True) as bar:
                task = bar.add_task("indexing", total=total)

                def counted() -> Iterator[Mapping[str, str]]:
                    for n, document in enumerate(documents, 1):
                        yield document
                        if n % 500 == 0:
                            bar.update(task, completed=n)

                return self.add_many(counted(), batch, threads=threads)
        if isinstance(documents, Mapping):
            raise errors.InvalidRequestError(
                "add_many takes an iterable of documents (dicts of field to text), not one "
                "document: wrap it in a list, add_many([document])"
            )
        at_least_one("threads", threads)
        return add_all(self._writer("add documents"), self.fields, documents, batch, threads)

    def __len__(self) -> int:
        with jvm.java_errors():
            return int(self._searcher(None).getIndexReader().numDocs())

    def terms(self, text: str, field: str) -> list[str]:
        """``text`` as a query's text for ``field`` is made into terms (by the field's analyzer,
        or the one it names for queries)."""
        attribute = jvm.jclass("org.apache.lucene.analysis.tokenattributes.CharTermAttribute")
        out = []
        with jvm.java_errors():
            stream = self.query_analyzer.tokenStream(field, text)
            try:
                term = stream.addAttribute(attribute)
                stream.reset()
                while stream.incrementToken():
                    out.append(term.toString())
                stream.end()
            finally:
                stream.close()
        return out

    def batch_search(
        self,
        topics: Mapping[str, str],
        field: str,
        id_field: str,
        k: int = 1000,
        *,
        similarity: Any = None,
        threads: int = 2,
    ) -> dict[str, list[tuple[str, float]]]:
        """Each topic's text as a bag of words (one SHOULD clause per analyzed term) on
        ``field``: its ``k`` best documents as (id, score). One call into Java for all of them,
        run on ``threads`` Java threads (Python's interpreter lock is free meanwhile)."""
        self._check_field(field, "text")
        self._check_field(id_field, "keyword")
        at_least_one("k", k)
        batch = jvm.jclass("io.github.pylucenemcp.research.BatchSearch")
        ids = list(topics)
        with _searching():
            queries = batch.bagsOfWords(
                self.query_analyzer, field, jvm.jarray("String", [topics[i] for i in ids])
            )
            answer = batch.run(self._searcher(similarity), queries, k, id_field, threads)
        found = json.loads(memoryview(answer).tobytes())
        pairs = zip(ids, found, strict=True)
        return {qid: [(doc, float(score)) for doc, score in hits] for qid, hits in pairs}

    def query(self, text: str, field: str | None = None, operator: str = "OR") -> Any:
        """``text`` in Lucene's classic syntax as a ``Query`` (a Java object you may also build
        yourself), parsed as each field is indexed: a keyword field matches its exact value
        (``id:CACM-0001``), a long field exact numbers and ranges (``year:[1970 TO 1975]``), a
        text field is analysed with its analyzer; unfielded words go to ``field`` (the first
        text field by default).

        Raises:
            QuerySyntaxError, UnknownFieldError.
        """
        if field is not None:
            self._check_field(field, "text")
        default = field or next(n for n, s in self.fields.items() if s.kind == "text")
        parser = jvm.jclass("io.github.pylucenemcp.research.SchemaQueryParser")(
            default,
            self.query_analyzer,
            jvm.jset(self.fields),
            jvm.jset(n for n, s in self.fields.items() if s.kind == "keyword"),
            jvm.jset(n for n, s in self.fields.items() if s.kind == "long"),
        )
        occur = jvm.jclass("org.apache.lucene.queryparser.classic.QueryParser$Operator")
        parser.setDefaultOperator(occur.AND if operator == "AND" else occur.OR)
        with jvm.java_errors(caller_input=True):
            return parser.parse(text)

    def search(
        self,
        query: str | Any,
        *,
        k: int = 10,
        field: str | None = None,
        similarity: Any = None,
    ) -> ResearchResults:
        """The ``k`` best documents for ``query`` (text, see :meth:`query`, or a Lucene
        ``Query``), scored with ``similarity`` for this search only (the index's by default)."""
        at_least_one("k", k)
        lucene_query = self._lucene_query(query, field)
        with _searching():
            searcher = self._searcher(similarity)
            top = searcher.search(lucene_query, k)
            stored = searcher.storedFields()
            hits = tuple(
                ResearchHit(int(h.doc), float(h.score), self._stored(stored.document(h.doc)))
                for h in top.scoreDocs
            )
            return ResearchResults(int(searcher.count(lucene_query)), hits)

    def explain(
        self, query: str | Any, doc: int, *, field: str | None = None, similarity: Any = None
    ) -> Explanation:
        """Why document ``doc`` scores what it scores for ``query``: Lucene's explanation as a
        tree of dataclasses (the same as ``profileQuery`` gives)."""
        lucene_query = self._lucene_query(query, field)
        if isinstance(doc, bool) or not isinstance(doc, int):
            raise errors.InvalidRequestError(f"doc is a Lucene document id (an int), not {doc!r}")
        with _searching():
            return Explanation.of(self._searcher(similarity).explain(lucene_query, doc))

    def delete(self, query: str | Any, field: str | None = None) -> int:
        """Deletes the documents that match ``query`` (text, see :meth:`query`, or a Lucene
        ``Query``) and commits; returns how many went.

        Raises:
            QuerySyntaxError, UnknownFieldError.
        """
        lucene_query = self._lucene_query(query, field)
        with _searching():
            count = int(self._searcher(None).count(lucene_query))
            writer = self._writer("delete documents")
            writer.deleteDocuments(jvm.jarray(QUERY, [lucene_query]))
            writer.commit()
        return count

    def delete_ids(self, ids: Iterable[str], field: str = "id") -> int:
        """Deletes the documents whose keyword ``field`` holds one of ``ids``, each an exact
        term (no query syntax: ``doc-1`` is that id), and commits; returns how many went.

        Raises:
            UnknownFieldError: when ``field`` is not a keyword field of this index.
        """
        spec = self.fields.get(field)
        if spec is None or spec.kind != "keyword":
            keywords = sorted(n for n, s in self.fields.items() if s.kind == "keyword")
            raise errors.UnknownFieldError(
                f"delete_ids needs a keyword field; {field!r} is not one (keyword fields: "
                f"{', '.join(keywords) or 'none'})",
                field,
                keywords,
            )
        if isinstance(ids, str):
            raise errors.InvalidRequestError(
                f"delete_ids takes a list of ids, not one id (a text would be read letter by "
                f"letter): delete_ids([{ids!r}])"
            )
        term = jvm.jclass("org.apache.lucene.index.Term")
        terms = [term(field, str(value)) for value in ids]
        if not terms:
            return 0
        values = jvm.jclass("java.util.ArrayList")()
        for one in terms:
            values.add(one.bytes())
        with jvm.java_errors(caller_input=True):
            terms_query = jvm.jclass("org.apache.lucene.search.TermInSetQuery")(field, values)
            count = int(self._searcher(None).count(terms_query))
            writer = self._writer("delete documents")
            writer.deleteDocuments(jvm.jarray("org.apache.lucene.index.Term", terms))
            writer.commit()
        return count

    def __iter__(self) -> Iterator[dict[str, str]]:
        """The stored fields of every document, in index order."""
        with jvm.java_errors():
            reader = self._searcher(None).getIndexReader()
            live = jvm.jclass("org.apache.lucene.index.MultiBits").getLiveDocs(reader)
            stored = reader.storedFields()
            for doc in range(int(reader.maxDoc())):
                if live is None or live.get(doc):
                    yield self._stored(stored.document(doc))

    def term_vector(self, doc: int, field: str) -> dict[str, int]:
        """The terms of ``field`` in document ``doc`` with their frequencies (a field indexed
        with ``term_vectors=True``; empty otherwise)."""
        self._check_field(field)
        if isinstance(doc, bool) or not isinstance(doc, int):
            raise errors.InvalidRequestError(f"doc is a Lucene document id (an int), not {doc!r}")
        with jvm.java_errors(caller_input=True):
            reader = self._searcher(None).getIndexReader()
            if not 0 <= doc < int(reader.maxDoc()):
                raise errors.DocumentNotFoundError(
                    f"no document {doc}: Lucene's ids here run from 0 to {int(reader.maxDoc()) - 1}"
                )
            terms = reader.termVectors().get(doc, field)
            found: dict[str, int] = {}
            if terms is not None:
                iterator = terms.iterator()
                term = iterator.next()
                while term is not None:
                    found[str(term.utf8ToString())] = int(iterator.totalTermFreq())
                    term = iterator.next()
            return found

    def _lucene_query(self, query: Any, field: str | None) -> Any:
        """``query`` as a Lucene ``Query``: text parsed by :meth:`query`, a query as it is."""
        if isinstance(query, str):
            return self.query(query, field)
        if not isinstance(query, jvm.jclass(QUERY)):
            raise errors.InvalidRequestError(
                f"a query is a text or a Lucene Query (ResearchIndex.query builds one), not "
                f"{query!r}"
            )
        return query

    def _check_field(self, field: str, kind: str | None = None) -> None:
        """Raises UnknownFieldError unless ``field`` is one of this index's fields (of
        ``kind``, when given)."""
        if kind is None:
            if field not in self.fields:
                raise errors.UnknownFieldError(
                    f"unknown field {field!r}; this index has: {', '.join(self.fields)}",
                    field,
                    list(self.fields),
                )
            return
        spec = self.fields.get(field)
        if spec is None or spec.kind != kind:
            names = [n for n, s in self.fields.items() if s.kind == kind]
            raise errors.UnknownFieldError(
                f"{field!r} is no {kind} field of this index; its {kind} fields: "
                f"{', '.join(names) or 'none'}",
                field,
                names,
            )

    def _writer(self, what: str) -> Any:
        """The index writer, for ``what`` the caller does."""
        self._check_open()
        if self.java is None:
            raise errors.InvalidRequestError(
                f"the index at {self.path} is open read-only: it cannot {what}; open it with "
                "ResearchIndex.open(path) to write"
            )
        return self.java

    def _check_open(self) -> None:
        if self._closed:
            raise errors.IndexAccessError(
                f"the research index at {self.path} is closed; open it again with "
                "ResearchIndex.open(path)"
            )

    def _searcher(self, similarity: Any) -> Any:
        """A searcher over the latest changes (the writer's, or the last commit read-only),
        with its own similarity: setting one never changes another search's scoring."""
        self._check_open()
        j = jvm.jclass
        reader = self._reader
        source = self.java if self.java is not None else self._directory
        if reader is None:
            reader = j("org.apache.lucene.index.DirectoryReader").open(source)
        else:
            opener = j("org.apache.lucene.index.DirectoryReader")
            if self.java is not None:
                newer = opener.openIfChanged(reader, self.java)
            else:
                newer = opener.openIfChanged(reader)
            if newer is not None:
                reader.decRef()
                reader = newer
        self._reader = reader
        searcher = j("org.apache.lucene.search.IndexSearcher")(reader)
        searcher.setSimilarity(similarity or self.similarity)
        return searcher

    @staticmethod
    def _stored(document: Any) -> dict[str, str]:
        out = {}
        for stored in document.getFields():
            number = stored.numericValue()
            out[str(stored.name())] = str(stored.stringValue() if number is None else number)
        return out

    def close(self) -> None:
        """Commits nothing more and lets the index go; closing twice is no error."""
        if self._closed:
            return
        self._closed = True
        with jvm.java_errors():
            if self._reader is not None:
                self._reader.decRef()
                self._reader = None
            if self.java is not None:
                self.java.close()
            self._directory.close()

    def __enter__(self) -> ResearchIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def at_least_one(name: str, value: Any) -> None:
    """Raises InvalidRequestError unless ``value`` (the parameter ``name``) is a whole number
    of at least 1."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise errors.InvalidRequestError(f"{name} is a whole number ≥ 1, not {value!r}")


@contextlib.contextmanager
def _searching() -> Iterator[None]:
    """Java's errors of a research search, said for a research index."""
    try:
        with jvm.java_errors(caller_input=True):
            yield
    except errors.TooManyClausesError as exc:
        limit = int(jvm.jclass("org.apache.lucene.search.IndexSearcher").getMaxClauseCount())
        raise errors.TooManyClausesError(
            f"the query expands to more than {limit} clauses (a wildcard, fuzzy or regex term "
            "matching many words, or a long text); give more letters before the *, split the "
            "query, or raise the limit: jvm.jclass('org.apache.lucene.search.IndexSearcher')"
            ".setMaxClauseCount(n)"
        ) from exc
