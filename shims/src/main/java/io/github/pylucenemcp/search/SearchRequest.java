package io.github.pylucenemcp.search;

import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ReferenceManager;
import org.apache.lucene.search.SearcherLifetimeManager;
import org.apache.lucene.search.Sort;

/**
 * One search as {@link SearchContext#run} takes it, built by chained calls: the query text and
 * everything else it is searched with. What is not set keeps the search tool's defaults: AND, other
 * word forms matched, no filters, by score, page 1 of 10, 3 passages of 200 characters, 10 values a
 * facet, no time limit, nothing counted besides.
 *
 * <pre>{@code
 * new SearchRequest("signed contract").filter(pdf, FilterKind.FILTER).page(2, 10, null)
 * }</pre>
 */
public final class SearchRequest {
  final String queryText;
  boolean and = true;
  boolean wordForms = true;
  final List<Query> filters = new ArrayList<>();
  final List<FilterKind> kinds = new ArrayList<>();
  final List<String[]> drilled = new ArrayList<>();
  Sort sort;
  int page = 1;
  int pageSize = 10;
  String after;
  long snapshot = -1;
  boolean walk;
  int maxPassages = 3;
  int maxChars = 200;
  int facetLimit = 10;
  long timeoutMs;
  final List<String> countedQueries = new ArrayList<>();
  final List<String> rangeFields = new ArrayList<>();
  final List<long[]> rangeEdges = new ArrayList<>();
  Query within;
  Query matching;
  Query semanticSet;
  Query fused;

  public SearchRequest(String queryText) {
    this.queryText = queryText;
  }

  /** Terms ANDed ({@code and}) or ORed; {@code wordForms}: other forms of the words match. */
  public SearchRequest operator(boolean and, boolean wordForms) {
    this.and = and;
    this.wordForms = wordForms;
    return this;
  }

  /** A filter (see {@link FilterKind}); each is also counted with the query alone. */
  public SearchRequest filter(Query query, FilterKind kind) {
    filters.add(query);
    kinds.add(kind);
    return this;
  }

  /**
   * The documents the asker may read ({@code null}: all): a filter clause of the search, of each
   * filter's count and of the facets, not an active filter itself; the answer is as if no other
   * document existed.
   */
  public SearchRequest within(Query readable) {
    this.within = readable;
    return this;
  }

  /**
   * The query that matches and scores instead of the parsed text: a semantic search's documents,
   * each scored by its similarity ({@link PathScores}). Filters, facets, counts, sorting and paging
   * apply to it as to a parsed query; no passages are found for it (the caller has the chunk that
   * matched).
   */
  public SearchRequest matching(Query query) {
    this.matching = query;
    return this;
  }

  /**
   * A hybrid search: the documents of the parsed query and those of {@code semantic} (a semantic
   * search's, {@link PathScores}) both match; {@code fused} scores the best of both lists above all
   * others (reciprocal rank fusion, done by the caller), and the others follow unordered. Passages
   * are found for the parsed query as in a lexical search.
   */
  public SearchRequest hybrid(Query semantic, Query fused) {
    this.semanticSet = semantic;
    this.fused = fused;
    return this;
  }

  /** A value of facet dimension {@code dim} chosen by drill-down (with a DRILL_DOWN filter). */
  public SearchRequest drillDown(String dim, String value) {
    drilled.add(new String[] {dim, value});
    return this;
  }

  /** The sort (null: by score). */
  public SearchRequest sort(Sort sort) {
    this.sort = sort;
    return this;
  }

  /**
   * The page of {@code pageSize} hits; {@code after} (or null): the position a cursor continues
   * after, as the last answer's {@code "last"} gave it.
   */
  public SearchRequest page(int page, int pageSize, String after) {
    this.page = page;
    this.pageSize = pageSize;
    this.after = after;
    return this;
  }

  /**
   * A cursor's walk: its pages come from the index as it was when the walk began, the searcher kept
   * as the snapshot {@code snapshot} (-1: a new walk, from the current searcher), while the
   * snapshot is kept (see {@link SearchContext#run(ReferenceManager, SearcherLifetimeManager,
   * SearchRequest)}); the answer's {@code "snapshot"} names it for the next page.
   */
  public SearchRequest walk(long snapshot) {
    this.walk = true;
    this.snapshot = snapshot;
    return this;
  }

  /** At most {@code max} passages a hit (0: none) of at most {@code maxChars} characters. */
  public SearchRequest passages(int max, int maxChars) {
    this.maxPassages = max;
    this.maxChars = maxChars;
    return this;
  }

  /** The most frequent values listed per facet dimension. */
  public SearchRequest facetLimit(int limit) {
    this.facetLimit = limit;
    return this;
  }

  /** The time limit of the whole search, counts included (none when ≤ 0). */
  public SearchRequest timeoutMs(long timeoutMs) {
    this.timeoutMs = timeoutMs;
    return this;
  }

  /** A query text (parsed as the search's own) whose matches among the hits are counted. */
  public SearchRequest countQuery(String text) {
    countedQueries.add(text);
    return this;
  }

  /**
   * The hits counted in buckets of the long field {@code field}: {@code [edges[i], edges[i + 1])}.
   */
  public SearchRequest countRanges(String field, long[] edges) {
    if (edges.length < 2) {
      throw new IllegalArgumentException("a range facet needs at least two edges");
    }
    rangeFields.add(field);
    rangeEdges.add(edges.clone());
    return this;
  }
}
