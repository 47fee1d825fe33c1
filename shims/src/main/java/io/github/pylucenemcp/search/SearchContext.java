package io.github.pylucenemcp.search;

import io.github.pylucenemcp.queryparser.ContentQueryParser;
import io.github.pylucenemcp.schema.FieldSchema;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.facet.DrillDownQuery;
import org.apache.lucene.facet.DrillSideways;
import org.apache.lucene.facet.Facets;
import org.apache.lucene.facet.FacetsCollector;
import org.apache.lucene.facet.FacetsCollectorManager;
import org.apache.lucene.facet.FacetsConfig;
import org.apache.lucene.facet.sortedset.DefaultSortedSetDocValuesReaderState;
import org.apache.lucene.facet.sortedset.SortedSetDocValuesReaderState;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.ExitableDirectoryReader;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.ConstantScoreQuery;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ReferenceManager;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherLifetimeManager;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TotalHits;

/**
 * What every search of one index shares (schema, analyzer, facets), so that a search from Python is
 * two calls across the boundary: {@link #parse} and {@link #run}. Thread-safe: a new parser per
 * parse, nothing mutable.
 */
public final class SearchContext {
  /** A {@link SearchRequest} made ready to run: its queries built. */
  record Prepared(
      DrillDownQuery drillDown,
      Sort sort,
      int page,
      int pageSize,
      ScoreDoc after,
      Query[] filterCounts,
      Query highlightQuery,
      List<Query> units,
      int maxPassages,
      int maxChars,
      int facetLimit,
      Map<String, List<String>> drilled,
      boolean browsing,
      Query[] counted,
      String[] rangeFields,
      long[][] rangeEdges,
      long snapshot) {
    /** This request, its answer naming the walk's snapshot {@code version}. */
    Prepared withSnapshot(long version) {
      return new Prepared(
          drillDown,
          sort,
          page,
          pageSize,
          after,
          filterCounts,
          highlightQuery,
          units,
          maxPassages,
          maxChars,
          facetLimit,
          drilled,
          browsing,
          counted,
          rangeFields,
          rangeEdges,
          version);
    }
  }

  /** What faceting adds to a search of {@code query}, for profileQuery (see {@link FacetCost}). */
  public byte[] facetCost(ReferenceManager<IndexSearcher> searchers, Query query, int repeats)
      throws IOException {
    IndexSearcher current = searchers.acquire();
    try {
      ReaderState reader = readerState(current);
      IndexSearcher searcher = limitedSearcher(current, reader.limited); // the state's reader
      return FacetCost.measure(searcher, reader.facets, query, repeats, schema.facetDims);
    } finally {
      searchers.release(current);
    }
  }

  /** A reader wrapped to stop at the deadline, and the facet state of that wrapped reader. */
  private record ReaderState(IndexReader limited, SortedSetDocValuesReaderState facets) {}

  private final FieldSchema schema;
  private final Analyzer analyzer;
  private final FacetsConfig facetsConfig;
  private final Browsing browsing;
  private final Set<String> matchFields;
  private final Map<IndexReader, ReaderState> readers = new WeakHashMap<>();
  private final QueryParsing parsing;
  private final Pages pages;

  // each reader's facet counts over all its documents (see browse)

  public SearchContext(FieldSchema schema, Analyzer analyzer, FacetsConfig facetsConfig) {
    this(schema, analyzer, analyzer, facetsConfig);
  }

  /**
   * {@code analyzer}: the index's (the highlighter analyses a document's text with it); {@code
   * queryAnalyzer}: a query's words' (names kept whole: {@code Analyzers.perField} without name
   * parts).
   */
  public SearchContext(
      FieldSchema schema, Analyzer analyzer, Analyzer queryAnalyzer, FacetsConfig facetsConfig) {
    this.schema = schema;
    this.analyzer = analyzer;
    this.facetsConfig = facetsConfig;
    this.browsing = new Browsing(facetsConfig);
    this.parsing = new QueryParsing(schema, queryAnalyzer);
    Set<String> fields = new HashSet<>(schema.lemmaFields.keySet());
    fields.add(schema.content);
    fields.add(schema.translit);
    this.matchFields = Set.copyOf(fields);
    this.pages = new Pages(schema, analyzer, facetsConfig, matchFields);
  }

  public FieldSchema schema() {
    return schema;
  }

  /** The pages of hits, with their passages, of this index's schema and analyzer. */
  public Pages pages() {
    return pages;
  }

  /**
   * A parser of this index's queries; {@code highlight}: one that records the highlight's units.
   */
  public ContentQueryParser parser(boolean and, boolean highlight) {
    return parsing.parser(and, highlight, true);
  }

  /**
   * Parses for searching and for highlighting ({@link QueryParsing#parse}), kept for the next
   * search of the same text.
   *
   * @throws ParseException for a malformed query or an unknown field
   */
  public Parsed parse(String text, boolean and) throws ParseException {
    return parsing.parse(text, and, true);
  }

  /**
   * {@link #parse(String, boolean)}; with {@code wordForms}, words and phrases also match other
   * forms of their words (the lemma fields).
   *
   * @throws ParseException for a malformed query or an unknown field
   */
  public Parsed parse(String text, boolean and, boolean wordForms) throws ParseException {
    return parsing.parse(text, and, wordForms);
  }

  /**
   * {@code searcher}'s reader wrapped in an {@link ExitableDirectoryReader} whose work stops at the
   * calling thread's {@link Deadline} (term enumeration, points and doc values check the clock).
   * Build it once per reader, with the facet state of this wrapped reader, and pass it to {@link
   * #run}.
   */
  public static IndexReader limitedReader(IndexSearcher searcher) throws IOException {
    IndexReader reader = searcher.getIndexReader();
    return reader instanceof DirectoryReader directory
        ? ExitableDirectoryReader.wrap(directory, Deadline.READ)
        : reader;
  }

  /**
   * One whole search in one call across the boundary: the request's query parsed (terms ANDed or
   * not, other word forms matched or not), searched within its filters (see {@link #prepare}),
   * paged, sorted, with passages per hit and the most frequent values per facet dimension, and its
   * counted queries and ranges counted among the hits.
   *
   * <p>It runs {@link #search} under the request's time limit (none when ≤ 0), counts included, on
   * a new searcher over the reader wrapped by {@link #limitedReader} (once per reader), with {@code
   * searchers}' similarity and query cache, whose bulk scorers are time-limited too (except under
   * DrillSideways with chosen facet values). When collecting ran out of time, the answer holds what
   * was found and {@code "partial":true}; when nothing could be had in time (terms still being
   * expanded, or facet values chosen), it throws.
   *
   * @throws ParseException when the query or a counted query cannot be parsed (the caller parses it
   *     again to say why); a RuntimeException that the text cannot cause passes through as itself
   * @throws SearchTimeoutException when time ran out before any hit was collected
   */
  public byte[] run(ReferenceManager<IndexSearcher> searchers, SearchRequest request)
      throws IOException, ParseException {
    return run(searchers, null, request);
  }

  /** How long a walk's snapshot is kept once a newer searcher replaced it, in seconds. */
  public static final double SNAPSHOT_SECONDS = 600;

  /**
   * {@link #run(ReferenceManager, SearchRequest)}, where a cursor's walk ({@link
   * SearchRequest#walk}) searches the index as it was when the walk began: its searcher is kept in
   * {@code snapshots} (the index's own) and acquired again for each page, so that documents added,
   * changed or deleted meanwhile neither move, repeat nor hide the others, for every sort. A
   * snapshot is kept {@link #SNAPSHOT_SECONDS} after a newer searcher replaced it; a walk whose
   * snapshot is gone continues on the current searcher from its last position.
   */
  public byte[] run(
      ReferenceManager<IndexSearcher> searchers,
      SearcherLifetimeManager snapshots,
      SearchRequest request)
      throws IOException, ParseException {
    Parsed parsed =
        request.matching != null
            ? new Parsed(request.matching, request.matching, null, List.of(), false)
            : parsing.parseChecked(request.queryText, request.and, request.wordForms);
    if (parsed.query == null) {
      throw new ParseException("the query has no searchable words");
    }
    if (request.semanticSet != null) { // either list's documents; the fused ones first
      Query union =
          new BooleanQuery.Builder()
              .add(new BoostQuery(new ConstantScoreQuery(parsed.matchQuery), 0f), Occur.SHOULD)
              .add(new BoostQuery(new ConstantScoreQuery(request.semanticSet), 0f), Occur.SHOULD)
              .add(request.fused, Occur.SHOULD)
              .build();
      parsed = new Parsed(parsed.query, union, parsed.highlightQuery, parsed.units, false);
    }
    Query[] counted = new Query[request.countedQueries.size()];
    for (int i = 0; i < counted.length; i++) {
      String text = request.countedQueries.get(i);
      counted[i] = parsing.countedQuery(text, request.and, request.wordForms);
      if (counted[i] == null) {
        throw new ParseException("the counted query " + text + " has no searchable words");
      }
    }
    Prepared prepared = prepare(parsed, request, counted);
    boolean walking = request.walk && snapshots != null;
    IndexSearcher searcher = null;
    if (walking && request.snapshot >= 0) {
      searcher = snapshots.acquire(request.snapshot); // null once pruned
    }
    boolean kept = searcher != null;
    if (searcher == null) {
      searcher = searchers.acquire();
    }
    try {
      if (walking) {
        prepared = prepared.withSnapshot(keep(snapshots, searcher));
      }
      ReaderState reader = readerState(searcher);
      // UTF-8 bytes: JPype hands a byte[] to Python as one copy, a String char by char
      return run(searcher, reader.limited, reader.facets, prepared, request.timeoutMs)
          .getBytes(StandardCharsets.UTF_8);
    } finally {
      if (kept) {
        snapshots.release(searcher);
      } else {
        searchers.release(searcher);
      }
    }
  }

  /**
   * Keeps {@code searcher} as a walk's snapshot; its version, or -1 where it cannot be kept (a
   * searcher of a reopened index with the version of one kept before: the walk goes on without).
   */
  private static long keep(SearcherLifetimeManager snapshots, IndexSearcher searcher)
      throws IOException {
    try {
      long version = snapshots.record(searcher);
      snapshots.prune(new SearcherLifetimeManager.PruneByAge(SNAPSHOT_SECONDS));
      return version;
    } catch (IllegalArgumentException e) {
      return -1;
    }
  }

  /**
   * {@code searcher}'s reader wrapped to stop at a search's deadline (see {@link #limitedReader})
   * with the facet state of the wrapped reader (null while no document has a facet), built once per
   * reader.
   */
  private ReaderState readerState(IndexSearcher searcher) throws IOException {
    IndexReader reader = searcher.getIndexReader();
    synchronized (readers) {
      ReaderState known = readers.get(reader);
      if (known == null) {
        IndexReader limited = limitedReader(searcher);
        boolean faceted =
            FieldInfos.getMergedFieldInfos(reader).fieldInfo(FacetsConfig.DEFAULT_INDEX_FIELD_NAME)
                != null;
        known =
            new ReaderState(
                limited,
                faceted ? new DefaultSortedSetDocValuesReaderState(limited, facetsConfig) : null);
        readers.put(reader, known);
      }
      return known;
    }
  }

  /**
   * A searcher over {@code limitedReader} as {@code searcher} searches (its similarity and query
   * cache), whose slices of a large index run on the search threads, deadlines and all.
   */
  private static IndexSearcher limitedSearcher(IndexSearcher searcher, IndexReader limitedReader) {
    IndexSearcher limited = new IndexSearcher(limitedReader, Deadline.EXECUTOR);
    limited.setSimilarity(searcher.getSimilarity());
    limited.setQueryCache(searcher.getQueryCache());
    limited.setQueryCachingPolicy(searcher.getQueryCachingPolicy());
    return limited;
  }

  /** {@link #search} of a prepared request under a time limit; see the public {@link #run}. */
  String run(
      IndexSearcher searcher,
      IndexReader limitedReader,
      SortedSetDocValuesReaderState state,
      Prepared request,
      long timeoutMs)
      throws IOException {
    // a new searcher each time: IndexSearcher.timedOut() stays true once a search timed out
    IndexSearcher limited = limitedSearcher(searcher, limitedReader);
    if (state == null || request.drillDown.getDrillDownQueries().length == 0 || request.browsing) {
      // DrillSidewaysScorer (drill-down values chosen) cannot be scored in time-limited windows;
      // there the reader's checks stop the search, without hits
      limited.setTimeout(Deadline.COLLECT);
    }
    Deadline.start(timeoutMs);
    try {
      return search(limited, state, request);
    } catch (ExitableDirectoryReader.ExitingReaderException e) {
      throw new SearchTimeoutException(timeoutMs, e);
    } finally {
      Deadline.clear();
    }
  }

  /**
   * The search of {@code parsed} within the request's filters: each is a filter clause, an
   * exclusion or a facet dimension's drill-down values (see {@link FilterKind}), and each is
   * counted with the query alone (its {@code matchCount}); {@code counted}: the parsed counted
   * queries.
   */
  Prepared prepare(Parsed parsed, SearchRequest request, Query[] counted) {
    // what may be read is part of what matches: the hits, their totals, counts and facets
    Query match =
        request.within == null
            ? parsed.matchQuery
            : new BooleanQuery.Builder()
                .add(parsed.matchQuery, Occur.MUST)
                .add(request.within, Occur.FILTER)
                .build();
    BooleanQuery.Builder base = new BooleanQuery.Builder().add(match, Occur.MUST);
    Query[] counts = new Query[request.filters.size()];
    boolean onlyDrilled = request.within == null; // browse counts every document
    for (int i = 0; i < counts.length; i++) {
      FilterKind kind = request.kinds.get(i);
      Occur occur = kind == FilterKind.EXCLUDE ? Occur.MUST_NOT : Occur.FILTER;
      if (kind != FilterKind.DRILL_DOWN) {
        base.add(request.filters.get(i), occur);
        onlyDrilled = false;
      }
      counts[i] =
          new BooleanQuery.Builder()
              .add(match, Occur.MUST)
              .add(request.filters.get(i), occur)
              .build();
    }
    DrillDownQuery drillDown = new DrillDownQuery(facetsConfig, base.build());
    Map<String, List<String>> drilled = new LinkedHashMap<>();
    for (String[] chosen : request.drilled) {
      drillDown.add(chosen[0], chosen[1]);
      drilled.computeIfAbsent(chosen[0], d -> new ArrayList<>()).add(chosen[1]);
    }
    // all documents within chosen facet values, nothing else: see browse
    boolean browsing = parsed.matchAll && !drilled.isEmpty() && onlyDrilled;
    boolean highlight = !parsed.matchAll && request.maxPassages > 0 && request.matching == null;
    Sort sort = request.sort;
    return new Prepared(
        drillDown,
        sort,
        request.page,
        request.pageSize,
        request.after == null ? null : Positions.after(request.after, sort),
        counts,
        highlight ? parsed.highlightQuery : null,
        parsed.units,
        Math.max(request.maxPassages, 1),
        request.maxChars,
        request.facetLimit,
        drilled,
        browsing,
        counted,
        request.rangeFields.toArray(new String[0]),
        request.rangeEdges.toArray(new long[0][]),
        -1);
  }

  /**
   * Runs a prepared search in one call: DrillSideways (or a plain search while no facet is
   * indexed), the exact total, the page's hits as the search tool shows them, the facet counts and
   * the counts of {@code filterCounts}; everything comes back as one string: the JSON object {@code
   * {"totalHits", "counts", "facets", "partial"}} followed by the JSON array of the hits, which the
   * caller may decode when it needs them (the public {@link #run} hands it over as UTF-8). Measured
   * in bench/boundary.py: each call across the JPype boundary costs microseconds, and a search
   * makes dozens of them otherwise.
   */
  String search(IndexSearcher searcher, SortedSetDocValuesReaderState state, Prepared r)
      throws IOException {
    if (r.after != null) { // see Positions.after(): only the values of the sort place a position
      r.after.doc = Math.max(0, searcher.getIndexReader().maxDoc() - 1);
    }
    // after a position: one hit more than the page, to tell whether another page follows
    int topN = r.after == null ? r.page * r.pageSize : r.pageSize + 1;
    TopDocs top;
    Facets facets = null;
    FacetsCollector hitsCollected = null; // the hits, for range counts: when the search has them
    if (state != null && r.browsing) {
      FacetsCollectorManager.FacetsResult result =
          r.sort == null
              ? FacetsCollectorManager.searchAfter(
                  searcher, r.after, r.drillDown, topN, new FacetsCollectorManager())
              : FacetsCollectorManager.searchAfter(
                  searcher, r.after, r.drillDown, topN, r.sort, true, new FacetsCollectorManager());
      top = result.topDocs();
      hitsCollected = result.facetsCollector();
      facets = browsing.facets(searcher, state, r.drilled, hitsCollected);
    } else if (state != null) {
      FacetCounting.CountingSideways sideways =
          new FacetCounting.CountingSideways(searcher, facetsConfig, state);
      DrillSideways.DrillSidewaysResult result =
          r.sort == null
              ? sideways.search(r.after, r.drillDown, topN)
              : sideways.search(r.drillDown, null, (FieldDoc) r.after, topN, r.sort, true);
      top = result.hits;
      facets = result.facets;
      hitsCollected = sideways.hits;
    } else {
      top =
          r.sort == null
              ? searcher.searchAfter(r.after, r.drillDown, topN)
              : searcher.searchAfter(r.after, r.drillDown, topN, r.sort, true);
    }
    boolean partial = searcher.timedOut();
    long total = top.totalHits.value();
    if (!partial && top.totalHits.relation() != TotalHits.Relation.EQUAL_TO) {
      total = searcher.count(r.drillDown);
      partial = searcher.timedOut();
    }
    int from = r.after == null ? Math.min((r.page - 1) * r.pageSize, top.scoreDocs.length) : 0;
    int to = Math.min(r.after == null ? topN : r.pageSize, top.scoreDocs.length);
    int[] docIds = new int[to - from];
    float[] scores = new float[to - from];
    for (int i = from; i < to; i++) {
      docIds[i - from] = top.scoreDocs[i].doc;
      scores[i - from] = top.scoreDocs[i].score;
    }
    String hits;
    try {
      hits =
          pages.hits(
              searcher, docIds, scores, r.highlightQuery, r.units, r.maxPassages, r.maxChars);
    } catch (ExitableDirectoryReader.ExitingReaderException e) {
      // out of time while highlighting: the hits with their leading passages, marked partial
      Deadline.clear();
      partial = true;
      hits = pages.hits(searcher, docIds, scores, null, List.of(), r.maxPassages, r.maxChars);
    }
    Json json = new Json().object().name("totalHits").number(total).name("counts").array();
    for (Query counted : r.filterCounts) {
      // a count cut short by the deadline is a lower bound: "partial" below says so
      json.number(searcher.count(counted));
    }
    partial |= searcher.timedOut();
    PageResults.facets(json.end().name("facets"), facets, schema.facetDims, r.facetLimit);
    if (r.counted.length > 0 || r.rangeFields.length > 0) {
      partial |= HitCounts.write(json, searcher, r, hitsCollected, partial);
    }
    if (to > from) {
      json.name("last").string(Positions.position(top.scoreDocs[to - 1]));
    }
    if (r.after != null) {
      json.name("more").bool(top.scoreDocs.length > r.pageSize);
    }
    if (r.snapshot >= 0) {
      json.name("snapshot").number(r.snapshot);
    }
    return json.name("partial").bool(partial).end().toString() + hits;
  }
}
