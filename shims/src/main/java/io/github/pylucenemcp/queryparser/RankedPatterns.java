package io.github.pylucenemcp.queryparser;

import java.io.IOException;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MultiTermQuery;
import org.apache.lucene.search.Query;

/**
 * How a pattern or fuzzy word of the query syntax is scored: ranked by its best terms where it has
 * enough letters to mean something (bench/relevance.py; docs/query.md), every term matched.
 */
public final class RankedPatterns {
  private RankedPatterns() {}

  /** A pattern with at least this many letters ranks its matches (bench/relevance.py). */
  public static final int LETTERS = 4;

  /** A ranked pattern is scored by its best terms, at most this many. */
  public static final int TERMS = 50;

  /**
   * Matches every term a pattern or fuzzy word expands to, and scores by the best {@link #TERMS} of
   * them as if they were ORed: Lucene's {@code TopTermsBlendedFreqScoringRewrite} (which alone
   * would drop the documents of every other term: {@code *vertrag*} found 38 of 84 documents) ORed
   * with a constant-score clause over all the terms weighted 0 (so totals, facets and counts are
   * exact). A document whose only matching terms are not among the best scores 0 for this clause,
   * below every document with a best term. A pattern of at most that many terms is the best terms'
   * rewrite alone.
   */
  public static final MultiTermQuery.RewriteMethod ALL_TERMS_RANKED = new AllTermsRanked();

  private static final class AllTermsRanked extends MultiTermQuery.RewriteMethod {
    private final MultiTermQuery.RewriteMethod best =
        new MultiTermQuery.TopTermsBlendedFreqScoringRewrite(TERMS);

    @Override
    public Query rewrite(IndexSearcher searcher, MultiTermQuery query) throws IOException {
      if (PatternTerms.atMost(searcher.getIndexReader(), query, TERMS)) {
        return best.rewrite(searcher, query); // the best terms are all of them: exact alone
      }
      Query every = MultiTermQuery.CONSTANT_SCORE_BLENDED_REWRITE.rewrite(searcher, query);
      // a disjunction, not a filter beside the scoring clause: the every-term clause scores 0,
      // so collecting the best hits skips the documents it alone matches, where a conjunction
      // scored every match (bench/pattern_cost.py; docs/performance.md)
      return new BooleanQuery.Builder()
          .add(best.rewrite(searcher, query), BooleanClause.Occur.SHOULD)
          .add(new BoostQuery(every, 0f), BooleanClause.Occur.SHOULD)
          .build();
    }

    @Override
    public String toString() {
      return "ALL_TERMS_RANKED(" + TERMS + ")";
    }
  }
}
