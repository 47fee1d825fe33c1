import io.github.pylucenemcp.search.SearchContext;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.facet.DrillDownQuery;
import org.apache.lucene.facet.FacetsConfig;
import org.apache.lucene.facet.sortedset.SortedSetDocValuesReaderState;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;

/**
 * The work of one pylucene_mcp search, done in Java alone, through the same SearchContext:
 * parse twice (search and highlight), then run (DrillSideways with four facet dimensions,
 * passages and stored fields of the page, serialized). bench/boundary.py compares its time per search with the same
 * search driven from Python, where each step is a call across the JPype boundary.
 */
public final class SearchWork {
  private SearchWork() {}

  static final String[] DIMS = {"author", "language", "file_extension", "file_type"};
  static final Set<String> STORED =
      Set.of(
          "file_path", "file_name", "title", "author", "language", "file_extension", "file_type",
          "file_size", "created_date", "modified_date", "indexed_date", "page_offsets");

  public static long[] run(
      IndexSearcher searcher,
      IndexReader limitedReader,
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
    SearchContext context =
        new SearchContext(
            analyzer, config, "content", "content_reversed", "content_translit_de", textFields,
            keywordFields, longFields, dateFields, STORED, "page_offsets", DIMS, 10);
    for (int i = 0; i < iterations; i++) {
      long start = System.nanoTime();
      SearchContext.Parsed parsed = context.parse(queryText, true);
      Query base = new BooleanQuery.Builder().add(parsed.query, BooleanClause.Occur.MUST).build();
      DrillDownQuery drill = new DrillDownQuery(config, base);
      String page =
          context.run(
              searcher, limitedReader, state, drill, null, 1, 10, new Query[0],
              parsed.highlightQuery, parsed.units, 3, 200, 5000L);
      sink += page.length();
      nanos[i] = System.nanoTime() - start;
    }
    if (sink == 42) {
      System.err.println("unlikely");
    }
    return nanos;
  }
}
