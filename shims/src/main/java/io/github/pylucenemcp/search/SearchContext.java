package io.github.pylucenemcp.search;

import io.github.pylucenemcp.queryparser.ContentQueryParser;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.facet.DrillDownQuery;
import org.apache.lucene.facet.DrillSideways;
import org.apache.lucene.facet.Facets;
import org.apache.lucene.facet.FacetsConfig;
import org.apache.lucene.facet.sortedset.SortedSetDocValuesReaderState;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.ExitableDirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TotalHits;

/**
 * What every search of one index shares (schema, analyzer, facets), so that a search from
 * Python is two calls across the boundary: {@link #parse} and {@link #run}. Thread-safe: a new
 * parser per parse, nothing mutable.
 */
public final class SearchContext {
  /** A query parsed twice: for searching and for highlighting, with the highlight's units. */
  public static final class Parsed {
    public final Query query;
    public final Query highlightQuery;
    public final List<Query> units;

    Parsed(Query query, Query highlightQuery, List<Query> units) {
      this.query = query;
      this.highlightQuery = highlightQuery;
      this.units = units;
    }
  }

  private final Analyzer analyzer;
  private final FacetsConfig facetsConfig;
  private final String contentField;
  private final String reversedField;
  private final String translitField;
  private final Set<String> textFields;
  private final Set<String> keywordFields;
  private final Set<String> longFields;
  private final Set<String> dateFields;
  private final Set<String> storedFields;
  private final String pageOffsetsField;
  private final Set<String> matchFields;
  private final String[] facetDims;
  private final int facetTopN;

  public SearchContext(
      Analyzer analyzer,
      FacetsConfig facetsConfig,
      String contentField,
      String reversedField,
      String translitField,
      Set<String> textFields,
      Set<String> keywordFields,
      Set<String> longFields,
      Set<String> dateFields,
      Set<String> storedFields,
      String pageOffsetsField,
      String[] facetDims,
      int facetTopN) {
    this.analyzer = analyzer;
    this.facetsConfig = facetsConfig;
    this.contentField = contentField;
    this.reversedField = reversedField;
    this.translitField = translitField;
    this.textFields = Set.copyOf(textFields);
    this.keywordFields = Set.copyOf(keywordFields);
    this.longFields = Set.copyOf(longFields);
    this.dateFields = Set.copyOf(dateFields);
    this.storedFields = Set.copyOf(storedFields);
    this.pageOffsetsField = pageOffsetsField;
    this.matchFields = Set.of(contentField, translitField);
    this.facetDims = facetDims.clone();
    this.facetTopN = facetTopN;
  }

  public ContentQueryParser parser(boolean and, boolean highlight) {
    ContentQueryParser parser =
        new ContentQueryParser(
            contentField, reversedField, translitField, textFields, keywordFields, longFields,
            dateFields, analyzer, highlight);
    parser.setDefaultOperator(and ? QueryParser.Operator.AND : QueryParser.Operator.OR);
    return parser;
  }

  /**
   * Parses for searching and for highlighting.
   *
   * @throws ParseException for a malformed query or an unknown field
   */
  public Parsed parse(String text, boolean and) throws ParseException {
    Query query = parser(and, false).parse(text);
    ContentQueryParser highlighter = parser(and, true);
    Query highlight = highlighter.parse(text);
    return new Parsed(query, highlight, highlighter.getUnits());
  }

  /**
   * {@code searcher}'s reader wrapped in an {@link ExitableDirectoryReader} whose work stops at
   * the calling thread's {@link Deadline} (term enumeration, points and doc values check the
   * clock). Build it once per reader, with the facet state of this wrapped reader, and pass it to
   * {@link #run}.
   */
  public static IndexReader limitedReader(IndexSearcher searcher) throws IOException {
    IndexReader reader = searcher.getIndexReader();
    return reader instanceof DirectoryReader directory
        ? ExitableDirectoryReader.wrap(directory, Deadline.READ)
        : reader;
  }

  /**
   * {@link #search} under a time limit of {@code timeoutMs} (none when ≤ 0), on a new searcher
   * over {@code limitedReader} (see {@link #limitedReader}) with {@code searcher}'s similarity
   * and query cache, whose bulk scorers are time-limited too (except under DrillSideways with
   * chosen facet values). When collecting ran out of time, the answer holds what was found and
   * {@code "partial":true}; when nothing could be had in time (terms still being expanded, or
   * facet values chosen), it throws.
   *
   * @throws SearchTimeoutException when time ran out before any hit was collected
   */
  public String run(
      IndexSearcher searcher,
      IndexReader limitedReader,
      SortedSetDocValuesReaderState state,
      DrillDownQuery drillDown,
      Sort sort,
      int page,
      int pageSize,
      Query[] filterCounts,
      Query highlightQuery,
      List<Query> units,
      int maxPassages,
      int maxChars,
      long timeoutMs)
      throws IOException {
    // a new searcher each time: IndexSearcher.timedOut() stays true once a search timed out
    IndexSearcher limited = new IndexSearcher(limitedReader);
    limited.setSimilarity(searcher.getSimilarity());
    limited.setQueryCache(searcher.getQueryCache());
    limited.setQueryCachingPolicy(searcher.getQueryCachingPolicy());
    if (state == null || drillDown.getDrillDownQueries().length == 0) {
      // DrillSidewaysScorer (drill-down values chosen) cannot be scored in time-limited windows;
      // there the reader's checks stop the search, without hits
      limited.setTimeout(Deadline.COLLECT);
    }
    Deadline.start(timeoutMs);
    try {
      return search(
          limited, state, drillDown, sort, page, pageSize, filterCounts, highlightQuery, units,
          maxPassages, maxChars);
    } catch (ExitableDirectoryReader.ExitingReaderException e) {
      throw new SearchTimeoutException(timeoutMs, e);
    } finally {
      Deadline.clear();
    }
  }

  /**
   * Runs a prepared search in one call: DrillSideways (or a plain search while no facet is
   * indexed), the exact total, the page's stored fields and passages, the facet counts and the
   * counts of {@code filterCounts}; everything comes back as one JSON string
   * ({@code {"total", "scores", "counts", "facets", "hits"}}). Measured in bench/boundary.py:
   * each call across the JPype boundary costs microseconds, and a search makes dozens of them
   * otherwise.
   */
  public String search(
      IndexSearcher searcher,
      SortedSetDocValuesReaderState state,
      DrillDownQuery drillDown,
      Sort sort,
      int page,
      int pageSize,
      Query[] filterCounts,
      Query highlightQuery,
      List<Query> units,
      int maxPassages,
      int maxChars)
      throws IOException {
    int topN = page * pageSize;
    TopDocs top;
    Facets facets = null;
    if (state != null) {
      DrillSideways sideways = new DrillSideways(searcher, facetsConfig, state);
      DrillSideways.DrillSidewaysResult result =
          sort == null
              ? sideways.search(drillDown, topN)
              : sideways.search(drillDown, null, null, topN, sort, true);
      top = result.hits;
      facets = result.facets;
    } else {
      top = sort == null ? searcher.search(drillDown, topN) : searcher.search(drillDown, topN, sort, true);
    }
    boolean partial = searcher.timedOut();
    long total = top.totalHits.value();
    if (!partial && top.totalHits.relation() != TotalHits.Relation.EQUAL_TO) {
      total = searcher.count(drillDown);
      partial = searcher.timedOut();
    }
    int from = Math.min((page - 1) * pageSize, top.scoreDocs.length);
    int to = Math.min(topN, top.scoreDocs.length);
    int[] docIds = new int[to - from];
    Json json = new Json().raw("{\"total\":").number(total).raw(",\"scores\":[");
    for (int i = from; i < to; i++) {
      ScoreDoc hit = top.scoreDocs[i];
      docIds[i - from] = hit.doc;
      json.raw(i == from ? "" : ",").number(Float.isNaN(hit.score) ? 0.0 : (double) hit.score);
    }
    json.raw("],\"counts\":[");
    for (int i = 0; i < filterCounts.length; i++) {
      // a count cut short by the deadline is a lower bound: "partial" below says so
      json.raw(i == 0 ? "" : ",").number((long) searcher.count(filterCounts[i]));
    }
    partial |= searcher.timedOut();
    json.raw("],\"facets\":").raw(PageResults.facets(facets, facetDims, facetTopN));
    String hits;
    try {
      hits =
          PageResults.hits(
              searcher, docIds, storedFields, pageOffsetsField, analyzer, contentField,
              matchFields, highlightQuery, units, maxPassages, maxChars);
    } catch (ExitableDirectoryReader.ExitingReaderException e) {
      // out of time while highlighting: the hits with their leading passages, marked partial
      Deadline.clear();
      partial = true;
      hits =
          PageResults.hits(
              searcher, docIds, storedFields, pageOffsetsField, analyzer, contentField,
              matchFields, null, List.of(), maxPassages, maxChars);
    }
    json.raw(",\"hits\":").raw(hits).raw(",\"partial\":").raw(partial ? "true" : "false");
    return json.raw("}").toString();
  }
}
