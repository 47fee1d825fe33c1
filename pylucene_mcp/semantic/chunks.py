"""A document's text as passage-sized chunks, each with its vector (docs/semantic.md).

*Late chunking* (the default where the model can see more than one chunk at a time): the text's
tokens go through the encoder in windows as long as the model takes, and each chunk's vector is
the mean of its own tokens' states, which the whole window shaped; so a chunk that says "it"
carries what "it" is. *Plain chunking* encodes each chunk's text alone. ``bench/semantic.py``
measures one against the other.

A chunk is cut after ``CHUNK_TOKENS`` tokens (fewer for a model that reads few at once: three
chunks fit in one of its windows), earlier at the end of a sentence in the last quarter of that,
and keeps the character offsets of its text, so that passages and PDF pages come from it. Each
window after the first starts a third of its length before its first chunk, so that no chunk but
the text's first is read without what comes before it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from pylucene_mcp.semantic.encoder import Encoder

#: tokens of one chunk (about a paragraph: 100–150 words)
CHUNK_TOKENS = 160
#: the chunks of one document that get a vector: its first 40,000 tokens or so (a whole book
#: would take minutes; its lexical search still covers all of it)
MAX_CHUNKS = 256
Chunking = Literal["late", "plain"]
_SENTENCE_END = (".", "!", "?", ";", ":", "\n")


@dataclass(frozen=True)
class Chunk:
    """Characters ``start`` to ``end`` of a text, and their unit vector."""

    start: int
    end: int
    vector: np.ndarray


def spans(text: str, offsets: Sequence[tuple[int, int]], size: int) -> list[tuple[int, int]]:
    """Where each chunk of at most ``size`` tokens starts and ends (token indexes), for tokens
    at ``offsets``."""
    cuts: list[tuple[int, int]] = []
    first = 0
    while first < len(offsets) and len(cuts) < MAX_CHUNKS:
        last = min(first + size, len(offsets))
        if last < len(offsets):
            for k in range(last - 1, first + size * 3 // 4 - 1, -1):
                if text[offsets[k][0] : offsets[k][1]].endswith(_SENTENCE_END):
                    last = k + 1
                    break
        cuts.append((first, last))
        first = last
    return cuts


#: characters of a text that are tokenized at most: more than its chunks can hold (a token is
#: rarely longer than 8 characters), so that a book is not tokenized whole for its first pages
MAX_CHARS = MAX_CHUNKS * CHUNK_TOKENS * 8


def chunks(encoder: Encoder, text: str, how: Chunking = "late") -> list[Chunk]:
    """``text`` cut into chunks with their vectors."""
    text = text[:MAX_CHARS]
    encoding = encoder.tokenizer.encode(encoder.passage_prefix + text, add_special_tokens=False)
    shift = len(encoder.passage_prefix)
    # the prompt's tokens: those that end within it (the prompt tokenized alone is no guide: a
    # SentencePiece tokenizer gives its last space a token of its own, which in the whole text
    # is the first word's "▁")
    skip = next(
        (k for k, (_, end) in enumerate(encoding.offsets) if end > shift), len(encoding.ids)
    )
    ids = encoding.ids[skip:]
    offsets = [(max(0, a - shift), b - shift) for a, b in encoding.offsets[skip:]]
    room = encoder.max_tokens - 2 - skip  # a window's tokens beside [CLS], prefix and [SEP]
    context = room // 3
    cuts = spans(text, offsets, min(CHUNK_TOKENS, context))
    if not cuts:
        return []
    prefix = encoding.ids[:skip]
    if how == "plain":
        read = [(first, [*prefix, *ids[first:last]], [(first, last)]) for first, last in cuts]
    else:
        read = []
        window: list[tuple[int, int]] = []
        for cut in [*cuts, None]:
            before = min(context, window[0][0]) if window else 0  # read with what precedes it
            if cut is not None and (not window or cut[1] - window[0][0] + before <= room):
                window.append(cut)
                continue
            begin, end = max(0, window[0][0] - context), window[-1][1]
            read.append((begin, [*prefix, *ids[begin:end]], window))
            window = [] if cut is None else [cut]
    # every window of the text in one batch
    states = encoder.states_many([encoder.wrap(tokens) for _, tokens, _ in read])
    found: list[Chunk] = []
    for (begin, _, inside), each in zip(read, states, strict=True):
        own = each[1 + skip : -1]
        for first, last in inside:
            found.append(_chunk(offsets, first, last, own[first - begin : last - begin]))
    return found


def _chunk(offsets: Sequence[tuple[int, int]], first: int, last: int, states: np.ndarray) -> Chunk:
    vector = states.mean(0)
    return Chunk(offsets[first][0], offsets[last - 1][1], vector / np.linalg.norm(vector))
