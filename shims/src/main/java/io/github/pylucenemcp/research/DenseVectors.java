package io.github.pylucenemcp.research;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.lucene104.Lucene104Codec;
import org.apache.lucene.codecs.lucene104.Lucene104HnswScalarQuantizedVectorsFormat;
import org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsFormat;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.KnnVectorValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.quantization.QuantizedByteVectorValues.ScalarEncoding;

/**
 * Dense retrieval over pre-encoded vectors, as Anserini's dense indexes hold them: each document an
 * {@code id} (stored, sorted doc values: the tie order) and a {@code vector} compared by dot
 * product (Lucene's score {@code (1 + dot) / 2}). Searched through the HNSW graph (the best {@code
 * k} of the {@code efSearch} nearest the walk finds) or exactly, by reading every vector.
 */
public final class DenseVectors {
  public static final String ID = "id";
  public static final String VECTOR = "vector";

  private final Retrieval retrieval;
  private final String field;

  /** Searches the vectors of {@code field} in {@code reader}, ties by {@code idField}. */
  public DenseVectors(IndexReader reader, String field, String idField) {
    this.retrieval = new Retrieval(reader, new BM25Similarity(), null, field, idField);
    this.field = field;
  }

  /**
   * A writer of a new dense index in {@code folder}: its vectors in HNSW graphs of {@code
   * maxConnections} links a node built with a beam of {@code beamWidth}; {@code int8}: the graph
   * over 8-bit scalar-quantized vectors (the full-precision ones kept beside them).
   */
  public static IndexWriter writer(Path folder, int maxConnections, int beamWidth, boolean int8)
      throws IOException {
    KnnVectorsFormat format =
        int8
            ? new Lucene104HnswScalarQuantizedVectorsFormat(
                ScalarEncoding.UNSIGNED_BYTE, maxConnections, beamWidth)
            : new Lucene99HnswVectorsFormat(maxConnections, beamWidth);
    IndexWriterConfig config = new IndexWriterConfig();
    config.setOpenMode(IndexWriterConfig.OpenMode.CREATE);
    config.setCodec(
        new Lucene104Codec() {
          @Override
          public KnnVectorsFormat getKnnVectorsFormatForField(String name) {
            return format;
          }
        });
    config.setRAMBufferSizeMB(256);
    return new IndexWriter(FSDirectory.open(folder), config);
  }

  /** Adds the documents {@code ids}, their vectors one after the other in {@code vectors}. */
  public static void add(IndexWriter writer, String[] ids, float[] vectors) throws IOException {
    int dimension = ids.length == 0 ? 0 : vectors.length / ids.length;
    if (ids.length > 0 && dimension * ids.length != vectors.length) {
      throw new IllegalArgumentException("each document needs a vector of the same dimension");
    }
    for (int i = 0; i < ids.length; i++) {
      Document doc = new Document();
      doc.add(new StringField(ID, ids[i], Field.Store.YES));
      doc.add(new SortedDocValuesField(ID, new BytesRef(ids[i])));
      float[] vector = Arrays.copyOfRange(vectors, i * dimension, (i + 1) * dimension);
      doc.add(new KnnFloatVectorField(VECTOR, vector, VectorSimilarityFunction.DOT_PRODUCT));
      writer.addDocument(doc);
    }
  }

  /**
   * The {@code k} nearest documents of each target (their vectors one after the other in {@code
   * targets}, {@code dimension} floats each), on {@code threads} threads: through the graph with
   * {@code efSearch} candidates, or (0) exactly; best first, ties by id. UTF-8 JSON as {@link
   * Retrieval#batch} writes.
   */
  public byte[] nearest(float[] targets, int dimension, int k, int efSearch, int threads)
      throws IOException {
    return retrieval.each(
        targets.length / dimension,
        threads,
        i -> {
          float[] target = Arrays.copyOfRange(targets, i * dimension, (i + 1) * dimension);
          return efSearch > 0
              ? retrieval.top(new KnnFloatVectorQuery(field, target, efSearch), k)
              : exact(target, k);
        });
  }

  /**
   * The {@code k} best of every vector, each scored by its field's similarity function, equal
   * scores by id: a first read finds the {@code k}-th best score, a second keeps every document
   * that reaches it (the ties at the cut among them), which are then ordered by score and id.
   */
  private Retrieval.Hits exact(float[] target, int k) throws IOException {
    PriorityQueue<Float> kth = new PriorityQueue<>();
    scan(
        target,
        (doc, score) -> {
          if (kth.size() < k) {
            kth.add(score);
          } else if (score > kth.peek()) {
            kth.poll();
            kth.add(score);
          }
        });
    float least = kth.isEmpty() ? Float.POSITIVE_INFINITY : kth.peek();
    List<ScoreDoc> kept = new ArrayList<>();
    scan(
        target,
        (doc, score) -> {
          if (score >= least) {
            kept.add(new ScoreDoc(doc, score));
          }
        });
    int[] docs = kept.stream().mapToInt(d -> d.doc).toArray();
    String[] ids = retrieval.ids(docs);
    Integer[] order = new Integer[docs.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(
        order,
        Comparator.<Integer>comparingDouble(i -> -kept.get(i).score).thenComparing(i -> ids[i]));
    int size = Math.min(k, order.length);
    int[] sortedDocs = new int[size];
    float[] scores = new float[size];
    for (int i = 0; i < size; i++) {
      sortedDocs[i] = kept.get(order[i]).doc;
      scores[i] = kept.get(order[i]).score;
    }
    return new Retrieval.Hits(sortedDocs, scores);
  }

  /** What {@link #scan} hands each live document: its (top-level) id and its score. */
  @FunctionalInterface
  private interface Scored {
    void accept(int doc, float score);
  }

  /** Each live document with a vector in {@link #field}, scored against {@code target}. */
  private void scan(float[] target, Scored each) throws IOException {
    for (LeafReaderContext leaf : retrieval.reader().leaves()) {
      FloatVectorValues values = leaf.reader().getFloatVectorValues(field);
      FieldInfo info = leaf.reader().getFieldInfos().fieldInfo(field);
      if (values == null || info == null) {
        continue;
      }
      VectorSimilarityFunction similarity = info.getVectorSimilarityFunction();
      Bits live = leaf.reader().getLiveDocs();
      KnnVectorValues.DocIndexIterator docs = values.iterator();
      for (int doc = docs.nextDoc();
          doc != KnnVectorValues.DocIndexIterator.NO_MORE_DOCS;
          doc = docs.nextDoc()) {
        if (live == null || live.get(doc)) {
          each.accept(
              leaf.docBase + doc, similarity.compare(target, values.vectorValue(docs.index())));
        }
      }
    }
  }
}
