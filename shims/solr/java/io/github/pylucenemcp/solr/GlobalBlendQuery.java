package io.github.pylucenemcp.solr;

import java.io.IOException;
import java.util.List;
import java.util.Objects;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.TermStates;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.TermStatistics;

/**
 * The best terms of a ranked pattern, chosen by the client over the whole collection (the first
 * terms in index order, as Lucene's top-terms rewrite keeps them), scored as Lucene's {@code
 * TopTermsBlendedFreqScoringRewrite} scores them on one index (a fuzzy word's terms with their
 * similarity as their boost): each term as if its document frequency were the largest of the terms'
 * and its total term frequency their sum. The statistics are the searcher's: on a node with exact
 * distributed statistics, the collection's, so that every shard blends the same figures.
 */
final class GlobalBlendQuery extends Query {
  private final String field;
  private final List<String> terms;
  private final List<Float> boosts;

  /** {@code boosts}: each term's (a fuzzy word's similarity), or empty for 1 each. */
  GlobalBlendQuery(String field, List<String> terms, List<Float> boosts) {
    this.field = field;
    this.terms = List.copyOf(terms);
    this.boosts = List.copyOf(boosts);
    if (!boosts.isEmpty() && boosts.size() != terms.size()) {
      throw new IllegalArgumentException("one boost a term, or none");
    }
  }

  @Override
  public Query rewrite(IndexSearcher searcher) throws IOException {
    int docFreq = 0;
    long totalTermFreq = 0;
    for (String text : terms) {
      TermStatistics stats = statistics(searcher, new Term(field, text));
      if (stats != null) {
        docFreq = (int) Math.max(docFreq, stats.docFreq());
        totalTermFreq += stats.totalTermFreq();
      }
    }
    BooleanQuery.Builder any = new BooleanQuery.Builder();
    for (int i = 0; i < terms.size(); i++) {
      Query one = new FixedStatsTermQuery(new Term(field, terms.get(i)), docFreq, totalTermFreq);
      float boost = boosts.isEmpty() ? 1f : boosts.get(i);
      any.add(boost == 1f ? one : new BoostQuery(one, boost), BooleanClause.Occur.SHOULD);
    }
    return any.build();
  }

  /** The term's statistics as the searcher gives them (none for a term it does not know). */
  private static TermStatistics statistics(IndexSearcher searcher, Term term) throws IOException {
    TermStates local = TermStates.build(searcher, term, true);
    try {
      return searcher.termStatistics(term, local.docFreq(), local.totalTermFreq());
    } catch (IllegalArgumentException e) {
      return null; // no document holds it here, and no other statistics are known
    }
  }

  @Override
  public void visit(QueryVisitor visitor) {
    if (visitor.acceptField(field)) {
      QueryVisitor any = visitor.getSubVisitor(BooleanClause.Occur.SHOULD, this);
      any.consumeTerms(this, terms.stream().map(t -> new Term(field, t)).toArray(Term[]::new));
    }
  }

  @Override
  public String toString(String defaultField) {
    return "blended(" + field + ":" + String.join(" ", terms) + ")";
  }

  @Override
  public boolean equals(Object other) {
    return sameClassAs(other)
        && field.equals(((GlobalBlendQuery) other).field)
        && terms.equals(((GlobalBlendQuery) other).terms)
        && boosts.equals(((GlobalBlendQuery) other).boosts);
  }

  @Override
  public int hashCode() {
    return Objects.hash(classHash(), field, terms, boosts);
  }
}
