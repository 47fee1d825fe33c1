package io.github.pylucenemcp.search;

import java.io.IOException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.lucene104.Lucene104Codec;
import org.apache.lucene.codecs.lucene104.Lucene104HnswScalarQuantizedVectorsFormat;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.KnnVectorValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.util.quantization.QuantizedByteVectorValues.ScalarEncoding;

/**
 * The vector search of a large index of chunks: candidates from the HNSW graph of scalar-quantized
 * vectors (a quarter of the bytes of full precision read per step), the filter as a pre-filter of
 * the walk, then each candidate rescored with its full-precision vector, so that a reported score
 * is exact; each key's (document's) best candidate kept. {@link ExactVectors} reads every vector
 * instead, which is cheaper below a size the product measures.
 */
public final class NearVectors {
  private NearVectors() {}

  /** The graph's links per node and the candidates its construction weighs: Lucene's defaults. */
  public static final int MAX_CONNECTIONS = 16;

  public static final int BEAM_WIDTH = 100;

  /**
   * The codec of a chunk index: its vector fields in HNSW graphs of 7-bit scalar-quantized vectors
   * (the full-precision vectors kept beside them for rescoring); segments written before with
   * another vector format keep it until they are merged.
   */
  public static Lucene104Codec quantizedCodec() {
    KnnVectorsFormat quantized =
        new Lucene104HnswScalarQuantizedVectorsFormat(
            ScalarEncoding.SEVEN_BIT, MAX_CONNECTIONS, BEAM_WIDTH);
    return new Lucene104Codec() {
      @Override
      public KnnVectorsFormat getKnnVectorsFormatForField(String field) {
        return quantized;
      }
    };
  }

  /**
   * For each value of the keyword {@code keyField} among the {@code candidates} chunks nearest to
   * {@code target} in the graph (within {@code filter}; null: all), its chunk whose full-precision
   * similarity is best, if that reaches {@code minScore}; best first (ties by document), at most
   * {@code max}. The total counts the keys found, a lower bound of those that reach {@code
   * minScore} in the whole index.
   */
  public static TopDocs bestByKey(
      IndexSearcher searcher,
      String field,
      String keyField,
      float[] target,
      float minScore,
      Query filter,
      int max,
      int candidates)
      throws IOException {
    TopDocs near =
        searcher.search(new KnnFloatVectorQuery(field, target, candidates, filter), candidates);
    ScoreDoc[] hits = near.scoreDocs.clone();
    Arrays.sort(hits, Comparator.comparingInt(h -> h.doc)); // each leaf's iterators go forward
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    BestPerKey best = new BestPerKey();
    int leafIndex = -1;
    FloatVectorValues values = null;
    KnnVectorValues.DocIndexIterator vectors = null;
    SortedDocValues keys = null;
    VectorSimilarityFunction similarity = null;
    LeafReaderContext leaf = null;
    for (ScoreDoc hit : hits) {
      int at = ReaderUtil.subIndex(hit.doc, leaves);
      if (at != leafIndex) {
        leafIndex = at;
        leaf = leaves.get(at);
        values = leaf.reader().getFloatVectorValues(field);
        vectors = values == null ? null : values.iterator();
        keys = DocValues.getSorted(leaf.reader(), keyField);
        similarity = leaf.reader().getFieldInfos().fieldInfo(field).getVectorSimilarityFunction();
      }
      int doc = hit.doc - leaf.docBase;
      if (vectors == null || vectors.advance(doc) != doc || !keys.advanceExact(doc)) {
        continue;
      }
      float score = similarity.compare(target, values.vectorValue(vectors.index()));
      if (score < minScore) {
        continue;
      }
      best.offer(keys.lookupOrd(keys.ordValue()), hit.doc, score);
    }
    return best.top(max, TotalHits.Relation.GREATER_THAN_OR_EQUAL_TO);
  }
}
