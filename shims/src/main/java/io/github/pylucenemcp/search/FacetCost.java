package io.github.pylucenemcp.search;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.facet.Facets;
import org.apache.lucene.facet.FacetsCollector;
import org.apache.lucene.facet.FacetsCollectorManager;
import org.apache.lucene.facet.sortedset.SortedSetDocValuesReaderState;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;

/** What faceting adds to a search, measured for profileQuery. */
final class FacetCost {
  private FacetCost() {}

  /**
   * What faceting adds to a search of {@code query}, for profileQuery: the median time of {@code
   * repeats} runs of the search for 10 hits alone, with the facets collected, of counting the
   * collected facets, and of reading each dimension's top values: {@code {"searchMs", "collectMs",
   * "countMs", "dimensions": {dim: ms}}}.
   */
  static byte[] measure(
      IndexSearcher searcher,
      SortedSetDocValuesReaderState state,
      Query query,
      int repeats,
      List<String> dimensions)
      throws IOException {
    long[] search = new long[repeats];
    long[] collect = new long[repeats];
    long[] count = new long[repeats];
    long[][] dims = new long[dimensions.size()][repeats];
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
          facets.getTopChildren(10, dimensions.get(d));
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
      json.name(dimensions.get(d)).decimal(medianMs(dims[d]));
    }
    return json.end().end().toString().getBytes(StandardCharsets.UTF_8);
  }

  private static double medianMs(long[] nanos) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    return Math.round(sorted[sorted.length / 2] / 1_000.0) / 1_000.0;
  }
}
