package io.github.pylucenemcp.search;

import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.util.BytesRef;

/**
 * Where a page of a sorted search ends, as text a cursor carries, and the {@code searchAfter}
 * position that continues after it: one codec for {@link SearchContext}'s walks.
 */
final class Positions {
  private Positions() {}

  /**
   * The hit a page ends with, as {@link SearchContext}'s search writes it ({@code "last"}: the
   * hit's value of each field of {@code sort}, joined by {@code :}; the unique key, the last field
   * of a cursor's sort, comes last and may hold {@code :} itself), to continue after it: {@code
   * searchAfter}'s position. {@link SearchContext}'s search gives it the largest document number of
   * its reader, so that a hit whose values all equal the position's (only the hit itself: the key
   * is unique) counts as seen, whatever number a merge gave it since.
   *
   * @throws IllegalArgumentException for text that is not such a position
   */
  static ScoreDoc after(String position, Sort sort) {
    if (sort == null) {
      throw new IllegalArgumentException("a position needs its sort");
    }
    SortField[] fields = sort.getSort();
    String[] parts = position.split(":", fields.length);
    if (parts.length != fields.length) {
      throw new IllegalArgumentException("not a position of this sort: " + position);
    }
    Object[] values = new Object[fields.length];
    float score = Float.NaN;
    for (int i = 0; i < fields.length; i++) {
      switch (fields[i].getType()) {
        case SCORE -> values[i] = score = Float.parseFloat(parts[i]);
        case LONG -> values[i] = Long.parseLong(parts[i]);
        case STRING -> values[i] = new BytesRef(parts[i]);
        default -> throw new IllegalArgumentException("cannot continue a sort by " + fields[i]);
      }
    }
    return new FieldDoc(Integer.MAX_VALUE, score, values);
  }

  /** The position a page ends with: its last hit's sort values (see {@link #after}). */
  static String position(ScoreDoc hit) {
    if (!(hit instanceof FieldDoc field)) {
      return hit.doc + ":" + hit.score;
    }
    StringBuilder position = new StringBuilder();
    for (Object value : field.fields) {
      position.append(position.length() == 0 ? "" : ":");
      position.append(value instanceof BytesRef bytes ? bytes.utf8ToString() : value);
    }
    return position.toString();
  }
}
