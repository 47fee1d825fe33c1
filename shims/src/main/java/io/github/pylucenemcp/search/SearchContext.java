package io.github.pylucenemcp.search;

import io.github.pylucenemcp.highlight.Highlighting;
import io.github.pylucenemcp.index.SchemaWriter;
import io.github.pylucenemcp.queryparser.ContentQueryParser;
import io.github.pylucenemcp.schema.FieldSchema;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.facet.DrillDownQuery;
import org.apache.lucene.facet.DrillSideways;
import org.apache.lucene.facet.FacetResult;
import org.apache.lucene.facet.Facets;
import org.apache.lucene.facet.FacetsCollector;
import org.apache.lucene.facet.FacetsCollectorManager;
import org.apache.lucene.facet.FacetsConfig;
import org.apache.lucene.facet.LabelAndValue;
import org.apache.lucene.facet.MultiFacets;
import org.apache.lucene.facet.range.LongRange;
import org.apache.lucene.facet.range.LongRangeFacetCounts;
import org.apache.lucene.facet.sortedset.DefaultSortedSetDocValuesReaderState;
import org.apache.lucene.facet.sortedset.SortedSetDocValuesFacetCounts;
import org.apache.lucene.facet.sortedset.SortedSetDocValuesReaderState;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.ExitableDirectoryReader;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ReferenceManager;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherLifetimeManager;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.store.ByteBuffersDirectory;

/**
 * What every search of one index shares (schema, analyzer, facets), so that a search from Python is
 * two calls across the boundary: {@link #parse} and {@link #run}. Thread-safe: a new parser per
 * parse, nothing mutable.
 */
public final class SearchContext {
  /**
   * A query parsed for searching and for highlighting, with the highlight's units. {@code query} is
   * the query on the content (its rewrites, what profileQuery and explainMiss take apart); {@code
   * matchQuery} is what a search matches and scores: the content query, or the same query on each
   * field the schema also searches (title, file name), weighted.
   */
  public static final class Parsed {
    public final Query query;
    public final Query matchQuery;
    public final Query highlightQuery;
    public final List<Query> units;

    /** {@code *} or {@code *:*}: every document, nothing to highlight. */
    public final boolean matchAll;

    Parsed(
        Query query, Query matchQuery, Query highlightQuery, List<Query> units, boolean matchAll) {
      this.query = query;
      this.matchQuery = matchQuery;
      this.highlightQuery = highlightQuery;
      this.units = units;
      this.matchAll = matchAll;
    }
  }

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

  /** A reader wrapped to stop at the deadline, and the facet state of that wrapped reader. */
  private record ReaderState(IndexReader limited, SortedSetDocValuesReaderState facets) {}

  private final FieldSchema schema;
  private final Analyzer analyzer;
  private final Analyzer queryAnalyzer;
  private final FacetsConfig facetsConfig;
  private final Set<String> matchFields;
  private final Map<IndexReader, ReaderState> readers = new WeakHashMap<>();
  // the texts parsed last, by operator, word forms and text: a search parses its text (for
  // searching, highlighting and each field also searched, each a run of the parser) only the
  // first time; paging, filtering, counting and profiling it again
  // take the queries as they are (immutable, so shared by threads)
  private final Map<String, Parsed> parsedTexts =
      Collections.synchronizedMap(
          new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Parsed> eldest) {
              return size() > PARSED_KEPT;
            }
          });

  /** How many parsed texts are kept (see {@code parsedTexts}). */
  static final int PARSED_KEPT = 256;

  // each reader's facet counts over all its documents (see browse)
  private final Map<SortedSetDocValuesReaderState, Facets> allCounts = new WeakHashMap<>();

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
    this.queryAnalyzer = queryAnalyzer;
    this.facetsConfig = facetsConfig;
    Set<String> fields = new HashSet<>(schema.lemmaFields.keySet());
    fields.add(schema.content);
    fields.add(schema.translit);
    this.matchFields = Set.copyOf(fields);
  }

  public FieldSchema schema() {
    return schema;
  }

  public ContentQueryParser parser(boolean and, boolean highlight) {
    return parser(and, highlight, true);
  }

  /** A parser; {@code wordForms}: words and phrases also match their lemmas (see there). */
  public ContentQueryParser parser(boolean and, boolean highlight, boolean wordForms) {
    // unfielded words in every field the schema searches, clause by clause (see there)
    ContentQueryParser parser = new ContentQueryParser(schema, queryAnalyzer, highlight, true);
    parser.setDefaultOperator(and ? QueryParser.Operator.AND : QueryParser.Operator.OR);
    parser.setWordForms(wordForms);
    return parser;
  }

  /**
   * Parses for searching and for highlighting.
   *
   * @throws ParseException for a malformed query or an unknown field
   */
  public Parsed parse(String text, boolean and) throws ParseException {
    return parse(text, and, true);
  }

  /**
   * Parses for searching and for highlighting; with {@code wordForms}, words and phrases also match
   * other forms of their words (the lemma fields).
   *
   * @throws ParseException for a malformed query or an unknown field
   */
  public Parsed parse(String text, boolean and, boolean wordForms) throws ParseException {
    String key = (and ? "A" : "O") + (wordForms ? "F" : "X") + text;
    Parsed known = parsedTexts.get(key);
    if (known == null) {
      known = parseAnew(text, and, wordForms);
      parsedTexts.put(key, known);
    }
    return known;
  }

  private Parsed parseAnew(String text, boolean and, boolean wordForms) throws ParseException {
    if (matchAll(text)) {
      Query all = MatchAllDocsQuery.INSTANCE;
      return new Parsed(all, all, all, List.of(), true);
    }
    Query query = parser(and, false, wordForms).parse(text);
    ContentQueryParser highlighter = parser(and, true, wordForms);
    Query highlight = highlighter.parse(text);
    return new Parsed(query, query, highlight, highlighter.getUnits(), false);
  }

  private static boolean matchAll(String text) {
    String trimmed = text.strip();
    return trimmed.equals("*") || trimmed.equals("*:*");
  }

  /** What a search of {@code text} matches and scores ({@link Parsed#matchQuery}) alone. */
  private Query matchQuery(String text, boolean and, boolean wordForms) throws ParseException {
    if (matchAll(text)) {
      return MatchAllDocsQuery.INSTANCE;
    }
    String key = (and ? "a" : "o") + (wordForms ? "F" : "X") + text;
    Parsed known = parsedTexts.get(key);
    if (known == null) {
      Query match = parser(and, false, wordForms).parse(text);
      known = new Parsed(match, match, null, List.of(), false);
      parsedTexts.put(key, known);
    }
    return known.matchQuery;
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
    Parsed parsed = parseText(request.queryText, request.and, request.wordForms);
    if (parsed.query == null) {
      throw new ParseException("the query has no searchable words");
    }
    Query[] counted = new Query[request.countedQueries.size()];
    for (int i = 0; i < counted.length; i++) {
      String text = request.countedQueries.get(i);
      counted[i] = countedQuery(text, request.and, request.wordForms);
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

  /** {@link #parse}, with the errors of {@link #syntaxError}. */
  private Parsed parseText(String text, boolean and, boolean wordForms) throws ParseException {
    try {
      return parse(text, and, wordForms);
    } catch (ParseException | IllegalArgumentException e) {
      throw syntaxError(e);
    }
  }

  /** A counted query: its {@link #matchQuery}, with the errors of {@link #syntaxError}. */
  private Query countedQuery(String text, boolean and, boolean wordForms) throws ParseException {
    try {
      return matchQuery(text, and, wordForms);
    } catch (ParseException | IllegalArgumentException e) {
      throw syntaxError(e);
    }
  }

  /**
   * What the text can cause, as the ParseException that the caller answers as a syntax error. Only
   * that counts: a regular expression that does not parse is an IllegalArgumentException; too many
   * clauses and a too complex automaton keep their own types (each has its message); any other
   * RuntimeException is a bug of this code, and must not reach the user as "bad syntax".
   */
  private static ParseException syntaxError(Exception e) {
    ParseException failed = new ParseException("cannot parse the query: " + e.getMessage());
    failed.initCause(e);
    return failed;
  }

  /**
   * What faceting adds to a search of {@code query}, for profileQuery: the median time of {@code
   * repeats} runs of the search for 10 hits alone, with the facets collected, of counting the
   * collected facets, and of reading each dimension's top values: {@code {"searchMs", "collectMs",
   * "countMs", "dimensions": {dim: ms}}}.
   */
  public byte[] facetCost(ReferenceManager<IndexSearcher> searchers, Query query, int repeats)
      throws IOException {
    IndexSearcher current = searchers.acquire();
    try {
      ReaderState reader = readerState(current);
      SortedSetDocValuesReaderState state = reader.facets;
      IndexSearcher searcher = limitedSearcher(current, reader.limited); // the state's reader
      long[] search = new long[repeats];
      long[] collect = new long[repeats];
      long[] count = new long[repeats];
      long[][] dims = new long[schema.facetDims.size()][repeats];
      for (int i = 0; i < repeats; i++) {
        long start = System.nanoTime();
        searcher.search(query, 10);
        search[i] = System.nanoTime() - start;
        start = System.nanoTime();
        FacetsCollector collected =
            FacetsCollectorManager.search(searcher, query, 10, new FacetsCollectorManager())
                .facetsCollector();
        collect[i] = System.nanoTime() - start;
        if (state == null) {
          continue;
        }
        start = System.nanoTime();
        Facets facets = FacetCounting.count(state, collected); // as the search counts them
        count[i] = System.nanoTime() - start;
        for (int d = 0; d < dims.length; d++) {
          start = System.nanoTime();
          try {
            facets.getTopChildren(10, schema.facetDims.get(d));
          } catch (IllegalArgumentException e) {
            // no document has this dimension yet
          }
          dims[d][i] = System.nanoTime() - start;
        }
      }
      Json json = new Json().object().name("searchMs").decimal(medianMs(search));
      json.name("collectMs").decimal(medianMs(collect));
      json.name("countMs").decimal(medianMs(count)).name("dimensions").object();
      for (int d = 0; d < dims.length; d++) {
        json.name(schema.facetDims.get(d)).decimal(medianMs(dims[d]));
      }
      return json.end().end().toString().getBytes(StandardCharsets.UTF_8);
    } finally {
      searchers.release(current);
    }
  }

  private static double medianMs(long[] nanos) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    return Math.round(sorted[sorted.length / 2] / 1_000.0) / 1_000.0;
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
    BooleanQuery.Builder base = new BooleanQuery.Builder().add(parsed.matchQuery, Occur.MUST);
    Query[] counts = new Query[request.filters.size()];
    boolean onlyDrilled = true;
    for (int i = 0; i < counts.length; i++) {
      FilterKind kind = request.kinds.get(i);
      Occur occur = kind == FilterKind.EXCLUDE ? Occur.MUST_NOT : Occur.FILTER;
      if (kind != FilterKind.DRILL_DOWN) {
        base.add(request.filters.get(i), occur);
        onlyDrilled = false;
      }
      counts[i] =
          new BooleanQuery.Builder()
              .add(parsed.matchQuery, Occur.MUST)
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
    boolean highlight = !parsed.matchAll && request.maxPassages > 0;
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
   * The facets of a search for all documents within chosen facet values ({@code drilled}) and
   * nothing else: what {@link DrillSideways} answers, without its cost. DrillSideways visits every
   * document the base query matches, here every document of the index (docs/performance.md), to
   * count each chosen dimension sideways. Here a chosen dimension is counted over the documents of
   * the other chosen dimensions (a search of their values alone), or over all documents when it is
   * the only one (counted once per reader); the other dimensions over the hits ({@code collected}).
   */
  private Facets browse(
      IndexSearcher searcher,
      SortedSetDocValuesReaderState state,
      Map<String, List<String>> drilled,
      FacetsCollector collected)
      throws IOException {
    Map<String, Facets> sideways = new HashMap<>();
    for (String dim : drilled.keySet()) {
      if (drilled.size() == 1) {
        sideways.put(dim, countAll(state));
        continue;
      }
      DrillDownQuery others = new DrillDownQuery(facetsConfig, MatchAllDocsQuery.INSTANCE);
      for (Map.Entry<String, List<String>> chosen : drilled.entrySet()) {
        if (!chosen.getKey().equals(dim)) {
          for (String value : chosen.getValue()) {
            others.add(chosen.getKey(), value);
          }
        }
      }
      sideways.put(
          dim, FacetCounting.count(state, searcher.search(others, new FacetsCollectorManager())));
    }
    return new MultiFacets(sideways, FacetCounting.count(state, collected));
  }

  /**
   * Writes {@code "counted": [n, ...]} (each counted query among the hits) and {@code "ranges":
   * [[n, ...], ...]} (each range facet's buckets among the hits: in one pass over {@code
   * collected}, the hits, when the search collected them, else a count per bucket). Once time has
   * run out ({@code late}, or while counting) nothing more is counted: the lists end there and it
   * returns true.
   */
  private boolean counts(
      Json json, IndexSearcher searcher, Prepared r, FacetsCollector collected, boolean late)
      throws IOException {
    boolean out = late;
    json.name("counted").array();
    for (int i = 0; i < r.counted.length && !out; i++) {
      Query both =
          new BooleanQuery.Builder()
              .add(r.drillDown, Occur.MUST)
              .add(r.counted[i], Occur.FILTER)
              .build();
      long found = countInTime(searcher, both);
      out = found < 0;
      if (!out) {
        json.number(found);
      }
    }
    json.end().name("ranges").array();
    for (int f = 0; f < r.rangeFields.length; f++) {
      json.array();
      long[] edges = r.rangeEdges[f];
      if (!out && collected != null) {
        LongRange[] ranges = new LongRange[edges.length - 1];
        for (int b = 0; b < ranges.length; b++) {
          ranges[b] = new LongRange(Integer.toString(b), edges[b], true, edges[b + 1], false);
        }
        try {
          FacetResult counted =
              new LongRangeFacetCounts(r.rangeFields[f], collected, ranges)
                  .getAllChildren(r.rangeFields[f]);
          for (LabelAndValue bucket : counted.labelValues) {
            json.number(bucket.value.longValue());
          }
        } catch (ExitableDirectoryReader.ExitingReaderException e) {
          out = true;
        }
      } else {
        for (int b = 0; b + 1 < edges.length && !out; b++) {
          Query bucket =
              new BooleanQuery.Builder()
                  .add(r.drillDown, Occur.MUST)
                  .add(
                      LongPoint.newRangeQuery(r.rangeFields[f], edges[b], edges[b + 1] - 1),
                      Occur.FILTER)
                  .build();
          long found = countInTime(searcher, bucket);
          out = found < 0;
          if (!out) {
            json.number(found);
          }
        }
      }
      json.end();
    }
    json.end();
    return out;
  }

  /** The hits of {@code query}, or -1 when time ran out while counting them. */
  private static long countInTime(IndexSearcher searcher, Query query) throws IOException {
    try {
      int found = searcher.count(query);
      return searcher.timedOut() ? -1 : found;
    } catch (ExitableDirectoryReader.ExitingReaderException e) {
      return -1;
    }
  }

  /**
   * The hits' JSON (see {@link PageResults#hits}) of documents that another engine found (the
   * SolrCloud backend), from their stored fields: {@code strings} and {@code numbers} are rows as
   * {@link SchemaWriter} takes them, written into an index in memory with the schema's own fields,
   * so that the hit fields read as the embedded index's do and the passages of {@code parsed} (none
   * when null, or for {@code maxPassages} 0) come from the same highlighter. The passages'
   * statistics are those of the page's documents, not of the whole collection.
   */
  public String storedPage(
      Parsed parsed,
      String keyField,
      String[] stringFields,
      String[] longFields,
      String[] strings,
      long[] numbers,
      float[] scores,
      int maxPassages,
      int maxChars)
      throws IOException {
    try (ByteBuffersDirectory directory = new ByteBuffersDirectory()) {
      IndexWriterConfig config =
          new IndexWriterConfig(analyzer).setRAMBufferSizeMB(256).setUseCompoundFile(false);
      config.setMergePolicy(NoMergePolicy.INSTANCE);
      boolean passages = parsed != null && !parsed.matchAll && maxPassages > 0;
      try (IndexWriter writer = new IndexWriter(directory, config)) {
        new SchemaWriter(writer, schema, facetsConfig, keyField, stringFields, longFields, null, 1)
            .forPassages(passages ? fieldsOf(parsed.highlightQuery) : Set.of())
            .add(strings, numbers);
      }
      try (DirectoryReader reader = DirectoryReader.open(directory)) {
        if (reader.leaves().size() != 1 || reader.maxDoc() != scores.length) {
          throw new IllegalStateException("a page's documents must be one segment in order");
        }
        int[] docIds = new int[scores.length];
        Arrays.setAll(docIds, i -> i);
        Json hits = new Json();
        PageResults.hits(
            hits,
            new IndexSearcher(reader),
            docIds,
            scores,
            schema,
            analyzer,
            matchFields,
            passages ? parsed.highlightQuery : null,
            passages ? parsed.units : List.of(),
            maxPassages,
            maxChars);
        return hits.toString();
      }
    }
  }

  /**
   * The matches of {@code parsed} in {@code text}, a document's stored content whose lemma fields
   * are {@code lemmaFields} (comma-separated), as its passages mark them: {@code [start, end …]},
   * at most {@code max} (see {@link Highlighting#matchesIn}); none for a query of every document.
   */
  public int[] matchesIn(Parsed parsed, String text, String lemmaFields, int max)
      throws IOException {
    if (parsed.matchAll || text.isEmpty()) {
      return new int[0];
    }
    return Highlighting.matchesIn(
        schema, analyzer, matchFields, parsed.highlightQuery, parsed.units, text, lemmaFields, max);
  }

  /** The fields that {@code query}'s terms and patterns are on. */
  private static Set<String> fieldsOf(Query query) {
    Set<String> fields = new HashSet<>();
    query.visit(
        new QueryVisitor() {
          @Override
          public boolean acceptField(String field) {
            fields.add(field);
            return true;
          }

          @Override
          public QueryVisitor getSubVisitor(Occur occur, Query parent) {
            return this;
          }
        });
    return fields;
  }

  /** The hits' JSON (see {@link PageResults#hits}) with passages of {@code highlight}. */
  private String page(
      IndexSearcher searcher,
      int[] docIds,
      float[] scores,
      Prepared r,
      Query highlight,
      List<Query> units)
      throws IOException {
    Json hits = new Json();
    PageResults.hits(
        hits,
        searcher,
        docIds,
        scores,
        schema,
        analyzer,
        matchFields,
        highlight,
        units,
        r.maxPassages,
        r.maxChars);
    return hits.toString();
  }

  /** The facet counts of all documents of {@code state}'s reader, counted once. */
  private Facets countAll(SortedSetDocValuesReaderState state) throws IOException {
    synchronized (allCounts) {
      Facets known = allCounts.get(state);
      if (known != null) {
        return known;
      }
    }
    Facets counted = new SortedSetDocValuesFacetCounts(state); // outside the lock: O(documents)
    synchronized (allCounts) {
      allCounts.put(state, counted);
    }
    return counted;
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
      facets = browse(searcher, state, r.drilled, hitsCollected);
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
      hits = page(searcher, docIds, scores, r, r.highlightQuery, r.units);
    } catch (ExitableDirectoryReader.ExitingReaderException e) {
      // out of time while highlighting: the hits with their leading passages, marked partial
      Deadline.clear();
      partial = true;
      hits = page(searcher, docIds, scores, r, null, List.of());
    }
    Json json = new Json().object().name("totalHits").number(total).name("counts").array();
    for (Query counted : r.filterCounts) {
      // a count cut short by the deadline is a lower bound: "partial" below says so
      json.number(searcher.count(counted));
    }
    partial |= searcher.timedOut();
    PageResults.facets(json.end().name("facets"), facets, schema.facetDims, r.facetLimit);
    if (r.counted.length > 0 || r.rangeFields.length > 0) {
      partial |= counts(json, searcher, r, hitsCollected, partial);
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
