"""The differential exactness test: real German and English text (tests/real_text.py), a few
hundred generated queries (infix, leading and trailing patterns of 3-8 letters, fuzzy words,
phrases, precedence mixes, filters), and for each the total and the facet counts the engine
gives against those of a brute-force oracle written here in plain Python over the same words.

The oracle knows nothing of Lucene's classes: it folds each word as the analyzer documents
(case folded, ß → ss, umlauts to their base letter), matches patterns with regular
expressions, fuzzy words by Damerau-Levenshtein distance (optimal string alignment, as
Lucene's automata count a transposition) and phrases by positions, and evaluates each query's
boolean meaning by sets. Patterns run with word forms on (they have no other forms); words and
phrases with ``wordForms: false`` (the lemma dictionaries are not the oracle's to know).
Queries whose words German normalization would change (ae, oe, ue) are not generated: they
also search the transliterated twin, which the oracle does not model. A camel-cased word
(``ElementTree``) is also its parts (``element``, ``tree``) at its position, as the index
keeps names (the oracle splits them by the rule docs/query.md states, in its own code)."""

from __future__ import annotations

import os
import random
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from pylucene_mcp import Index
from tests.conftest import FIGURES
from tests.real_text import english_docstrings, german_lines, words

pytestmark = pytest.mark.slow

DOCS_PER_LANGUAGE = 2500
AUTHORS = ("Anna Schmidt", "Ben Meyer", "Clara Jones", "David Kim", "Eva Novak")
EXTENSIONS = ("txt", "md", "html")
#: a new seed each run (the time), printed with the suite's figures and in a failure's message;
#: PYLUCENE_MCP_EXACTNESS_SEED runs one again
SEED = int(os.environ.get("PYLUCENE_MCP_EXACTNESS_SEED") or time.time_ns() % 1_000_000_007)


def fold(word: str) -> str:
    return word.casefold().replace("ä", "a").replace("ö", "o").replace("ü", "u")


def camel_parts(word: str) -> list[str]:
    """The camel-case words of ``word`` (of letters only) that the index also keeps: a new word
    starts at a capital after a small letter, and at the last capital of a run of capitals
    followed by a small letter; words of one letter are left out, and so is the whole."""
    starts = [0]
    for i in range(1, len(word)):
        capital_after_small = word[i].isupper() and word[i - 1].islower()
        end_of_run = (
            word[i].isupper()
            and word[i - 1].isupper()
            and i + 1 < len(word)
            and word[i + 1].islower()
        )
        if capital_after_small or end_of_run:
            starts.append(i)
    if len(starts) == 1:
        return []
    pieces = [word[a:b] for a, b in zip(starts, [*starts[1:], len(word)], strict=True)]
    seen = {fold(word)}
    parts = []
    for piece in pieces:
        if len(piece) >= 2 and fold(piece) not in seen:
            seen.add(fold(piece))
            parts.append(fold(piece))
    return parts


@dataclass
class Doc:
    path: str
    tokens: list[str]
    #: each position's camel-case parts (see camel_parts)
    parts: list[list[str]]
    language: str
    author: str
    extension: str
    #: the words of its title (metadata): only words no text has (see TITLE_WORDS)
    title: tuple[str, ...] = ()


#: Words of the titles: of the letters q and j alone, which no word of the texts is made of
#: (checked when the corpus is built), so that no pattern or fuzzy word the generator draws
#: from the texts reaches them and a title's word is found by its title alone (the negations
#: across fields: docs/query.md).
TITLE_WORDS = sorted({"".join(random.Random(n).choices("qj", k=7)) for n in range(60)})[:24]


class Oracle:
    """Postings and positions over the folded words, built independently of the index."""

    def __init__(self, docs: list[Doc]) -> None:
        self.docs = docs
        self.all = frozenset(range(len(docs)))
        self.postings: dict[str, set[int]] = defaultdict(set)
        self.positions: list[dict[str, list[int]]] = []
        for n, doc in enumerate(docs):
            where: dict[str, list[int]] = defaultdict(list)
            for position, token in enumerate(doc.tokens):
                for term in dict.fromkeys([token, *doc.parts[position]]):
                    self.postings[term].add(n)
                    where[term].append(position)
            self.positions.append(where)
        self.vocabulary = sorted(self.postings)
        self.titled: dict[str, set[int]] = defaultdict(set)
        for n, doc in enumerate(docs):
            for word in doc.title:
                self.titled[word].add(n)

    def title(self, word: str) -> frozenset[int]:
        """The documents whose title has ``word``."""
        return frozenset(self.titled.get(word, ()))

    def term(self, word: str) -> frozenset[int]:
        return frozenset(self.postings.get(word, ()))

    def expansions(self, pattern: str) -> list[str]:
        regex = re.compile("".join(".*" if c == "*" else "." if c == "?" else c for c in pattern))
        return [t for t in self.vocabulary if regex.fullmatch(t)]

    def pattern(self, pattern: str) -> frozenset[int]:
        found: set[int] = set()
        for term in self.expansions(pattern):
            found |= self.postings[term]
        return frozenset(found)

    def fuzzy(self, word: str, edits: int) -> frozenset[int]:
        found: set[int] = set()
        for term in self.vocabulary:
            if abs(len(term) - len(word)) <= edits and osa_distance(word, term) <= edits:
                found |= self.postings[term]
        return frozenset(found)

    def phrase(self, phrase: list[str], slop: int = 0) -> frozenset[int]:
        candidates = set.intersection(*(set(self.term(w)) for w in phrase))
        found = set()
        for n in candidates:
            where = self.positions[n]
            if slop == 0:
                if any(_runs(where, phrase, 0, p) for p in where[phrase[0]]):
                    found.add(n)
            else:  # two words: Lucene's sloppy distance |(q - 1) - p| within the slop
                first, second = phrase
                if any(abs(q - 1 - p) <= slop for p in where[first] for q in where[second]):
                    found.add(n)
        return frozenset(found)

    def facets(self, hits: frozenset[int], dim: str) -> dict[str, int]:
        return dict(Counter(getattr(self.docs[n], dim) for n in hits))


def _runs(where: dict[str, list[int]], phrase: list[str], i: int, position: int) -> bool:
    """Whether ``phrase[i:]`` stands from ``position`` on: each next word at the next position,
    or, beside the word before it, at the same one when both are there (the parts of one name,
    docs/query.md); two same words are never beside each other."""
    if i == len(phrase):
        return True
    for j in range(i + 1, len(phrase) + 1):  # phrase[i:j] all at this position
        if j - 1 > i and phrase[j - 1] == phrase[j - 2]:
            break
        if position not in where[phrase[j - 1]]:
            break
        if _runs(where, phrase, j, position + 1):
            return True
    return False


def osa_distance(a: str, b: str) -> int:
    """Edit distance with adjacent transpositions (optimal string alignment)."""
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            row[j] = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def _documents() -> Iterator[tuple[str, list[str]]]:
    lines = list(german_lines())[::3]
    for n in range(DOCS_PER_LANGUAGE):
        yield "de", words(" ".join(lines[4 * n : 4 * n + 4]))
    for n, doc in enumerate(english_docstrings()):
        if n == DOCS_PER_LANGUAGE:
            break
        yield "en", words(doc)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Index, Oracle]]:
    docs: list[Doc] = []
    rows: list[dict[str, Any]] = []
    for n, (language, text) in enumerate(_documents()):
        doc = Doc(
            path=f"/exact/{n:05}",
            tokens=[fold(w) for w in text],
            parts=[camel_parts(w) for w in text],
            language=language,
            author=AUTHORS[(n * 7) % len(AUTHORS)],
            extension=EXTENSIONS[n % len(EXTENSIONS)],
            title=(
                (
                    TITLE_WORDS[(n * 3) % len(TITLE_WORDS)],
                    TITLE_WORDS[(n * 7 + 1) % len(TITLE_WORDS)],
                )
                if n % 4 == 0
                else ()
            ),
        )
        docs.append(doc)
        rows.append(
            {
                "file_path": doc.path,
                "file_name": f"{n:05}",  # digits: no pattern of letters matches a name
                "file_extension": doc.extension,
                "content": " ".join(text),
                "language": language,
                "author": doc.author,
                **({"title": " ".join(doc.title)} if doc.title else {}),
            }
        )
    assert len(docs) == 2 * DOCS_PER_LANGUAGE
    pieces = {w[i : i + 3] for w in TITLE_WORDS for i in range(len(w) - 2)}
    clashes = {t for d in docs for t in d.tokens if any(p in t for p in pieces)}
    assert not clashes, f"words of the texts reach the titles' words: {sorted(clashes)[:5]}"
    index = Index.open(tmp_path_factory.mktemp("exactness") / "index")
    with index.writer() as writer:
        writer.add_many(rows)
    yield index, Oracle(docs)
    index.close()


@dataclass
class Case:
    query: str
    expected: frozenset[int]
    word_forms: bool = False
    filters: tuple[dict[str, Any], ...] = ()
    family: str = ""


def _plain(word: str) -> bool:
    """A word whose transliterated twin adds nothing: no ae, oe, ue (see the module doc)."""
    return word.isascii() and not re.search("ae|oe|ue", word)


def generate(oracle: Oracle, rng: random.Random) -> list[Case]:
    tokens = [t for t in oracle.vocabulary if _plain(t) and len(t) >= 3]
    # words drawn as often as the text has them, so that common and rare words both come up
    weighted = [t for doc in oracle.docs for t in doc.tokens if _plain(t) and len(t) >= 3]
    cases: list[Case] = []

    def piece(word: str, length: int, where: str) -> str:
        length = min(length, len(word))
        start = {"start": 0, "end": len(word) - length}.get(where)
        if start is None:
            start = rng.randrange(0, len(word) - length + 1)
        return word[start : start + length]

    for _ in range(70):
        part = piece(rng.choice(weighted), rng.randint(3, 8), "any")
        cases.append(Case(f"*{part}*", oracle.pattern(f"*{part}*"), True, family="infix"))
    for _ in range(50):
        part = piece(rng.choice(weighted), rng.randint(3, 8), "end")
        cases.append(Case(f"*{part}", oracle.pattern(f"*{part}"), True, family="leading"))
    for _ in range(50):
        part = piece(rng.choice(weighted), rng.randint(3, 8), "start")
        cases.append(Case(f"{part}*", oracle.pattern(f"{part}*"), True, family="trailing"))
    for _ in range(15):
        word = rng.choice([t for t in tokens if len(t) >= 5])
        inner = word[:2] + "?" + word[3:5] + "*"
        cases.append(Case(inner, oracle.pattern(inner), True, family="inner"))
    for _ in range(40):
        word = rng.choice([t for t in weighted if len(t) >= 4])
        edits = rng.choice((1, 2))
        cases.append(
            Case(f"{word}~{edits}", oracle.fuzzy(word, edits), True, family=f"fuzzy{edits}")
        )
    for _ in range(40):
        doc = rng.choice([d for d in oracle.docs if len(d.tokens) >= 6])
        start = rng.randrange(0, len(doc.tokens) - 3)
        if rng.random() < 0.5:
            phrase = doc.tokens[start : start + rng.choice((2, 3))]
            if all(_plain(w) for w in phrase):
                quoted = '"' + " ".join(phrase) + '"'
                cases.append(Case(quoted, oracle.phrase(phrase), family="phrase"))
        else:
            pair = [doc.tokens[start], doc.tokens[start + 2]]
            if rng.random() < 0.5:
                pair.reverse()
            slop = rng.choice((1, 2, 3))
            if all(_plain(w) for w in pair) and pair[0] != pair[1]:
                quoted = '"' + " ".join(pair) + f'"~{slop}'
                cases.append(Case(quoted, oracle.phrase(pair, slop), family="sloppy"))

    named = [
        (doc, at)
        for doc in oracle.docs
        for at, parts in enumerate(doc.parts)
        if len(parts) >= 2 and 0 < at < len(doc.tokens) - 1
    ]
    for doc, at in rng.sample(named, min(20, len(named))):
        # a camel-cased name by its parts, with a word on either side: "the element tree write"
        words = [doc.tokens[at - 1], *doc.parts[at], doc.tokens[at + 1]]
        if all(_plain(w) for w in words):
            quoted = '"' + " ".join(words) + '"'
            cases.append(Case(quoted, oracle.phrase(words), family="name phrase"))

    def atom() -> tuple[str, frozenset[int]]:
        if rng.random() < 0.3:
            part = piece(rng.choice(weighted), rng.randint(3, 6), "start")
            return f"{part}*", oracle.pattern(f"{part}*")
        word = rng.choice(weighted)
        return word, oracle.term(word)

    mixes: list[tuple[str, Callable[..., frozenset[int]]]] = [
        ("{} {} OR {} {}", lambda a, b, c, d: (a & b) | (c & d)),
        ("({} OR {}) {}", lambda a, b, c: (a | b) & c),
        ("{} -{}", lambda a, b: a - b),
        ("{} OR NOT {}", lambda a, b: a | (oracle.all - b)),
        ("{} {} OR {}", lambda a, b, c: (a & b) | c),
        ("{} AND ({} OR {}) NOT {}", lambda a, b, c, d: a & (b | c) - d),
        ("{} OR {} {}", lambda a, b, c: a | (b & c)),
        ("NOT {} NOT {}", lambda a, b: oracle.all - a - b),
    ]
    for _ in range(80):
        template, meaning = rng.choice(mixes)
        atoms = [atom() for _ in range(template.count("{}"))]
        cases.append(
            Case(
                template.format(*(text for text, _ in atoms)),
                meaning(*(hits for _, hits in atoms)),
                family="precedence",
            )
        )
    # each clause in every field on its own: a title's word and a text's word in one query,
    # negations that must keep out a document with the word in its title, *:* inside a query,
    # and fielded words with word forms off
    fields: list[tuple[str, Callable[..., frozenset[int]]]] = [
        ("{} -{t}", lambda a, t: a - t),
        ("* -{t}", lambda t: oracle.all - t),
        ("*:* -{t}", lambda t: oracle.all - t),
        ("-{t}", lambda t: oracle.all - t),
        ("{t} {}", lambda t, a: t & a),
        ("{} OR {t}", lambda a, t: a | t),
        ("-{t} -{}", lambda t, a: oracle.all - t - a),
        ("{t} NOT {}", lambda t, a: t - a),
        ("({t} OR {}) *:*", lambda t, a: t | a),
        ("content:{} -{t}", lambda a, t: a - t),
        ("-*:* OR {t}", lambda t: t),
    ]
    for _ in range(60):
        template, meaning = rng.choice(fields)
        title_word = rng.choice(TITLE_WORDS)
        word = rng.choice(weighted)
        args = [
            oracle.title(title_word) if slot == "{t}" else oracle.term(word)
            for slot in re.findall(r"\{t?\}", template)
        ]
        query = template.replace("{t}", title_word).replace("{}", word)
        cases.append(Case(query, meaning(*args), family="fields"))
    for _ in range(40):
        text, hits = atom()
        if rng.random() < 0.5:
            language = rng.choice(("de", "en"))
            flt: dict[str, Any] = {"field": "language", "operator": "eq", "value": language}
            keep = frozenset(n for n in hits if oracle.docs[n].language == language)
        else:
            authors = tuple(rng.sample(AUTHORS, 2))
            flt = {"field": "author", "operator": "in", "values": list(authors)}
            keep = frozenset(n for n in hits if oracle.docs[n].author in authors)
        cases.append(Case(text, keep, filters=(flt,), family="filtered"))
    return cases


def _facets_expected(oracle: Oracle, case: Case, unfiltered: frozenset[int]) -> dict[str, Any]:
    """DrillSideways: a filtered facet dimension counts the hits without its own filter."""
    expected = {}
    for dim in ("author", "language", "file_extension"):
        field = "extension" if dim == "file_extension" else dim
        drilled = any(f["field"] == dim for f in case.filters)
        expected[dim] = oracle.facets(unfiltered if drilled else case.expected, field)
    return expected


def test_totals_and_facets_equal_the_oracle(corpus: tuple[Index, Oracle]) -> None:
    index, oracle = corpus
    FIGURES["exactness seed (PYLUCENE_MCP_EXACTNESS_SEED runs it again)"] = SEED
    cases = generate(oracle, random.Random(SEED))
    assert len(cases) >= 300
    # the test's power: patterns with far more than 50 words, and ranked (four letters or more)
    many = [c for c in cases if "*" in c.query and len(oracle.expansions(c.query)) > 50]
    ranked = [c for c in many if len(c.query.replace("*", "")) >= 4]
    assert len(many) >= 10 and ranked, "the generated patterns never expand widely"
    wrong = []
    for case in cases:
        result = index.search(
            case.query,
            filters=list(case.filters),
            word_forms=case.word_forms,
            max_passages=0,
            facet_limit=10,
            timeout_s=0,
        )
        assert not result.partial_results
        got_facets = {
            dim: {v.value: v.count for v in values}
            for dim, values in result.facets.items()
            if dim in ("author", "language", "file_extension") and values
        }
        unfiltered = case.expected
        if case.filters:  # the hits of the query alone, for the drilled dimension's counts
            unfiltered = _unfiltered(oracle, case)
        want = _facets_expected(oracle, case, unfiltered)
        want = {dim: counts for dim, counts in want.items() if counts}
        if result.total_hits != len(case.expected) or got_facets != want:
            wrong.append((case.family, case.query, result.total_hits, len(case.expected)))
    assert not wrong, (
        f"seed {SEED}: {len(wrong)} of {len(cases)} queries differ from the oracle: {wrong[:10]}"
    )


def _unfiltered(oracle: Oracle, case: Case) -> frozenset[int]:
    text = case.query
    if text.endswith("*"):
        return oracle.pattern(text)
    return oracle.term(text)


def test_a_pattern_finds_the_documents_of_its_rarest_words(corpus: tuple[Index, Oracle]) -> None:
    """A planted check of the reason for the test: a word that is not among a pattern's 50 best
    still brings its documents."""
    index, oracle = corpus
    terms = oracle.expansions("*lich")  # four letters: a ranked pattern
    assert len(terms) > 200
    rare = [t for t in terms if len(oracle.postings[t]) == 1]
    assert rare
    hits = {
        hit.file_path
        for hit in index.search(f"*lich {rare[-1]}", max_passages=0, timeout_s=0).documents
    }
    (n,) = oracle.postings[rare[-1]]
    assert oracle.docs[n].path in hits
    assert index.search("*lich", max_passages=0, timeout_s=0).total_hits == len(
        oracle.pattern("*lich")
    )
