package io.github.pylucenemcp.search;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import org.apache.lucene.facet.DrillDownQuery;
import org.apache.lucene.facet.Facets;
import org.apache.lucene.facet.FacetsCollector;
import org.apache.lucene.facet.FacetsCollectorManager;
import org.apache.lucene.facet.FacetsConfig;
import org.apache.lucene.facet.MultiFacets;
import org.apache.lucene.facet.sortedset.SortedSetDocValuesFacetCounts;
import org.apache.lucene.facet.sortedset.SortedSetDocValuesReaderState;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;

/**
 * The facets of a search that browses: all documents within chosen facet values and nothing else
 * (see {@link SearchContext}), with the counts of all documents of a reader kept once per reader.
 */
final class Browsing {
  private final FacetsConfig facetsConfig;
  private final Map<SortedSetDocValuesReaderState, Facets> allCounts = new WeakHashMap<>();

  Browsing(FacetsConfig facetsConfig) {
    this.facetsConfig = facetsConfig;
  }

  /**
   * The facets of a search for all documents within chosen facet values ({@code drilled}) and
   * nothing else: what {@link DrillSideways} answers, without its cost. DrillSideways visits every
   * document the base query matches, here every document of the index (docs/performance.md), to
   * count each chosen dimension sideways. Here a chosen dimension is counted over the documents of
   * the other chosen dimensions (a search of their values alone), or over all documents when it is
   * the only one (counted once per reader); the other dimensions over the hits ({@code collected}).
   */
  Facets facets(
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
}
