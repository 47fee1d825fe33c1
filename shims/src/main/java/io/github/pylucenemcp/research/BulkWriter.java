package io.github.pylucenemcp.research;

import java.io.IOException;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.IndexWriter;

/**
 * Adds documents of a research index many at a time: Python hands over a batch as one flat
 * array of values (row after row, one value per field, null where a document has none), so
 * that indexing crosses the JPype boundary once per batch instead of several times per field.
 */
public final class BulkWriter {
  private final IndexWriter writer;
  private final String[] names;
  private final boolean[] analyzed;
  private final Field.Store[] stores;

  /**
   * @param analyzed per field: a {@link TextField} (analyzed) or a {@link StringField} (one
   *     exact token)
   * @param stored per field: whether its value is stored
   */
  public BulkWriter(IndexWriter writer, String[] names, boolean[] analyzed, boolean[] stored) {
    if (names.length != analyzed.length || names.length != stored.length) {
      throw new IllegalArgumentException("names, analyzed and stored differ in length");
    }
    this.writer = writer;
    this.names = names.clone();
    this.analyzed = analyzed.clone();
    this.stores = new Field.Store[stored.length];
    for (int i = 0; i < stored.length; i++) {
      stores[i] = stored[i] ? Field.Store.YES : Field.Store.NO;
    }
  }

  /** Adds {@code values.length / names.length} documents; returns how many. */
  public int add(String[] values) throws IOException {
    if (values.length % names.length != 0) {
      throw new IllegalArgumentException(
          values.length + " values are not whole rows of " + names.length + " fields");
    }
    int rows = values.length / names.length;
    for (int row = 0; row < rows; row++) {
      Document document = new Document();
      for (int field = 0; field < names.length; field++) {
        String value = values[row * names.length + field];
        if (value == null) {
          continue;
        }
        document.add(
            analyzed[field]
                ? new TextField(names[field], value, stores[field])
                : new StringField(names[field], value, stores[field]));
      }
      writer.addDocument(document);
    }
    return rows;
  }
}
