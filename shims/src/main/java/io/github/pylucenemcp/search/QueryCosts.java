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
 * What one part of a query costs, for profileQuery, in one call per part: Lucene's estimate of the
 * documents it visits ({@link ScorerSupplier#cost()} summed over the segments) and, for a wildcard,
 * prefix, regex or fuzzy term, how many words of the index it expands to.
 */
public final class QueryCosts {
  private QueryCosts() {}

  /**
   * {@code {"cost": documents, "ms": time to estimate}}, with {@code "terms": n, "complete":
   * whether all were counted, "sample": [the first few]} for a multi-term query; the expansion is
   * counted up to {@code maxTerms} words.
   */
  public static byte[] of(IndexSearcher searcher, Query query, int maxTerms, int sample)
      throws IOException {
    long started = System.nanoTime();
    Json json = new Json().object();
    if (query instanceof MultiTermQuery multi) {
      Terms terms = MultiTerms.getTerms(searcher.getIndexReader(), multi.getField());
      long count = 0;
      json.name("sample").array();
      boolean complete = true;
      if (terms != null) {
        TermsEnum expansion = multi.getTermsEnum(terms);
        BytesRef term = expansion.next();
        for (; term != null && count < maxTerms; term = expansion.next()) {
          if (count < sample) {
            json.string(term.utf8ToString());
          }
          count++;
        }
        complete = term == null;
      }
      json.end().name("complete").bool(complete).name("terms").number(count);
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
    json.name("cost").number(cost);
    json.name("ms").decimal(Math.round((System.nanoTime() - started) / 10_000.0) / 100.0);
    return json.end().toString().getBytes(StandardCharsets.UTF_8);
  }
}
