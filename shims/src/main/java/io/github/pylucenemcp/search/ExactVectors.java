package io.github.pylucenemcp.search;

import java.io.IOException;
import java.util.List;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.KnnVectorValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.ConjunctionUtils;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.Bits;

/**
 * Every vector of a field whose similarity to a target reaches a least score, found by reading each
 * of them in order (no graph): the exact answer of a similarity threshold, which a walk of the HNSW
 * graph only approximates unless it visits every node, and which a sequential read of the vectors
 * gives at less cost than such a walk. A semantic search's chunks, each document's best.
 */
public final class ExactVectors {
  private ExactVectors() {}

  /**
   * For each value of the keyword {@code keyField} (a chunk's document), its document whose vector
   * in {@code field} scores best against {@code target} (by the field's similarity function) if
   * that reaches {@code minScore}, among the documents {@code filter} matches (null: all); best
   * first (ties by document), at most {@code max}; the total is the number of keys that reach it.
   */
  public static TopDocs bestByKey(
      IndexSearcher searcher,
      String field,
      String keyField,
      float[] target,
      float minScore,
      Query filter,
      int max)
      throws IOException {
    Weight allowed =
        filter == null
            ? null
            : searcher.createWeight(searcher.rewrite(filter), ScoreMode.COMPLETE_NO_SCORES, 1f);
    BestPerKey best = new BestPerKey();
    for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
      FloatVectorValues values = leaf.reader().getFloatVectorValues(field);
      if (values == null) {
        continue;
      }
      VectorSimilarityFunction similarity =
          leaf.reader().getFieldInfos().fieldInfo(field).getVectorSimilarityFunction();
      KnnVectorValues.DocIndexIterator vectors = values.iterator();
      DocIdSetIterator docs = vectors;
      if (allowed != null) {
        Scorer scorer = allowed.scorer(leaf);
        if (scorer == null) {
          continue;
        }
        docs = ConjunctionUtils.intersectIterators(List.of(scorer.iterator(), vectors));
      }
      Bits live = leaf.reader().getLiveDocs();
      SortedDocValues keys = DocValues.getSorted(leaf.reader(), keyField);
      for (int doc = docs.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = docs.nextDoc()) {
        if (live != null && !live.get(doc)) {
          continue;
        }
        float score = similarity.compare(target, values.vectorValue(vectors.index()));
        if (score >= minScore && keys.advanceExact(doc)) {
          best.offer(keys.lookupOrd(keys.ordValue()), leaf.docBase + doc, score);
        }
      }
    }
    return best.top(max, TotalHits.Relation.EQUAL_TO);
  }
}
