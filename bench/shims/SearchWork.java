import io.github.pylucenemcp.search.SearchContext;
import io.github.pylucenemcp.search.SearchRequest;
import org.apache.lucene.search.SearcherManager;

/**
 * The work of one pylucene_mcp search done in Java alone, through the product's own SearchContext
 * (its schema object, analyzer and facets): parse twice (search and highlight), DrillSideways with
 * the schema's four facet dimensions, the page's stored fields and passages written as the search
 * tool's JSON. bench/boundary.py compares its time per search with the same search through the
 * public Python API.
 */
public final class SearchWork {
  private SearchWork() {}

  public static long[] run(
      SearchContext context, SearcherManager searchers, String queryText, int iterations)
      throws Exception {
    long[] nanos = new long[iterations];
    long sink = 0;
    for (int i = 0; i < iterations; i++) {
      long start = System.nanoTime();
      byte[] page =
          context.run(
              searchers,
              new SearchRequest(queryText)
                  .operator(true, true)
                  .sort(null)
                  .page(1, 10, null)
                  .passages(3, 200)
                  .facetLimit(10)
                  .timeoutMs(5000L));
      sink += page.length;
      nanos[i] = System.nanoTime() - start;
    }
    if (sink == 42) {
      System.err.println("unlikely");
    }
    return nanos;
  }
}
