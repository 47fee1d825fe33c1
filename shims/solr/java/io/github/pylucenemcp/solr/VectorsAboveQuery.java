package io.github.pylucenemcp.solr;

import java.io.IOException;
import java.util.Arrays;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.TwoPhaseIterator;
import org.apache.lucene.search.Weight;

/**
 * The documents whose vector in a field scores at least a least score against a target (by the
 * field's similarity function), each scored by it: the exact answer of a similarity threshold, read
 * from the vectors in order (no graph, whose walk only approximates it). A two-phase query: a
 * filter beside it leads, and only the vectors of the documents it allows are compared (the
 * embedded index's {@code ExactVectors}, as a query of Solr's Lucene).
 */
final class VectorsAboveQuery extends Query {
  private final String field;
  private final float[] target;
  private final float minScore;

  VectorsAboveQuery(String field, float[] target, float minScore) {
    this.field = field;
    this.target = target.clone();
    this.minScore = minScore;
  }

  @Override
  public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) {
    return new Weight(this) {
      @Override
      public Scorer scorer(LeafReaderContext context) throws IOException {
        FloatVectorValues values = context.reader().getFloatVectorValues(field);
        if (values == null) {
          return null;
        }
        VectorSimilarityFunction similarity =
            context.reader().getFieldInfos().fieldInfo(field).getVectorSimilarityFunction();
        float[] current = new float[1];
        TwoPhaseIterator reaching =
            new TwoPhaseIterator(values) {
              @Override
              public boolean matches() throws IOException {
                current[0] = similarity.compare(target, values.vectorValue());
                return current[0] >= minScore;
              }

              @Override
              public float matchCost() {
                return target.length;
              }
            };
        return new Scorer(this) {
          @Override
          public int docID() {
            return values.docID();
          }

          @Override
          public DocIdSetIterator iterator() {
            return TwoPhaseIterator.asDocIdSetIterator(reaching);
          }

          @Override
          public TwoPhaseIterator twoPhaseIterator() {
            return reaching;
          }

          @Override
          public float getMaxScore(int upTo) {
            return Float.MAX_VALUE;
          }

          @Override
          public float score() {
            return boost * current[0];
          }
        };
      }

      @Override
      public Explanation explain(LeafReaderContext context, int doc) throws IOException {
        Scorer scorer = scorer(context);
        if (scorer != null && scorer.iterator().advance(doc) == doc) {
          return Explanation.match(scorer.score(), "the similarity of the document's vector");
        }
        return Explanation.noMatch("its vector is less similar than " + minScore);
      }

      @Override
      public boolean isCacheable(LeafReaderContext context) {
        return false; // a new target each search
      }
    };
  }

  @Override
  public void visit(QueryVisitor visitor) {
    if (visitor.acceptField(field)) {
      visitor.visitLeaf(this);
    }
  }

  @Override
  public String toString(String defaultField) {
    return field + ":vectorsAbove(" + minScore + ")";
  }

  @Override
  public boolean equals(Object other) {
    return sameClassAs(other)
        && field.equals(((VectorsAboveQuery) other).field)
        && Arrays.equals(target, ((VectorsAboveQuery) other).target)
        && minScore == ((VectorsAboveQuery) other).minScore;
  }

  @Override
  public int hashCode() {
    return 31 * (31 * (31 * classHash() + field.hashCode()) + Arrays.hashCode(target))
        + Float.hashCode(minScore);
  }
}
