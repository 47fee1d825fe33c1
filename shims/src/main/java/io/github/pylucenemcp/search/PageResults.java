package io.github.pylucenemcp.search;

import io.github.pylucenemcp.highlight.Highlighting;
import io.github.pylucenemcp.highlight.PassageInfo;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.facet.FacetResult;
import org.apache.lucene.facet.Facets;
import org.apache.lucene.facet.LabelAndValue;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;

/**
 * A page of hits (stored fields and passages) and facet counts as one JSON string each, so that
 * a search crosses the JPype boundary a handful of times instead of once per field and passage.
 */
public final class PageResults {
  private PageResults() {}

  /**
   * {@code [{"doc": id, "fields": {name: value or [values]}, "passages": [...]}, ...]}; numbers
   * stay numbers; a passage's {@code page} is found in the stored {@code pageOffsetsField}.
   */
  public static String hits(
      IndexSearcher searcher,
      int[] docIds,
      Set<String> storedFields,
      String pageOffsetsField,
      Analyzer analyzer,
      String contentField,
      Set<String> matchFields,
      Query highlightQuery,
      List<Query> units,
      int maxPassages,
      int maxChars)
      throws IOException {
    Object[] passages =
        highlightQuery == null
            ? new Object[docIds.length]
            : Highlighting.passages(
                searcher, analyzer, contentField, matchFields, highlightQuery, units, docIds,
                maxPassages, maxChars);
    StoredFields stored = searcher.storedFields();
    Json json = new Json().raw("[");
    for (int i = 0; i < docIds.length; i++) {
      Document doc = stored.document(docIds[i], storedFields);
      json.raw(i == 0 ? "{\"doc\":" : ",{\"doc\":").number(docIds[i]).raw(",\"fields\":{");
      boolean first = true;
      for (String name : storedFields) {
        if (name.equals(pageOffsetsField)) {
          continue;
        }
        IndexableField[] values = doc.getFields(name);
        if (values.length == 0) {
          continue;
        }
        json.raw(first ? "" : ",").string(name).raw(":");
        first = false;
        if (values.length > 1) {
          json.raw("[");
          for (int v = 0; v < values.length; v++) {
            json.raw(v == 0 ? "" : ",");
            value(json, values[v]);
          }
          json.raw("]");
        } else {
          value(json, values[0]);
        }
      }
      json.raw("},\"passages\":");
      passages(json, passages[i], pageOffsets(doc.get(pageOffsetsField)));
      json.raw("}");
    }
    return json.raw("]").toString();
  }

  private static void value(Json json, IndexableField field) {
    Number number = field.numericValue();
    if (number != null) {
      json.number(number.longValue());
    } else {
      json.string(field.stringValue());
    }
  }

  private static int[] pageOffsets(String stored) {
    if (stored == null || stored.isEmpty()) {
      return null;
    }
    return Arrays.stream(stored.split(",")).mapToInt(Integer::parseInt).toArray();
  }

  @SuppressWarnings("unchecked")
  private static void passages(Json json, Object value, int[] pages) {
    json.raw("[");
    if (value != null) {
      boolean first = true;
      for (PassageInfo p : (List<PassageInfo>) value) {
        json.raw(first ? "{\"text\":" : ",{\"text\":").string(p.text);
        first = false;
        json.raw(",\"score\":").number(Math.round(p.score * 1000) / 1000.0);
        json.raw(",\"matchedTerms\":[");
        for (int t = 0; t < p.matchedTerms.length; t++) {
          json.raw(t == 0 ? "" : ",").string(p.matchedTerms[t]);
        }
        json.raw("],\"termCoverage\":").number(Math.round(p.termCoverage * 100) / 100.0);
        json.raw(",\"position\":").number(Math.round(p.position * 1000) / 1000.0);
        if (pages != null) {
          int index = Arrays.binarySearch(pages, p.startOffset);
          int page = index >= 0 ? index + 1 : -index - 1;
          json.raw(",\"page\":").number(Math.max(page, 1));
        }
        json.raw("}");
      }
    }
    json.raw("]");
  }

  /** {@code {dim: [[label, count], ...]}} for each dimension; an unindexed one is empty. */
  public static String facets(Facets facets, String[] dims, int topN) throws IOException {
    Json json = new Json().raw("{");
    for (int d = 0; d < dims.length; d++) {
      json.raw(d == 0 ? "" : ",").string(dims[d]).raw(":[");
      FacetResult result = null;
      if (facets != null) {
        try {
          result = facets.getTopChildren(topN, dims[d]);
        } catch (IllegalArgumentException e) {
          result = null; // no document has this dimension yet
        }
      }
      if (result != null) {
        LabelAndValue[] values = result.labelValues;
        for (int v = 0; v < values.length; v++) {
          json.raw(v == 0 ? "[" : ",[").string(values[v].label).raw(",");
          json.number(values[v].value.longValue()).raw("]");
        }
      }
      json.raw("]");
    }
    return json.raw("}").toString();
  }
}
