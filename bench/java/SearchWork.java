import io.github.pylucenemcp.queryparser.ContentQueryParser;
import io.github.pylucenemcp.search.SearchRunner;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.facet.DrillDownQuery;
import org.apache.lucene.facet.FacetsConfig;
import org.apache.lucene.facet.sortedset.SortedSetDocValuesReaderState;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;

/**
 * The work of one pylucene_mcp search, done in Java alone: parse twice (search and highlight),
 * then the same SearchRunner call (DrillSideways with four facet dimensions, passages and stored
 * fields of the page, serialized). bench/boundary.py compares its time per search with the same
 * search driven from Python, where each step is a call across the JPype boundary.
 */
public final class SearchWork {
  private SearchWork() {}

  static final String[] DIMS = {"author", "language", "file_extension", "file_type"};
  static final Set<String> STORED =
      Set.of(
          "file_path", "file_name", "title", "author", "language", "file_extension", "file_type",
          "file_size", "created_date", "modified_date", "indexed_date", "page_offsets");
  static final Set<String> MATCH = Set.of("content", "content_translit_de");

  public static long[] run(
      IndexSearcher searcher,
      FacetsConfig config,
      SortedSetDocValuesReaderState state,
      Analyzer analyzer,
      Set<String> textFields,
      Set<String> keywordFields,
      Set<String> longFields,
      Set<String> dateFields,
      String queryText,
      int iterations)
      throws Exception {
    long[] nanos = new long[iterations];
    long sink = 0;
    for (int i = 0; i < iterations; i++) {
      long start = System.nanoTime();
      ContentQueryParser parser = parser(analyzer, textFields, keywordFields, longFields, dateFields, false);
      Query query = parser.parse(queryText);
      ContentQueryParser highlighter = parser(analyzer, textFields, keywordFields, longFields, dateFields, true);
      Query highlightQuery = highlighter.parse(queryText);
      Query base = new BooleanQuery.Builder().add(query, BooleanClause.Occur.MUST).build();
      DrillDownQuery drill = new DrillDownQuery(config, base);
      String page =
          SearchRunner.run(
              searcher, config, state, drill, null, 1, 10, new Query[0], STORED, "page_offsets",
              analyzer, "content", MATCH, highlightQuery, highlighter.getUnits(), 3, 200, DIMS, 10);
      sink += page.length();
      nanos[i] = System.nanoTime() - start;
    }
    if (sink == 42) {
      System.err.println("unlikely");
    }
    return nanos;
  }

  private static ContentQueryParser parser(
      Analyzer analyzer, Set<String> text, Set<String> keyword, Set<String> longs, Set<String> dates,
      boolean highlight) {
    ContentQueryParser parser =
        new ContentQueryParser(
            "content", "content_reversed", "content_translit_de", text, keyword, longs, dates,
            analyzer, highlight);
    parser.setDefaultOperator(QueryParser.Operator.AND);
    return parser;
  }
}
