package io.github.pylucenemcp.search;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;

/**
 * A JSON writer that places its own commas and colons, to hand a page of results (or any other
 * answer) to Python in one string: open a container with {@link #object} or {@link #array}, name a
 * member with {@link #name}, write values, and close with {@link #end}.
 *
 * <pre>{@code
 * new Json().object().name("total").number(3).name("terms").array().string("a").end().end()
 * // {"total":3,"terms":["a"]}
 * }</pre>
 *
 * <p>Strings are escaped as JSON requires; doubles keep a decimal point (NaN and infinities, which
 * JSON has not, are written as 0.0). A lone surrogate is written as {@code \\uXXXX}, so that Python
 * reads back the same string (a file name Python read with {@code surrogateescape}); a writer made
 * by {@link #replacingLoneSurrogates} writes U+FFFD instead (a parser's broken text, which is no
 * one's key). The one JSON writer of the shims, Tika's pipe included.
 */
public final class Json {
  private final StringBuilder out = new StringBuilder(4096);
  private final boolean replaceLone;
  // per open container, innermost last: its closing character, and whether it has a member yet
  private char[] closers = new char[8];
  private boolean[] filled = new boolean[8];
  private int depth;
  // a member's name was just written: its value follows the colon without a comma
  private boolean named;

  /** A writer that keeps a lone surrogate as its escape. */
  public Json() {
    this(false);
  }

  private Json(boolean replaceLone) {
    this.replaceLone = replaceLone;
  }

  /** A writer that writes U+FFFD for a lone surrogate: its text is valid UTF-8 as it stands. */
  public static Json replacingLoneSurrogates() {
    return new Json(true);
  }

  /** Opens an object, as a value. */
  public Json object() {
    return open('{', '}');
  }

  /** Opens an array, as a value. */
  public Json array() {
    return open('[', ']');
  }

  /** Closes the innermost open object or array. */
  public Json end() {
    if (depth == 0 || named) {
      throw new IllegalStateException(named ? "a name without its value" : "nothing to close");
    }
    out.append(closers[--depth]);
    return this;
  }

  /** The name of the next member of the open object. */
  public Json name(String name) {
    if (depth == 0 || closers[depth - 1] != '}' || named) {
      throw new IllegalStateException("a name outside an object, or after another name");
    }
    separate();
    quoted(name);
    out.append(':');
    named = true;
    return this;
  }

  public Json string(String value) {
    value();
    if (value == null) {
      out.append("null");
    } else {
      quoted(value);
    }
    return this;
  }

  /** A double written with a decimal point or exponent, so that JSON readers keep it a float. */
  public Json decimal(double value) {
    value();
    out.append(Double.isNaN(value) || Double.isInfinite(value) ? 0.0 : value);
    return this;
  }

  public Json number(long value) {
    value();
    out.append(value);
    return this;
  }

  public Json bool(boolean value) {
    value();
    out.append(value);
    return this;
  }

  /** Epoch milliseconds as an ISO-8601 UTC instant to the second, as a JSON string. */
  public Json instant(long millis) {
    return string(Instant.ofEpochMilli(millis).truncatedTo(ChronoUnit.SECONDS).toString());
  }

  /** The JSON written, which must be complete (every container closed). */
  @Override
  public String toString() {
    if (depth != 0) {
      throw new IllegalStateException(depth + " containers left open");
    }
    return out.toString();
  }

  private Json open(char opener, char closer) {
    value();
    if (depth == closers.length) {
      closers = Arrays.copyOf(closers, depth * 2);
      filled = Arrays.copyOf(filled, depth * 2);
    }
    closers[depth] = closer;
    filled[depth++] = false;
    out.append(opener);
    return this;
  }

  /** Before a value: the comma after an array's previous item, or nothing after a name. */
  private void value() {
    if (named) {
      named = false;
    } else if (depth > 0) {
      if (closers[depth - 1] == '}') {
        throw new IllegalStateException("a value in an object without its name");
      }
      separate();
    } else if (!out.isEmpty()) {
      throw new IllegalStateException("a second value at the top level");
    }
  }

  private void separate() {
    if (filled[depth - 1]) {
      out.append(',');
    }
    filled[depth - 1] = true;
  }

  private void quoted(String value) {
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
          boolean lone = Character.isSurrogate(c) && !validSurrogate(value, i);
          if (lone && replaceLone) {
            out.append('\ufffd');
          } else if (c < 0x20 || lone) {
            out.append("\\u").append(HEX[c >> 12 & 0xf]).append(HEX[c >> 8 & 0xf]);
            out.append(HEX[c >> 4 & 0xf]).append(HEX[c & 0xf]);
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private static boolean validSurrogate(String s, int i) {
    char c = s.charAt(i);
    if (Character.isHighSurrogate(c)) {
      return i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
    }
    return i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
  }
}
