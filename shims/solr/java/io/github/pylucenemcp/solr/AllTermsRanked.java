package io.github.pylucenemcp.solr;

import io.github.pylucenemcp.queryparser.PatternTerms;
import java.io.IOException;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.MultiTermQuery;
import org.apache.lucene.search.Query;

/**
 * The product's ranked pattern rewrite ({@code RankedPatterns.ALL_TERMS_RANKED}) for the Lucene
 * that Solr carries: every term a pattern expands to matches, and the best {@link #TERMS} of them
 * score as if ORed; a pattern of at most that many terms is the best terms' rewrite alone.
 */
final class AllTermsRanked extends MultiTermQuery.RewriteMethod {
  /** As {@code RankedPatterns.TERMS}. */
  static final int TERMS = 50;

  static final AllTermsRanked INSTANCE = new AllTermsRanked();

  private final MultiTermQuery.RewriteMethod best =
      new MultiTermQuery.TopTermsBlendedFreqScoringRewrite(TERMS);

  private AllTermsRanked() {}

  @Override
  public Query rewrite(IndexReader reader, MultiTermQuery query) throws IOException {
    if (PatternTerms.atMost(reader, query, TERMS)) {
      return best.rewrite(reader, query);
    }
    Query every = MultiTermQuery.CONSTANT_SCORE_BLENDED_REWRITE.rewrite(reader, query);
    return new BooleanQuery.Builder()
        .add(best.rewrite(reader, query), BooleanClause.Occur.SHOULD)
        .add(new BoostQuery(every, 0f), BooleanClause.Occur.SHOULD)
        .build();
  }

  @Override
  public String toString() {
    return "ALL_TERMS_RANKED(" + TERMS + ")";
  }
}
