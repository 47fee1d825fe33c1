package io.github.pylucenemcp.search;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.facet.DrillSideways;
import org.apache.lucene.facet.Facets;
import org.apache.lucene.facet.FacetsCollector;
import org.apache.lucene.facet.FacetsConfig;
import org.apache.lucene.facet.MultiFacets;
import org.apache.lucene.facet.sortedset.ConcurrentSortedSetDocValuesFacetCounts;
import org.apache.lucene.facet.sortedset.SortedSetDocValuesFacetCounts;
import org.apache.lucene.facet.sortedset.SortedSetDocValuesReaderState;
import org.apache.lucene.search.IndexSearcher;

/**
 * The facet counts of {@link SearchContext}'s searches: of a set of hits (on the search threads
 * when there are many), and DrillSideways' counts of each dimension without its own filter.
 */
final class FacetCounting {
  private FacetCounting() {}

  /** Hits above which their facets are counted on the search threads, a segment a task. */
  static final int CONCURRENT_COUNT_HITS = 50_000;

  /**
   * The facet counts of {@code hits}: on the search threads when there are many (a term in most of
   * 1M documents, counting took a large part of the search on one thread: docs/performance.md).
   */
  static Facets count(SortedSetDocValuesReaderState state, FacetsCollector hits)
      throws IOException {
    long total = 0;
    for (FacetsCollector.MatchingDocs docs : hits.getMatchingDocs()) {
      total += docs.totalHits();
    }
    if (total < CONCURRENT_COUNT_HITS || hits.getMatchingDocs().size() < 2) {
      return new SortedSetDocValuesFacetCounts(state, hits);
    }
    try {
      return new ConcurrentSortedSetDocValuesFacetCounts(state, hits, Deadline.SERVICE);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while counting facets", e);
    }
  }

  /** DrillSideways whose facets are counted by {@link #count}; {@code hits}: what it found. */
  static final class CountingSideways extends DrillSideways {
    FacetsCollector hits;

    CountingSideways(
        IndexSearcher searcher, FacetsConfig config, SortedSetDocValuesReaderState state) {
      super(searcher, config, state);
    }

    @Override
    protected Facets buildFacetsResult(
        FacetsCollector drillDowns, FacetsCollector[] drillSideways, String[] dims)
        throws IOException {
      hits = drillDowns;
      Facets main = count(state, drillDowns);
      if (drillSideways == null || drillSideways.length == 0) {
        return main;
      }
      Map<String, Facets> byDim = new HashMap<>();
      for (int i = 0; i < drillSideways.length; i++) {
        byDim.put(dims[i], count(state, drillSideways[i]));
      }
      return new MultiFacets(byDim, main);
    }
  }
}
