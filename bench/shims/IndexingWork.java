import io.github.pylucenemcp.index.SchemaWriter;
import java.util.Arrays;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;

/**
 * Indexing done in Java alone, for bench/indexing.py: the rows that Python built for a batch
 * written through the product's own SchemaWriter (the same fields, analyzers and threads), and the
 * cost of each field's analysis chain over the same texts.
 */
public final class IndexingWork {
  private IndexingWork() {}

  /** Writes {@code rows} rows in batches of {@code batch}; returns the nanoseconds it took. */
  public static long write(
      SchemaWriter writer, String[] strings, long[] numbers, int rows, int batch) throws Exception {
    int perString = strings.length / rows;
    int perLong = numbers.length / rows;
    long start = System.nanoTime();
    for (int from = 0; from < rows; from += batch) {
      int to = Math.min(rows, from + batch);
      writer.add(
          Arrays.copyOfRange(strings, from * perString, to * perString),
          Arrays.copyOfRange(numbers, from * perLong, to * perLong));
    }
    return System.nanoTime() - start;
  }

  /** The nanoseconds each of {@code fields}' analysis takes over {@code texts}, and tokens. */
  public static long[] analysis(Analyzer analyzer, String[] fields, String[] texts)
      throws Exception {
    long[] out = new long[fields.length * 2];
    for (int f = 0; f < fields.length; f++) {
      long tokens = 0;
      long start = System.nanoTime();
      for (String text : texts) {
        try (TokenStream stream = analyzer.tokenStream(fields[f], text)) {
          stream.reset();
          while (stream.incrementToken()) {
            tokens++;
          }
          stream.end();
        }
      }
      out[2 * f] = System.nanoTime() - start;
      out[2 * f + 1] = tokens;
    }
    return out;
  }
}
