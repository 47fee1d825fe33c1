package io.github.pylucenemcp.queryparser;

import org.apache.lucene.document.LongPoint;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.search.Query;

/**
 * A range of a field of whole numbers (a size in bytes) or of dates, as the query syntax writes it.
 */
final class LongRanges {
  private LongRanges() {}

  /**
   * The {@link LongPoint} range of {@code field} from {@code lower} to {@code upper} (null: open),
   * each end included or not; a date field's ends are dates ({@link DateValues}): an exclusive day
   * starts after its last millisecond, an exclusive instant after itself.
   */
  static Query range(
      String field,
      boolean date,
      String lower,
      String upper,
      boolean lowerInclusive,
      boolean upperInclusive)
      throws ParseException {
    long from = lower == null ? Long.MIN_VALUE : parse(field, date, lower, !lowerInclusive);
    long to = upper == null ? Long.MAX_VALUE : parse(field, date, upper, upperInclusive);
    if (!lowerInclusive && lower != null) {
      from = Math.addExact(from, 1);
    }
    if (!upperInclusive && upper != null) {
      to = Math.addExact(to, -1);
    }
    return LongPoint.newRangeQuery(field, from, to);
  }

  private static long parse(String field, boolean date, String text, boolean upper)
      throws ParseException {
    if (date) {
      try {
        return DateValues.parse(text, upper);
      } catch (IllegalArgumentException e) {
        throw new ParseException("field '" + field + "': " + e.getMessage());
      }
    }
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw new ParseException(
          "field '" + field + "' holds whole numbers (bytes); '" + text + "' is not one");
    }
  }
}
