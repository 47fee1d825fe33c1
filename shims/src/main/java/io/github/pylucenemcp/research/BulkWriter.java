package io.github.pylucenemcp.research;

import io.github.pylucenemcp.util.Parallel;
import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.FieldType;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.util.BytesRef;

/**
 * Adds documents of a research index many at a time: Python hands over a batch as one flat array of
 * values (row after row, one value per field, null where a document has none), so that indexing
 * crosses the JPype boundary once per batch instead of several times per field.
 *
 * <p>A field is {@code text} (analyzed; term vectors on request), {@code keyword} (one exact token;
 * sorted doc values on request) or {@code long} (a {@link LongPoint} for ranges; numeric doc values
 * on request); any of them may be stored.
 */
public final class BulkWriter {
  private final IndexWriter writer;
  private final String[] names;
  private final String[] kinds;
  private final boolean[] stored;
  private final boolean[] docValues;
  private final FieldType[] textTypes;

  public BulkWriter(
      IndexWriter writer,
      String[] names,
      String[] kinds,
      boolean[] stored,
      boolean[] termVectors,
      boolean[] docValues) {
    int n = names.length;
    if (kinds.length != n
        || stored.length != n
        || termVectors.length != n
        || docValues.length != n) {
      throw new IllegalArgumentException("the field descriptions differ in length");
    }
    this.writer = writer;
    this.names = names.clone();
    this.kinds = kinds.clone();
    this.stored = stored.clone();
    this.docValues = docValues.clone();
    this.textTypes = new FieldType[n];
    for (int i = 0; i < n; i++) {
      if (!kinds[i].equals("text") && !kinds[i].equals("keyword") && !kinds[i].equals("long")) {
        throw new IllegalArgumentException("field kind is text, keyword or long, not " + kinds[i]);
      }
      FieldType type = new FieldType(stored[i] ? TextField.TYPE_STORED : TextField.TYPE_NOT_STORED);
      type.setStoreTermVectors(termVectors[i]);
      type.setStoreTermVectorPositions(termVectors[i]);
      type.freeze();
      textTypes[i] = type;
    }
  }

  /**
   * Adds {@code values.length / names.length} documents; returns how many.
   *
   * @throws NumberFormatException for a {@code long} field's value that is not a whole number
   */
  public int add(String[] values) throws IOException {
    return add(values, 1);
  }

  /**
   * Adds the rows of {@code values} on {@code threads} threads (Lucene's ids then follow no fixed
   * order among them); returns how many.
   */
  public int add(String[] values, int threads) throws IOException {
    if (values.length % names.length != 0) {
      throw new IllegalArgumentException(
          values.length + " values are not whole rows of " + names.length + " fields");
    }
    int rows = values.length / names.length;
    if (threads <= 1 || rows < 2 * threads) {
      addRows(values, 0, rows);
      return rows;
    }
    int per = (rows + threads - 1) / threads;
    ExecutorService pool = Executors.newFixedThreadPool(threads - 1);
    try {
      new Parallel(pool, threads)
          .each(
              (rows + per - 1) / per,
              part -> addRows(values, part * per, Math.min(rows, (part + 1) * per)));
    } finally {
      pool.shutdown();
    }
    return rows;
  }

  /**
   * Adds the rows of values given as one text: value {@code i} is the next {@code lengths[i]}
   * characters of {@code joined}, or absent where {@code lengths[i]} is -1 (one string crosses from
   * Python instead of one a value); returns how many.
   */
  public int add(String joined, int[] lengths, int threads) throws IOException {
    String[] values = new String[lengths.length];
    int at = 0;
    for (int i = 0; i < lengths.length; i++) {
      if (lengths[i] >= 0) {
        values[i] = joined.substring(at, at + lengths[i]);
        at += lengths[i];
      }
    }
    if (at != joined.length()) {
      throw new IllegalArgumentException(
          "the lengths add up to " + at + " characters, the text has " + joined.length());
    }
    return add(values, threads);
  }

  private void addRows(String[] values, int from, int to) throws IOException {
    for (int row = from; row < to; row++) {
      Document document = new Document();
      for (int f = 0; f < names.length; f++) {
        String value = values[row * names.length + f];
        if (value != null) {
          add(document, f, value);
        }
      }
      writer.addDocument(document);
    }
  }

  private void add(Document document, int f, String value) {
    String name = names[f];
    switch (kinds[f]) {
      case "text" -> document.add(new Field(name, value, textTypes[f]));
      case "keyword" -> {
        document.add(new StringField(name, value, stored[f] ? Field.Store.YES : Field.Store.NO));
        if (docValues[f]) {
          document.add(new SortedDocValuesField(name, new BytesRef(value)));
        }
      }
      default -> {
        long number = Long.parseLong(value.strip());
        document.add(new LongPoint(name, number));
        if (docValues[f]) {
          document.add(new NumericDocValuesField(name, number));
        }
        if (stored[f]) {
          document.add(new StoredField(name, number));
        }
      }
    }
  }
}
