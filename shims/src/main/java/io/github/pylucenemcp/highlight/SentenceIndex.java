package io.github.pylucenemcp.highlight;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.ByteArrayDataInput;
import org.apache.lucene.store.ByteBuffersDataOutput;
import org.apache.lucene.util.BytesRef;

/**
 * A text's sentence boundaries, found by ICU once when the document is indexed and kept as binary
 * doc values, so that passages do not find them again on every search: on long documents with many
 * matches, finding them was a quarter of a page's highlighting. They are the boundaries {@link
 * IcuSentences} finds ({@link ReaderSentences}), from 0 to the text's length, written as their
 * count and the gaps between them (variable-length ints: a byte or two a sentence).
 */
public final class SentenceIndex {
  private SentenceIndex() {}

  /** The boundaries of {@code text} as a doc value. */
  public static BytesRef encode(String text) {
    ReaderSentences icu = new ReaderSentences();
    icu.setText(text);
    int[] boundaries = new int[16];
    int size = 0;
    for (int b = icu.first(); b != com.ibm.icu.text.BreakIterator.DONE; b = icu.next()) {
      if (size == boundaries.length) {
        boundaries = Arrays.copyOf(boundaries, size * 2);
      }
      boundaries[size++] = b;
    }
    ByteBuffersDataOutput out = new ByteBuffersDataOutput();
    try {
      out.writeVInt(size);
      int previous = 0;
      for (int i = 0; i < size; i++) {
        out.writeVInt(boundaries[i] - previous);
        previous = boundaries[i];
      }
    } catch (IOException e) {
      throw new IllegalStateException("writing to memory failed", e); // it never does
    }
    return new BytesRef(out.toArrayCopy());
  }

  /**
   * The boundaries that {@code value} holds, or null when they cannot be those of a text of {@code
   * length} characters (then ICU finds them again).
   */
  static int[] decode(BytesRef value, int length) {
    try {
      return boundaries(value, length);
    } catch (RuntimeException e) { // a value cut short: ICU finds the boundaries again
      return null;
    }
  }

  private static int[] boundaries(BytesRef value, int length) {
    ByteArrayDataInput in = new ByteArrayDataInput(value.bytes, value.offset, value.length);
    int size = in.readVInt();
    if (size < 1 || size > length + 1) {
      return null;
    }
    int[] boundaries = new int[size];
    int at = 0;
    for (int i = 0; i < size; i++) {
      if (in.eof()) {
        return null;
      }
      at += in.readVInt();
      boundaries[i] = at;
    }
    return boundaries[0] == 0 && at == length && in.eof() ? boundaries : null;
  }

  /**
   * The boundaries kept for document {@code docId}, whose stored text is {@code text}; null when it
   * has none that fit the text (it was indexed before they were kept).
   */
  static int[] read(IndexSearcher searcher, String field, int docId, String text)
      throws IOException {
    if (field == null) {
      return null;
    }
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(docId, leaves));
    BinaryDocValues values = leaf.reader().getBinaryDocValues(field);
    if (values == null || !values.advanceExact(docId - leaf.docBase)) {
      return null;
    }
    return decode(values.binaryValue(), text.length());
  }
}
