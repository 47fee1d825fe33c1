package io.github.pylucenemcp.solr;

import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.BytesRef;

/**
 * The documents whose key (an indexed keyword: the file path, or a chunk's document) is one of
 * {@code scores}'s, each scored by its value: a semantic search's documents with their similarity,
 * and the chunks of the documents that a search's filters allow (the pre-filter of its vector
 * search). One query whatever the number of keys, so no clause limit applies; each key is looked up
 * once per segment.
 */
final class PathScoresQuery extends Query {
  private final String field;
  private final Map<BytesRef, Float> scores;

  PathScoresQuery(String field, List<String> keys, List<Float> values) {
    if (!values.isEmpty() && values.size() != keys.size()) {
      throw new IllegalArgumentException("one score a key, or none");
    }
    this.field = field;
    Map<BytesRef, Float> map = new HashMap<>();
    for (int i = 0; i < keys.size(); i++) {
      map.put(new BytesRef(keys.get(i)), values.isEmpty() ? 1f : values.get(i));
    }
    this.scores = Map.copyOf(map);
  }

  @Override
  public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) {
    return new Weight(this) {
      @Override
      public Scorer scorer(LeafReaderContext context) throws IOException {
        Terms terms = context.reader().terms(field);
        if (terms == null || scores.isEmpty()) {
          return null;
        }
        TermsEnum keys = terms.iterator();
        int[] docs = new int[8];
        float[] values = new float[8];
        int count = 0;
        PostingsEnum postings = null;
        for (Map.Entry<BytesRef, Float> entry : scores.entrySet()) {
          if (!keys.seekExact(entry.getKey())) {
            continue;
          }
          postings = keys.postings(postings, PostingsEnum.NONE);
          for (int doc = postings.nextDoc();
              doc != DocIdSetIterator.NO_MORE_DOCS;
              doc = postings.nextDoc()) {
            if (count == docs.length) {
              docs = Arrays.copyOf(docs, count * 2);
              values = Arrays.copyOf(values, count * 2);
            }
            docs[count] = doc;
            values[count] = boost * entry.getValue();
            count++;
          }
        }
        return count == 0 ? null : new Listed(this, docs, values, count);
      }

      @Override
      public Explanation explain(LeafReaderContext context, int doc) throws IOException {
        Scorer scorer = scorer(context);
        if (scorer != null && scorer.iterator().advance(doc) == doc) {
          return Explanation.match(scorer.score(), "the score given to the document's key");
        }
        return Explanation.noMatch("its key is not among the query's");
      }

      @Override
      public boolean isCacheable(LeafReaderContext context) {
        return false; // a new set each search
      }
    };
  }

  /** The documents of one segment, in order, with their scores. */
  private static final class Listed extends Scorer {
    private final int[] docs;
    private final float[] values;
    private int at = -1;
    private final DocIdSetIterator iterator;

    Listed(Weight weight, int[] docs, float[] values, int count) {
      super(weight);
      Integer[] order = new Integer[count];
      for (int i = 0; i < count; i++) {
        order[i] = i;
      }
      Arrays.sort(order, (a, b) -> Integer.compare(docs[a], docs[b]));
      this.docs = new int[count];
      this.values = new float[count];
      for (int i = 0; i < count; i++) {
        this.docs[i] = docs[order[i]];
        this.values[i] = values[order[i]];
      }
      this.iterator =
          new DocIdSetIterator() {
            @Override
            public int docID() {
              return at < 0 ? -1 : at >= Listed.this.docs.length ? NO_MORE_DOCS : current();
            }

            @Override
            public int nextDoc() {
              at++;
              return docID();
            }

            @Override
            public int advance(int target) {
              if (at + 1 >= count) {
                at = count;
                return NO_MORE_DOCS;
              }
              int found = Arrays.binarySearch(Listed.this.docs, at + 1, count, target);
              at = found >= 0 ? found : -found - 1;
              return docID();
            }

            @Override
            public long cost() {
              return count;
            }
          };
    }

    private int current() {
      return docs[at];
    }

    @Override
    public int docID() {
      return iterator.docID();
    }

    @Override
    public DocIdSetIterator iterator() {
      return iterator;
    }

    @Override
    public float getMaxScore(int upTo) {
      return Float.MAX_VALUE;
    }

    @Override
    public float score() {
      return values[at];
    }
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
        && field.equals(((PathScoresQuery) other).field)
        && scores.equals(((PathScoresQuery) other).scores);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * classHash() + field.hashCode()) + scores.hashCode();
  }
}
