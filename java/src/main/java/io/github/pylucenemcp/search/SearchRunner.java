package io.github.pylucenemcp.search;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.facet.DrillDownQuery;
import org.apache.lucene.facet.DrillSideways;
import org.apache.lucene.facet.Facets;
import org.apache.lucene.facet.FacetsConfig;
import org.apache.lucene.facet.sortedset.SortedSetDocValuesReaderState;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TotalHits;

/**
 * Runs a prepared search in one JPype call: DrillSideways (or a plain search while no facet is
 * indexed), exact total, the page's stored fields and passages, facet counts, and the counts of
 * the active filters; everything comes back as one JSON string. Measured in bench/boundary.py:
 * every call across the boundary costs microseconds, a search makes dozens of them otherwise.
 */
public final class SearchRunner {
  private SearchRunner() {}

  public static String run(
      IndexSearcher searcher,
      FacetsConfig config,
      SortedSetDocValuesReaderState state,
      DrillDownQuery drillDown,
      Sort sort,
      int page,
      int pageSize,
      Query[] filterCounts,
      Set<String> storedFields,
      String pageOffsetsField,
      Analyzer analyzer,
      String contentField,
      Set<String> matchFields,
      Query highlightQuery,
      List<Query> units,
      int maxPassages,
      int maxChars,
      String[] facetDims,
      int facetTopN)
      throws IOException {
    int topN = page * pageSize;
    TopDocs top;
    Facets facets = null;
    if (state != null) {
      DrillSideways sideways = new DrillSideways(searcher, config, state);
      DrillSideways.DrillSidewaysResult result =
          sort == null
              ? sideways.search(drillDown, topN)
              : sideways.search(drillDown, null, null, topN, sort, true);
      top = result.hits;
      facets = result.facets;
    } else {
      top = sort == null ? searcher.search(drillDown, topN) : searcher.search(drillDown, topN, sort, true);
    }
    long total = top.totalHits.value();
    if (top.totalHits.relation() != TotalHits.Relation.EQUAL_TO) {
      total = searcher.count(drillDown);
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
      json.raw(i == 0 ? "" : ",").number((long) searcher.count(filterCounts[i]));
    }
    json.raw("],\"facets\":").raw(PageResults.facets(facets, facetDims, facetTopN));
    json.raw(",\"hits\":")
        .raw(
            PageResults.hits(
                searcher, docIds, storedFields, pageOffsetsField, analyzer, contentField,
                matchFields, highlightQuery, units, maxPassages, maxChars));
    return json.raw("}").toString();
  }
}
