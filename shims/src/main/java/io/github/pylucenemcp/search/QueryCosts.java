package io.github.pylucenemcp.search;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MultiTermQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.BytesRef;

/**
 * What one part of a query costs, for profileQuery, in one call per part: Lucene's estimate of
 * the documents it visits ({@link ScorerSupplier#cost()} summed over the segments) and, for a
 * wildcard, prefix, regex or fuzzy term, how many words of the index it expands to.
 */
public final class QueryCosts {
  private QueryCosts() {}

  /**
   * {@code {"cost": documents, "ms": time to estimate}}, with {@code "terms": n, "complete":
   * whether all were counted, "sample": [the first few]} for a multi-term query; the expansion
   * is counted up to {@code maxTerms} words.
   */
  public static byte[] of(IndexSearcher searcher, Query query, int maxTerms, int sample)
      throws IOException {
    long started = System.nanoTime();
    Json json = new Json().raw("{");
    if (query instanceof MultiTermQuery multi) {
      Terms terms = MultiTerms.getTerms(searcher.getIndexReader(), multi.getField());
      long count = 0;
      json.raw("\"sample\":[");
      if (terms != null) {
        TermsEnum expansion = multi.getTermsEnum(terms);
        BytesRef term = expansion.next();
        for (; term != null && count < maxTerms; term = expansion.next()) {
          if (count < sample) {
            json.raw(count == 0 ? "" : ",").string(term.utf8ToString());
          }
          count++;
        }
        json.raw("],\"complete\":").raw(term == null ? "true" : "false");
      } else {
        json.raw("],\"complete\":true");
      }
      json.raw(",\"terms\":").number(count).raw(",");
    }
    Weight weight =
        searcher.createWeight(searcher.rewrite(query), ScoreMode.COMPLETE_NO_SCORES, 1f);
    long cost = 0;
    for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
      ScorerSupplier supplier = weight.scorerSupplier(leaf);
      if (supplier != null) {
        cost += supplier.cost();
      }
    }
    json.raw("\"cost\":").number(cost);
    json.raw(",\"ms\":").decimal(Math.round((System.nanoTime() - started) / 10_000.0) / 100.0);
    return json.raw("}").toString().getBytes(StandardCharsets.UTF_8);
  }
}
