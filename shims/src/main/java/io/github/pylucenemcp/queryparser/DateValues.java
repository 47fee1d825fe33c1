package io.github.pylucenemcp.queryparser;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/** Dates as the index stores them: epoch milliseconds, UTC. */
public final class DateValues {
  private DateValues() {}

  /**
   * Parses {@code 2024-01-01}, {@code 2024-01-01T10:30:00Z}, {@code 2024-01-01T10:30:00} (UTC) or
   * epoch milliseconds. A date alone means its first millisecond, or with {@code endOfDay} its
   * last.
   *
   * @throws IllegalArgumentException naming the accepted forms
   */
  public static long parse(String text, boolean endOfDay) {
    String s = text.trim();
    try {
      if (s.matches("-?\\d{9,}")) {
        return Long.parseLong(s);
      }
      if (s.length() == 10) {
        LocalDate day = LocalDate.parse(s);
        long start = day.atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
        return endOfDay ? start + 86_400_000L - 1 : start;
      }
      if (s.endsWith("Z") || s.matches(".*[+-]\\d{2}:\\d{2}$")) {
        return OffsetDateTime.parse(s).toInstant().toEpochMilli();
      }
      return LocalDateTime.parse(s).toInstant(ZoneOffset.UTC).toEpochMilli();
    } catch (DateTimeParseException | NumberFormatException e) {
      throw new IllegalArgumentException(
          "'"
              + text
              + "' is not a date; use 2024-01-01, 2024-01-01T10:30:00Z or epoch milliseconds",
          e);
    }
  }

  /** The ISO-8601 form of epoch milliseconds, for people and models. */
  public static String format(long millis) {
    return Instant.ofEpochMilli(millis).toString();
  }
}
