package io.github.pylucenemcp.index;

import io.github.pylucenemcp.search.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.MultiBits;
import org.apache.lucene.index.MultiDocValues;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.util.Bits;

/**
 * What the index holds for files, as the crawler compares them with the disk: path, size, the mtime
 * last seen and the content hash of each document, in one call for a whole folder tree (a crawl) or
 * a list of paths (live updates) instead of several calls per document.
 *
 * <p>The answer is UTF-8 JSON: {@code [[path, size or null, mtime or null, hash or null, readers or
 * null], ...]}, the readers as the crawler recorded them (principals joined by the row separator).
 */
public final class FileStates {
  private final String pathField;
  private final String sizeField;
  private final String hashField;
  private final String mtimeField;
  private final String readersField;
  private final Set<String> stored;

  /**
   * @param mtimeField a numeric doc-values field (updated in place when a file is touched)
   * @param readersField a binary doc-values field (updated in place when a file's mode changes)
   */
  public FileStates(
      String pathField,
      String sizeField,
      String hashField,
      String mtimeField,
      String readersField) {
    this.pathField = pathField;
    this.sizeField = sizeField;
    this.hashField = hashField;
    this.mtimeField = mtimeField;
    this.readersField = readersField;
    this.stored = Set.of(pathField, sizeField, hashField);
  }

  /** Every live document whose path starts with one of {@code prefixes}. */
  public byte[] under(IndexReader reader, String[] prefixes) throws IOException {
    Bits live = MultiBits.getLiveDocs(reader);
    StoredFields fields = reader.storedFields();
    NumericDocValues mtimes = MultiDocValues.getNumericValues(reader, mtimeField);
    BinaryDocValues readers = MultiDocValues.getBinaryValues(reader, readersField);
    Json json = new Json().array();
    for (int doc = 0; doc < reader.maxDoc(); doc++) {
      if (live != null && !live.get(doc)) {
        continue;
      }
      Document document = fields.document(doc, stored);
      String path = document.get(pathField);
      if (path == null || !startsWithAny(path, prefixes)) {
        continue;
      }
      // doc values advance forward only: documents are visited in order
      write(
          json,
          path,
          document,
          mtimes != null && mtimes.advanceExact(doc) ? mtimes : null,
          readers != null && readers.advanceExact(doc) ? readers : null);
    }
    return json.end().toString().getBytes(StandardCharsets.UTF_8);
  }

  /** The documents of {@code paths} that the index holds (a term lookup each). */
  public byte[] of(IndexSearcher searcher, String[] paths) throws IOException {
    StoredFields fields = searcher.storedFields();
    Json json = new Json().array();
    for (String path : paths) {
      TopDocs top = searcher.search(new TermQuery(new Term(pathField, path)), 1);
      if (top.scoreDocs.length == 0) {
        continue;
      }
      int doc = top.scoreDocs[0].doc;
      IndexReader reader = searcher.getIndexReader();
      NumericDocValues mtimes = MultiDocValues.getNumericValues(reader, mtimeField);
      BinaryDocValues readers = MultiDocValues.getBinaryValues(reader, readersField);
      write(
          json,
          path,
          fields.document(doc, stored),
          mtimes != null && mtimes.advanceExact(doc) ? mtimes : null,
          readers != null && readers.advanceExact(doc) ? readers : null);
    }
    return json.end().toString().getBytes(StandardCharsets.UTF_8);
  }

  private void write(
      Json json, String path, Document document, NumericDocValues mtime, BinaryDocValues readers)
      throws IOException {
    json.array().string(path);
    IndexableField size = document.getField(sizeField);
    if (size != null && size.numericValue() != null) {
      json.number(size.numericValue().longValue());
    } else {
      json.string(null);
    }
    if (mtime != null) {
      json.number(mtime.longValue());
    } else {
      json.string(null);
    }
    json.string(document.get(hashField));
    json.string(readers == null ? null : readers.binaryValue().utf8ToString()).end();
  }

  private static boolean startsWithAny(String path, String[] prefixes) {
    for (String prefix : prefixes) {
      if (path.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }
}
