"""The questions both backends answer the same way, written once over each backend's primitives
(its search, its stored documents, its probe of terms and counts, its term counts and duplicate
groups): a backend inherits them from :class:`SharedQuestions` and writes only the primitives
(``tests/contract`` runs the same tests on both)."""

from __future__ import annotations

from pylucene_mcp.engine.core import info, miss, profile, quotes, request, vocabulary


class SharedQuestions:
    """The facet counts of a request, a document's details, a quote's locations, a query's
    profile, why a document is missed, the vocabulary's suggestions and top terms, and the
    duplicates, each one function of the core (see its module) over the backend's primitives."""

    facet_counts = request.facet_counts
    document_details = info.document_details
    locate_quote = quotes.locate_quote
    profile_query = profile.profile_query
    explain_miss = miss.explain_miss
    suggest_terms = vocabulary.suggest_terms
    top_terms = vocabulary.top_terms
    find_duplicates = vocabulary.find_duplicates
