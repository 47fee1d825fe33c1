package io.github.pylucenemcp.search;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.TwoPhaseIterator;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;

/**
 * The documents whose key (a sorted doc-values field: the file path) is one of {@code scores}'s,
 * each scored by its value: a semantic search's documents with their similarity, as a query that
 * the rest of a search (filters, facets, sorting, paging) takes as it takes a parsed one; and the
 * chunks of some documents, as the pre-filter of a vector search. Any number of keys: each is
 * looked up once per segment, then documents are matched by ordinal.
 */
public final class PathScores extends Query {
  private final String field;
  private final Map<BytesRef, Float> scores;

  public PathScores(String field, Map<BytesRef, Float> scores) {
    this.field = field;
    this.scores = Map.copyOf(scores);
  }

  /** {@code paths} with their {@code scores} (arrays of one length). */
  public static PathScores of(String field, String[] paths, float[] scores) {
    Map<BytesRef, Float> map = new HashMap<>();
    for (int i = 0; i < paths.length; i++) {
      map.put(new BytesRef(paths[i]), scores[i]);
    }
    return new PathScores(field, map);
  }

  /**
   * The keys of the documents of {@code searcher} that {@code query} matches, each with score 1:
   * what a vector search of another index (the chunks of these documents) is limited to.
   */
  public static PathScores matching(
      IndexSearcher searcher, Query query, String keyField, String chunkField) throws IOException {
    Map<BytesRef, Float> found = new HashMap<>();
    Weight weight =
        searcher.createWeight(searcher.rewrite(query), ScoreMode.COMPLETE_NO_SCORES, 1f);
    for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
      Scorer scorer = weight.scorer(leaf);
      SortedDocValues keys = leaf.reader().getSortedDocValues(keyField);
      if (scorer == null || keys == null) {
        continue;
      }
      Bits live = leaf.reader().getLiveDocs();
      DocIdSetIterator it = scorer.iterator();
      for (int doc = it.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = it.nextDoc()) {
        if ((live == null || live.get(doc)) && keys.advanceExact(doc)) {
          found.put(BytesRef.deepCopyOf(keys.lookupOrd(keys.ordValue())), 1f);
        }
      }
    }
    return new PathScores(chunkField, found);
  }

  /** How many keys. */
  public int size() {
    return scores.size();
  }

  @Override
  public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) {
    return new Weight(this) {
      @Override
      public ScorerSupplier scorerSupplier(LeafReaderContext context) throws IOException {
        SortedDocValues keys = context.reader().getSortedDocValues(field);
        if (keys == null || scores.isEmpty()) {
          return null;
        }
        float[] byOrd = new float[keys.getValueCount()];
        boolean[] chosen = new boolean[byOrd.length];
        boolean any = false;
        for (Map.Entry<BytesRef, Float> entry : scores.entrySet()) {
          int ord = keys.lookupTerm(entry.getKey());
          if (ord >= 0) {
            byOrd[ord] = boost * entry.getValue();
            chosen[ord] = true;
            any = true;
          }
        }
        if (!any) {
          return null;
        }
        TwoPhaseIterator matching =
            new TwoPhaseIterator(keys) {
              @Override
              public boolean matches() throws IOException {
                return chosen[keys.ordValue()];
              }

              @Override
              public float matchCost() {
                return 2f;
              }
            };
        Scorer scorer =
            new Scorer() {
              @Override
              public int docID() {
                return keys.docID();
              }

              @Override
              public DocIdSetIterator iterator() {
                return TwoPhaseIterator.asDocIdSetIterator(matching);
              }

              @Override
              public TwoPhaseIterator twoPhaseIterator() {
                return matching;
              }

              @Override
              public float getMaxScore(int upTo) {
                return Float.MAX_VALUE;
              }

              @Override
              public float score() throws IOException {
                return byOrd[keys.ordValue()];
              }
            };
        return new DefaultScorerSupplier(scorer);
      }

      @Override
      public Explanation explain(LeafReaderContext context, int doc) throws IOException {
        SortedDocValues keys = DocValues.getSorted(context.reader(), field);
        if (keys.advanceExact(doc)) {
          Float score = scores.get(keys.lookupOrd(keys.ordValue()));
          if (score != null) {
            return Explanation.match(score, "similarity of the document's best chunk");
          }
        }
        return Explanation.noMatch("not among the semantic search's documents");
      }

      @Override
      public boolean isCacheable(LeafReaderContext context) {
        return false; // a new set each search
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
    return field + ":paths(" + scores.size() + ")";
  }

  @Override
  public boolean equals(Object other) {
    return sameClassAs(other)
        && field.equals(((PathScores) other).field)
        && scores.equals(((PathScores) other).scores);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * classHash() + field.hashCode()) + scores.hashCode();
  }
}
