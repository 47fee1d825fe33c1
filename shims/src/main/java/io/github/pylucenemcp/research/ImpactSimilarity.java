package io.github.pylucenemcp.research;

import org.apache.lucene.index.FieldInvertState;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.TermStatistics;
import org.apache.lucene.search.similarities.Similarity;

/**
 * Learned sparse retrieval's scoring (SPLADE, uniCOIL, as Anserini's impact indexes score): a
 * document's weight for a term is its frequency in the field (the indexer writes each term as many
 * times as its quantized weight), a query's is the term query's boost, and a match scores their
 * product; the document's length counts for nothing (every norm is 1), nor does how rare the term
 * is.
 */
public final class ImpactSimilarity extends Similarity {
  @Override
  public long computeNorm(FieldInvertState state) {
    return 1;
  }

  @Override
  public SimScorer scorer(
      float boost, CollectionStatistics collectionStats, TermStatistics... termStats) {
    return new SimScorer() {
      @Override
      public float score(float freq, long norm) {
        return freq * boost;
      }

      @Override
      public Explanation explain(Explanation freq, long norm) {
        return Explanation.match(
            score(freq.getValue().floatValue(), norm),
            "impact: the document's weight (freq) times the query's (boost " + boost + ")",
            freq);
      }
    };
  }

  @Override
  public String toString() {
    return "Impact";
  }
}
