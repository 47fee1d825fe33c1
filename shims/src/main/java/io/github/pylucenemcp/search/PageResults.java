package io.github.pylucenemcp.search;

import io.github.pylucenemcp.highlight.Highlighting;
import io.github.pylucenemcp.highlight.PassageInfo;
import io.github.pylucenemcp.schema.FieldSchema;
import io.github.pylucenemcp.util.Parallel;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.facet.FacetResult;
import org.apache.lucene.facet.Facets;
import org.apache.lucene.facet.LabelAndValue;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;

/**
 * A page of hits (stored fields, score and passages) and facet counts written as the JSON the
 * search tool returns (camelCase keys, dates as ISO-8601, absent fields left out), so that a search
 * crosses the JPype boundary a handful of times instead of once per field and passage, and Python
 * has nothing to reshape.
 */
public final class PageResults {
  /** A page's documents, worked on by the search threads. */
  private static final Parallel PAGE = new Parallel(Deadline.EXECUTOR, Deadline.SEARCH_THREADS);

  private PageResults() {}

  /**
   * {@code [{"filePath": ..., <the schema's other hit fields>, "score": s, "passages": [...]},
   * ...]}: a multi-valued text field is joined with "; ", a date field is an ISO-8601 instant
   * (seconds), a score is rounded to 4 decimals; a passage's {@code page} is found in the stored
   * page offsets.
   */
  static void hits(
      Json json,
      IndexSearcher searcher,
      int[] docIds,
      float[] scores,
      FieldSchema schema,
      Analyzer analyzer,
      Set<String> matchFields,
      Query highlightQuery,
      List<Query> units,
      int maxPassages,
      int maxChars)
      throws IOException {
    // each hit's stored fields read once (a document's fields are decompressed together): the
    // hit fields, and the text that the passages come from when there are passages (decompressing
    // long texts was a third of a page's passages)
    Set<String> load = new HashSet<>(schema.hitFields.keySet());
    if (schema.pageOffsets != null) {
      load.add(schema.pageOffsets);
    }
    if (highlightQuery != null) {
      load.add(schema.content);
    }
    Document[] docs = new Document[docIds.length];
    Object[] passages = new Object[docIds.length];
    Highlighting page =
        highlightQuery == null
            ? null
            : new Highlighting(
                searcher,
                analyzer,
                schema,
                matchFields,
                highlightQuery,
                units,
                docIds,
                maxPassages,
                maxChars);
    // with passages, a document at a time on the page's threads: its fields read, its passages
    (page == null ? Parallel.SERIAL : PAGE)
        .each(
            docIds.length,
            i -> {
              // StoredFields is not thread-safe: one a document (a few clones of file handles)
              docs[i] = searcher.storedFields().document(docIds[i], load);
              if (page != null) {
                passages[i] = page.passages(i, docs[i].get(schema.content));
              }
            });
    json.array();
    for (int i = 0; i < docIds.length; i++) {
      Document doc = docs[i];
      json.object();
      for (Map.Entry<String, String> field : schema.hitFields.entrySet()) {
        IndexableField[] values = doc.getFields(field.getKey());
        if (values.length == 1
            && schema.flags.contains(field.getKey())
            && "true".equals(values[0].stringValue())) {
          json.name(field.getValue()).bool(true);
        } else if (values.length > 0) {
          value(json.name(field.getValue()), values, schema.dates.contains(field.getKey()));
        }
      }
      json.name("score").decimal(round(scores[i], 4)).name("passages");
      int[] pages = schema.pageOffsets == null ? null : pageOffsets(doc.get(schema.pageOffsets));
      passages(json, passages[i], pages);
      json.end();
    }
    json.end();
  }

  /** {@code value} rounded to {@code places} decimals as Python's {@code round} does it. */
  static double round(double value, int places) {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      return 0.0;
    }
    return new BigDecimal(value).setScale(places, RoundingMode.HALF_EVEN).doubleValue();
  }

  private static void value(Json json, IndexableField[] values, boolean date) {
    Number number = values[0].numericValue();
    if (number != null) {
      if (date) {
        json.instant(number.longValue());
      } else {
        json.number(number.longValue());
      }
      return;
    }
    if (values.length == 1) {
      json.string(values[0].stringValue());
      return;
    }
    StringBuilder joined = new StringBuilder();
    for (IndexableField value : values) {
      joined.append(joined.length() == 0 ? "" : "; ").append(value.stringValue());
    }
    json.string(joined.toString());
  }

  private static int[] pageOffsets(String stored) {
    if (stored == null || stored.isEmpty()) {
      return null;
    }
    return Arrays.stream(stored.split(",")).mapToInt(Integer::parseInt).toArray();
  }

  @SuppressWarnings("unchecked")
  private static void passages(Json json, Object value, int[] pages) {
    json.array();
    if (value != null) {
      // a sentence a document repeats (a PDF's running header, a signature) is one passage
      Set<String> seen = new HashSet<>();
      for (PassageInfo p : (List<PassageInfo>) value) {
        if (!seen.add(p.text.replace("<em>", "").replace("</em>", "").strip())) {
          continue;
        }
        json.object().name("text").string(p.text);
        json.name("score").decimal(Math.round(p.score * 1000) / 1000.0);
        json.name("matchedTerms").array();
        for (String term : p.matchedTerms) {
          json.string(term);
        }
        json.end().name("termCoverage").decimal(Math.round(p.termCoverage * 100) / 100.0);
        json.name("position").decimal(Math.round(p.position * 1000) / 1000.0);
        if (pages != null) {
          int index = Arrays.binarySearch(pages, p.startOffset);
          int page = index >= 0 ? index + 1 : -index - 1;
          json.name("page").number(Math.max(page, 1));
        }
        json.end();
      }
    }
    json.end();
  }

  /**
   * {@code {dim: [{"value": label, "count": n}, ...]}} with the {@code limit} most frequent values
   * of each dimension; a dimension no document has yet is empty.
   */
  static void facets(Json json, Facets facets, List<String> dims, int limit) throws IOException {
    json.object();
    for (String dim : dims) {
      json.name(dim).array();
      FacetResult result = null;
      if (facets != null) {
        try {
          result = facets.getTopChildren(limit, dim);
        } catch (IllegalArgumentException e) {
          result = null; // no document has this dimension yet
        }
      }
      if (result != null) {
        for (LabelAndValue value : result.labelValues) {
          json.object().name("value").string(value.label);
          json.name("count").number(value.value.longValue()).end();
        }
      }
      json.end();
    }
    json.end();
  }
}
