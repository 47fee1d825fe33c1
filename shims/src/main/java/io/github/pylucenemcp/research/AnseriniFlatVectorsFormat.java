package io.github.pylucenemcp.research;

import java.io.IOException;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.KnnVectorsReader;
import org.apache.lucene.codecs.KnnVectorsWriter;
import org.apache.lucene.codecs.hnsw.FlatVectorScorerUtil;
import org.apache.lucene.codecs.hnsw.FlatVectorsFormat;
import org.apache.lucene.codecs.lucene99.Lucene99FlatVectorsFormat;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.index.SegmentWriteState;

/**
 * The vectors of the flat dense indexes Anserini builds ({@code IndexFlatDenseVectors}, pyserini's
 * {@code LuceneFlatDenseSearcher}'s): Lucene's flat vector files (no graph) under a format name of
 * Anserini's own, which Lucene looks up by that name when it opens such an index. Read here as the
 * flat files they are; {@link DenseVectors} searches them by reading every vector.
 */
public final class AnseriniFlatVectorsFormat extends KnnVectorsFormat {
  /** The name Anserini's indexes record for their vector field. */
  public static final String NAME = "AnseriniLucene99FlatVectorFormat";

  private final FlatVectorsFormat flat =
      new Lucene99FlatVectorsFormat(FlatVectorScorerUtil.getLucene99FlatVectorsScorer());

  public AnseriniFlatVectorsFormat() {
    super(NAME);
  }

  @Override
  public KnnVectorsWriter fieldsWriter(SegmentWriteState state) throws IOException {
    return flat.fieldsWriter(state);
  }

  @Override
  public KnnVectorsReader fieldsReader(SegmentReadState state) throws IOException {
    return flat.fieldsReader(state);
  }

  @Override
  public int getMaxDimensions(String fieldName) {
    return 4096;
  }
}
