"""Query parsing: the classic syntax through the project's parser shim (``SearchContext``),
with errors that quote the query, say where and what to do, and suggest only repairs that keep
the meaning."""

from __future__ import annotations

import functools
import math
import re
from typing import Any, get_args

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors, schema
from pylucene_mcp.basics.config import Operator
from pylucene_mcp.basics.shapes import camel, field_names
from pylucene_mcp.basics.text import visible
from pylucene_mcp.engine.core import analysis, documents
from pylucene_mcp.engine.core.results import Hit

#: fields that unfielded words and phrases also match, with their weight. The title at 1: it
#: finds known items whose title is only in the metadata and raises CACM's MAP, where ×2 lowers
#: it (bench/known_item.py, bench/relevance.py). The file name (split into words) at 1: known
#: pages found by their file names' words, and ×2 would weigh a name above the text for every
#: query (bench/file_names.py). The figures: docs/relevance.md.
ALSO_SEARCHED = {"title": 1.0, "file_name": 1.0}

#: the weight of a word's other forms (the lemma fields) beside the word itself: below 1, so
#: that "lock" ranks a page that says "lock" above one that says only "locks"; CACM's MAP rises
#: with the weight and 0.7 keeps most of the gain (bench/relevance.py; docs/relevance.md).
LEMMA_WEIGHT = 0.7


@functools.cache
def field_schema() -> Any:
    """The schema as the shims take it, one ``FieldSchema``. A hit shows the stored fields that
    :class:`~pylucene_mcp.engine.core.results.Hit` declares, in its order and under its JSON
    keys."""
    builder = jvm.jclass("io.github.pylucenemcp.schema.FieldSchema").builder()
    builder.content(schema.CONTENT, schema.CONTENT_REVERSED, schema.CONTENT_TRANSLIT_DE)
    builder.pageOffsets(schema.PAGE_OFFSETS)
    builder.sentences(schema.CONTENT_SENTENCES)
    builder.readers(schema.FILE_READERS)
    builder.text(jvm.jset(schema.TEXT_FIELDS))
    builder.keyword(jvm.jset(schema.KEYWORD_FIELDS))
    builder.longs(jvm.jset(schema.LONG_FIELDS))
    builder.dates(jvm.jset(schema.DATE_FIELDS))
    builder.facets(jvm.jarray("String", list(schema.FACET_FIELDS)))
    builder.flags(jvm.jset(schema.FLAG_FIELDS))
    for name, boost in ALSO_SEARCHED.items():
        builder.alsoSearch(name, boost)
    for name, language in schema.LEMMA_FIELDS.items():
        builder.lemma(name, language, LEMMA_WEIGHT)
    for name in field_names(Hit):
        if name in schema.FIELDS and schema.FIELDS[name].stored:
            builder.hitField(name, camel(name))
    return builder.build()


#: The clauses one query may have (Lucene's ``IndexSearcher.setMaxClauseCount``, 1,024 by
#: default): a word counts once for each field it is searched in and each of its word forms
#: (5–10), so an OR of 300 words passed Lucene's default within our 10,000-character limit.
#: With this, every query of plain words and phrases within the limit fits: its worst case, 5,000
#: one-letter words, has about 50,000 (docs/query.md); patterns and fuzzy words count their
#: expansions and may still pass it, which the error says.
MAX_CLAUSES = 65_536


@functools.cache
def context() -> Any:
    """The Java ``SearchContext``: schema, analyzer and facets shared by every search (and
    Lucene's clause limit raised to :data:`MAX_CLAUSES`, unless someone raised it further)."""
    searcher = jvm.jclass("org.apache.lucene.search.IndexSearcher")
    if searcher.getMaxClauseCount() < MAX_CLAUSES:
        searcher.setMaxClauseCount(MAX_CLAUSES)
    return jvm.jclass("io.github.pylucenemcp.search.SearchContext")(
        field_schema(),
        analysis.schema_analyzer(),
        analysis.schema_analyzer(name_parts=False),
        documents.make_facets_config(),
    )


class ParsedQuery:
    """A parsed query (the shim's ``SearchContext.Parsed``): the Lucene query to run, the one to
    highlight with, and the query's units (terms, phrases, patterns) that passages' term
    coverage counts. ``java`` goes to the shim as it is; the parts are read from it on demand."""

    __slots__ = ("java", "match_all")

    def __init__(self, java: Any, match_all: bool) -> None:
        self.java = java
        self.match_all = match_all

    @property
    def query(self) -> Any:
        """The query on the content, with its rewrites (what profileQuery takes apart)."""
        return self.java.query

    @property
    def match_query(self) -> Any:
        """What a search matches and scores: the content query, or it ORed with the same
        query on the title."""
        return self.java.matchQuery

    @property
    def units(self) -> Any:
        return self.java.units


def query_text(text: str, default_operator: str = "AND") -> str:
    """``text`` stripped, and without the characters no indexed text keeps
    (:func:`~pylucene_mcp.basics.text.visible`), once it and ``default_operator`` are known to
    be worth parsing.

    Raises:
        InvalidRequestError: for an operator other than AND and OR.
        QuerySyntaxError: for an empty query.
    """
    if default_operator not in get_args(Operator):
        raise errors.InvalidRequestError(
            f"the default operator must be AND or OR, not {default_operator!r}"
        )
    stripped = visible(text).strip()  # as the indexed text has them: 👩‍💻 without its joiner
    if not stripped:
        raise errors.QuerySyntaxError(
            "the query is empty; to list every document use '*' (and narrow it with filters)",
            text,
            "*",
        )
    depth = nesting(stripped)
    if depth > MAX_NESTING:
        raise errors.QuerySyntaxError(
            f"query {quote(stripped)} nests parentheses {depth} deep; at most {MAX_NESTING} "
            "levels are parsed: write the alternatives side by side, (a OR b OR c), not inside "
            "each other",
            stripped,
        )
    return stripped


def nesting(text: str) -> int:
    """How deep the parentheses of ``text`` nest outside quotes (escaped ones do not count)."""
    deepest = depth = 0
    quoted = escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif not quoted and char == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif not quoted and char == ")":
            depth = max(0, depth - 1)
    return deepest


def parse_query(
    text: str, default_operator: str = "AND", *, word_forms: bool = True
) -> ParsedQuery:
    """Parses ``text`` in Lucene's classic syntax (see ``ContentQueryParser``); with
    ``word_forms``, words and phrases also match other forms of their words, weighted lower.

    Raises:
        QuerySyntaxError: quoting the problem, with a corrected query when one is found.
        UnknownFieldError: for ``field:value`` with a field the schema does not have.
    """
    stripped = query_text(text, default_operator)
    try:
        with jvm.java_errors(caller_input=True):
            parsed = context().parse(stripped, default_operator == "AND", word_forms)
    except errors.UnknownFieldError:
        raise
    except errors.TooManyClausesError:
        raise
    except errors.QuerySyntaxError as exc:
        message = _first_line(str(exc))
        if "too many boolean clauses" in message.lower():
            raise errors.TooManyClausesError(
                f"query {quote(stripped)} has more clauses (words, phrases, terms) than Lucene "
                "takes in one query; split it into several searches or use fewer OR-terms"
            ) from exc
        suggestion = suggest_fix(stripped, default_operator)
        if suggestion:
            shown = suggestion if len(suggestion) <= QUOTE_CHARS else quote(suggestion)
            hint = f" Try: {shown}"
        elif _ONLY_OPERATORS.fullmatch(stripped):
            hint = (
                " AND, OR and NOT are operators: put words on both sides (lease AND rent), "
                "or write them in lower case to search for the word (and)"
            )
        elif message.startswith(("field '", "the regular expression")):
            hint = ""  # the shim's own message says what to write
        else:
            hint = (
                ' Special characters (+ - && || ! ( ) { } [ ] ^ " ~ * ? : \\ /) need a \\ '
                "before them to be searched as text"
            )
        raise errors.QuerySyntaxError(
            f"cannot parse query {quote(stripped)}: {message}.{hint}", stripped, suggestion
        ) from exc
    except errors.InvalidRequestError as exc:  # Lucene's RegExp refuses a /pattern/
        raise errors.QuerySyntaxError(
            f"cannot parse query {quote(stripped)}: the regular expression at position "
            f"{stripped.find('/')} is not valid ({_first_line(str(exc))}); / starts and ends a "
            "regular expression, so write \\/ to search for a slash",
            stripped,
        ) from exc
    if parsed.query is None:  # only punctuation
        raise errors.QuerySyntaxError(
            f"query {quote(stripped)} has no searchable words; use letters or digits", stripped
        )
    return ParsedQuery(parsed, stripped in ("*", "*:*"))


QUOTE_CHARS = 200

#: operators and spaces only; no two alternatives match at one place, so matching is linear
#: (the former ``(\s*(AND|…)\s*)+`` took 8.8 s on "NOT " * 24 + "a", holding the GIL)
_ONLY_OPERATORS = re.compile(r"(?:AND|OR|NOT|&&|\|\||!|\s)+")
#: how deep parentheses may nest in a query; Lucene's parser recurses once per level
MAX_NESTING = 50


def quote(text: str) -> str:
    """``text`` as an error message quotes it: at most 200 characters."""
    if len(text) <= QUOTE_CHARS:
        return repr(text)
    return f"{text[:QUOTE_CHARS]!r}… ({len(text) - QUOTE_CHARS} more characters)"


def _first_line(message: str) -> str:
    message = message.split("\n")[0].strip()
    message = re.sub(r"^Cannot parse '.*?': ", "", message, flags=re.DOTALL)
    if len(message) > 2 * QUOTE_CHARS:
        message = message[: 2 * QUOTE_CHARS] + "…"
    return message.rstrip(".")


def _drop_operators_at_the_ends(text: str) -> str:
    """``text`` without a binary operator that starts it or an operator that ends it (string
    operations: a regular expression with a space run on both sides of the operator took time
    quadratic in the length of such a run)."""
    words = text.split(None, 1)
    if len(words) == 2 and words[0] in ("AND", "OR", "&&", "||"):
        text = words[1]
    head, _, last = text.rstrip().rpartition(" ")
    if head.strip() and last in ("AND", "OR", "NOT", "&&", "||", "!", "-", "+"):
        text = head.rstrip()
    return text


def suggest_fix(text: str, default_operator: str) -> str | None:
    """A corrected form of a query that fails to parse, or None.

    Closes an open quote, balances parentheses, drops dangling operators and field prefixes;
    offers the result only when it parses.
    """
    fixed = text
    if fixed.count('"') % 2:
        fixed += '"'
    opened = closed = 0
    kept = []
    for char in fixed:
        if char == "(":
            opened += 1
        elif char == ")":
            if closed >= opened:
                continue
            closed += 1
        kept.append(char)
    fixed = "".join(kept) + ")" * (opened - closed)
    fixed = _drop_operators_at_the_ends(fixed)
    bare = fixed.rstrip()
    if bare.endswith(":") and bare[-2:-1].isalnum():  # a field prefix with nothing after it
        fixed = bare[:-1]
    # Only repairs that keep what was asked: no escaping of special characters (it would turn
    # /a{1,100000}/ or modified_date:[2024 TO *] into a search for odd literal text).
    if fixed == text or not fixed.strip():
        return None
    try:
        with jvm.java_errors(caller_input=True):
            context().parser(default_operator == "AND", False).parse(fixed)
    except errors.InvalidRequestError:  # QuerySyntaxError and the regex refusals
        return None
    return fixed


def limit_ms(timeout_s: float) -> int:
    """A time limit in seconds as the whole milliseconds that Java's deadline takes: 0 (or
    less) is no limit, and any other limit is at least 1 ms (a limit under a millisecond had
    become 0, no limit at all)."""
    return 0 if timeout_s <= 0 else max(1, math.ceil(timeout_s * 1000))
