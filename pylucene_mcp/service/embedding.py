"""The semantic path of a server (docs/semantic.md): its model, the query's vector, and the
embedder that keeps the index's chunks and vectors in step with its documents.

The embedder is a thread of its own. Whenever the index has changed (a crawl, the watcher, a
write through the API, a deletion: whatever changed it, seen by its reader's version), it
compares the content hash of every document with the hash its chunks were made from, embeds
the documents whose chunks are missing or stale from the text the index stores (no file is read
again), and drops the chunks of documents that are gone. So lexical search has a new document
at once, and the semantic path follows as fast as the model embeds; a restart resumes where it
stopped. Only the process that writes the index embeds; another (a reader beside it) embeds only
its queries and searches the writer's vectors.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pylucene_mcp.basics import errors, install, portable
from pylucene_mcp.basics.config import Settings

if TYPE_CHECKING:
    from pylucene_mcp.engine.core.backend import Backend, VectorStore
    from pylucene_mcp.semantic.encoder import Encoder

log = logging.getLogger(__name__)

#: how often the embedder looks whether the index changed
POLL_S = 2.0
#: the chunks written between two commits of the vectors
COMMIT_EVERY = 50
#: the longest wait between two tries of an embedder that fails (a model that cannot be had)
MAX_BACKOFF_S = 300.0


def backoff_s(failures: int) -> float:
    """How long the embedder waits after ``failures`` failed rounds in a row: :data:`POLL_S`,
    doubled with each failure, at most :data:`MAX_BACKOFF_S`."""
    return min(POLL_S * 2 ** min(failures, 16), MAX_BACKOFF_S) if failures else POLL_S


@dataclass
class Progress:
    """How far the embedder is: documents whose current vectors are searchable (counted once
    committed), and those waiting (written but not yet committed ones among them)."""

    embedded: int = 0
    waiting: int = 0
    failed: int = 0
    error: str | None = None
    #: what runs the model: its execution provider and threads (None: not loaded yet)
    runtime: str | None = None
    #: documents embedded a second in this round, and the seconds the waiting ones will take
    #: at that rate (None until the round's first commit)
    per_second: float | None = None
    done_in_s: float | None = None
    #: the similarity threshold of searches by meaning: the setting, or the model's own
    #: (None: the model is not loaded yet)
    threshold: float | None = None
    #: True until the embedder's first round has counted the documents (0 waiting means
    #: nothing yet, not none left: a dashboard that stopped following then showed 0 for good)
    counting: bool | None = True


class Embedding:
    """The model of one server and the embedder of its index."""

    def __init__(
        self, settings: Settings, index: Callable[[], Backend], writes: Callable[[], bool]
    ) -> None:
        self.settings = settings
        self._index = index
        self._writes = writes
        self._encoder: Encoder | None = None
        self._threshold: float | None = settings.similarity_threshold
        self._calibrating = threading.Lock()  # the first searches measure the model once
        self._loading = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.progress = Progress()

    # -- the model ------------------------------------------------------------------------------

    def encoder(self) -> Encoder:
        """The model, loaded (and fetched, the first time a known one is used) on first need.

        Raises:
            SetupError: when the model cannot be had, saying why.
        """
        with self._loading:
            if self._encoder is None:
                try:
                    from pylucene_mcp.semantic import models
                    from pylucene_mcp.semantic.encoder import Encoder
                except ImportError as exc:
                    raise errors.SetupError(
                        f"vectors need {exc.name or 'numpy, tokenizers and onnxruntime'}: "
                        f"{install.install_extra('semantic')} (or set vectors: false)"
                    ) from exc

                located = models.locate(self.settings.embedding_model)
                started = time.perf_counter()
                self._encoder = Encoder(
                    located.path,
                    located.query_prefix,
                    located.passage_prefix,
                    threads=self.settings.embedding_threads,
                    device=self.settings.embedding_device,
                    precision=self.settings.embedding_precision,
                )
                log.info(
                    "embedding model %s loaded in %.1f s, run by %s",
                    located.path,
                    time.perf_counter() - started,
                    self._encoder.runtime,
                )
            return self._encoder

    def threshold(self) -> float:
        """The least similarity of a search by meaning: the setting, or the one the model's
        own scale asks for (:func:`~pylucene_mcp.semantic.calibration.threshold`), measured
        once when it loads.

        Raises:
            SetupError: when the model cannot be had, saying why.
        """
        with self._calibrating:
            if self._threshold is None:
                from pylucene_mcp.semantic import calibration

                measured = calibration.threshold(self.encoder())
                log.info("similarity threshold %g: the model's own (calibration.py)", measured)
                self._threshold = measured
            return self._threshold

    @property
    def model_name(self) -> str:
        """What the vectors are recorded as made with: the model's folder resolved, or a known
        model's name (not the setting as spelled: a trailing slash had made them all again),
        and its precision where it is not the published fp32 (other vectors: made again)."""
        from pylucene_mcp.semantic.models import identity

        made_with = identity(self.settings.embedding_model)
        precision = self.settings.embedding_precision
        return made_with if precision == "fp32" else f"{made_with} ({precision})"

    def query_vector(self, text: str) -> list[float]:
        """``text`` embedded as a query."""
        return [float(x) for x in self.encoder().embed(text)]

    def store(self) -> VectorStore:
        """The vectors of the open index."""
        return self._index().keep_vectors(self.model_name)

    # -- the embedder -------------------------------------------------------------------------

    def start(self) -> None:
        """Starts the embedder (once)."""
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name="pylucene-mcp-embedder", daemon=True
            )
            self._thread.start()

    def stop(self, timeout_s: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)

    def _run(self) -> None:
        # the model's arithmetic yields the cores to searches: its runtime's threads start from
        # this one, which loads it first
        portable.run_in_background()
        with contextlib.suppress(errors.PyLuceneMcpError):  # said again where it is needed
            self.progress.runtime = self.encoder().runtime
            self.progress.threshold = self.threshold()
        try:
            self.store()
        except errors.InvalidRequestError as exc:  # a backend without vectors: nothing to keep
            self.progress.error = str(exc)
            log.warning("no embedder: %s", exc)
            return
        except errors.PyLuceneMcpError:  # a reader before the writer made any: tried below
            pass
        seen: Any = None
        failures = 0
        said: str | None = None  # the failure last logged
        while not self._stop.is_set():
            try:
                if self._writes():
                    version = self._version()
                    if version != seen:
                        self.reconcile()
                        seen = version
                    if failures:
                        log.warning("the embedder goes on")
                    self.progress.error = said = None
                    failures = 0
            except errors.PyLuceneMcpError as exc:
                failures += 1
                if str(exc) != said:  # said once, not at every try
                    said = str(exc)
                    log.warning(
                        "the embedder could not go on: %s (tried again after %.0f s, then "
                        "less and less often)",
                        exc,
                        backoff_s(failures),
                    )
                self.progress.error = str(exc)
            except Exception as exc:  # a bug must not end the thread
                failures += 1
                self.progress.error = f"unexpected error: {exc}"
                log.exception("the embedder failed")
            self._stop.wait(backoff_s(failures))

    def _version(self) -> Any:
        return self._index().content_version()

    def reconcile(self) -> Progress:
        """Brings the vectors in step with the index once: stale and missing documents
        embedded, gone ones dropped. Returns how far it got (all of it unless stopped)."""
        from pylucene_mcp.semantic import chunks

        index = self._index()
        store = self.store()
        wanted = index.content_hashes()
        have = store.states()
        gone = [path for path in have if path not in wanted]
        todo = [path for path, digest in wanted.items() if have.get(path) != (digest or "")]
        store.delete(gone)
        before = self.progress
        self.progress = Progress(
            embedded=len(wanted) - len(todo),
            waiting=len(todo),
            runtime=before.runtime,
            threshold=before.threshold,
            counting=None,
        )
        if gone or todo:
            log.info("embedder: %d documents to embed, %d dropped", len(todo), len(gone))
        encoder = self.encoder() if todo else None
        if encoder is not None:
            self.progress.runtime = encoder.runtime
            self.progress.threshold = self.threshold()
        written = 0  # documents whose vectors are written but not yet searchable
        began, done = time.perf_counter(), 0

        def commit() -> None:
            nonlocal written, done
            store.commit()
            self.progress.embedded += written
            self.progress.waiting -= written
            done += written
            written = 0
            took = time.perf_counter() - began
            if done and took > 0:
                rate = done / took
                self.progress.per_second = round(rate, 2)
                self.progress.done_in_s = round(self.progress.waiting / rate, 1)

        for path in todo:
            if self._stop.is_set():
                break
            try:
                stored = index.stored_document(path)
                found = chunks.chunks(encoder, stored.content, self.settings.chunking)  # type: ignore[arg-type]
                store.replace(path, wanted[path] or "", found)
                written += 1
            except errors.DocumentNotFoundError:  # deleted meanwhile: the next round drops it
                self.progress.waiting -= 1
            except Exception:  # one document must not stop the others
                log.exception("could not embed %s", path)
                self.progress.failed += 1
                self.progress.waiting -= 1
            if written >= COMMIT_EVERY:
                commit()
        commit()
        return self.progress
