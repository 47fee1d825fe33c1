package io.github.pylucenemcp.queryparser;

import java.io.IOException;
import java.util.HashSet;
import java.util.Set;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.MultiTermQuery;
import org.apache.lucene.util.BytesRef;

/**
 * How many terms a pattern reaches, for the ranked rewrite of the embedded index ({@link
 * RankedPatterns#ALL_TERMS_RANKED}) and of the Solr plugin's: the same source, compiled against
 * each Lucene (it uses only what both have).
 */
public final class PatternTerms {
  private PatternTerms() {}

  /** Whether {@code query} expands to at most {@code max} distinct terms in {@code reader}. */
  public static boolean atMost(IndexReader reader, MultiTermQuery query, int max)
      throws IOException {
    Set<BytesRef> seen = new HashSet<>();
    for (LeafReaderContext leaf : reader.leaves()) {
      Terms terms = leaf.reader().terms(query.getField());
      if (terms == null) {
        continue;
      }
      TermsEnum each = query.getTermsEnum(terms);
      for (BytesRef term = each.next(); term != null; term = each.next()) {
        if (seen.add(BytesRef.deepCopyOf(term)) && seen.size() > max) {
          return false;
        }
      }
    }
    return true;
  }
}
