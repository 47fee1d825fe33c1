package io.github.pylucenemcp.search;

import java.io.IOException;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.facet.FacetResult;
import org.apache.lucene.facet.FacetsCollector;
import org.apache.lucene.facet.LabelAndValue;
import org.apache.lucene.facet.range.LongRange;
import org.apache.lucene.facet.range.LongRangeFacetCounts;
import org.apache.lucene.index.ExitableDirectoryReader;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;

/**
 * The counts a search makes among its hits, within its deadline: its counted queries and its range
 * facets' buckets.
 */
final class HitCounts {
  private HitCounts() {}

  /**
   * Writes {@code "counted": [n, ...]} (each counted query among the hits) and {@code "ranges":
   * [[n, ...], ...]} (each range facet's buckets among the hits: in one pass over {@code
   * collected}, the hits, when the search collected them, else a count per bucket). Once time has
   * run out ({@code late}, or while counting) nothing more is counted: the lists end there and it
   * returns true.
   */
  static boolean write(
      Json json,
      IndexSearcher searcher,
      SearchContext.Prepared r,
      FacetsCollector collected,
      boolean late)
      throws IOException {
    boolean out = late;
    json.name("counted").array();
    for (int i = 0; i < r.counted().length && !out; i++) {
      Query both =
          new BooleanQuery.Builder()
              .add(r.drillDown(), Occur.MUST)
              .add(r.counted()[i], Occur.FILTER)
              .build();
      long found = countInTime(searcher, both);
      out = found < 0;
      if (!out) {
        json.number(found);
      }
    }
    json.end().name("ranges").array();
    for (int f = 0; f < r.rangeFields().length; f++) {
      json.array();
      long[] edges = r.rangeEdges()[f];
      if (!out && collected != null) {
        LongRange[] ranges = new LongRange[edges.length - 1];
        for (int b = 0; b < ranges.length; b++) {
          ranges[b] = new LongRange(Integer.toString(b), edges[b], true, edges[b + 1], false);
        }
        try {
          FacetResult counted =
              new LongRangeFacetCounts(r.rangeFields()[f], collected, ranges)
                  .getAllChildren(r.rangeFields()[f]);
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
                  .add(r.drillDown(), Occur.MUST)
                  .add(
                      LongPoint.newRangeQuery(r.rangeFields()[f], edges[b], edges[b + 1] - 1),
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
}
