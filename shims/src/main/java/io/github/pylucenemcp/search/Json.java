package io.github.pylucenemcp.search;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** Just enough JSON writing to hand a page of results to Python in one string. */
public final class Json {
  private final StringBuilder out = new StringBuilder(4096);

  public Json raw(String text) {
    out.append(text);
    return this;
  }

  public Json string(String value) {
    if (value == null) {
      out.append("null");
      return this;
    }
    out.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20 || Character.isSurrogate(c) && !validSurrogate(value, i)) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
    return this;
  }

  private static boolean validSurrogate(String s, int i) {
    char c = s.charAt(i);
    if (Character.isHighSurrogate(c)) {
      return i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
    }
    return i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
  }

  /** A double written with a decimal point or exponent, so that JSON readers keep it a float. */
  public Json decimal(double value) {
    out.append(Double.isNaN(value) || Double.isInfinite(value) ? 0.0 : value);
    return this;
  }

  /** Epoch milliseconds as an ISO-8601 UTC instant to the second, as a JSON string. */
  public Json instant(long millis) {
    return string(Instant.ofEpochMilli(millis).truncatedTo(ChronoUnit.SECONDS).toString());
  }

  public Json number(long value) {
    out.append(value);
    return this;
  }

  @Override
  public String toString() {
    return out.toString();
  }
}
