package io.github.pylucenemcp.tika;

import java.util.Arrays;
import java.util.List;
import org.apache.tika.metadata.Metadata;

/** Metadata lists as JSON, the shape of Tika server's {@code /rmeta}: one object a document. */
final class Json {
  private Json() {}

  /**
   * {@code [{"name": "value" or ["value", …], …}, …]}: a name with one value maps to it, with more
   * to the list of them; names sorted, so the same document gives the same text.
   */
  static String metadataList(List<Metadata> parts) {
    StringBuilder json = new StringBuilder();
    json.append('[');
    for (int i = 0; i < parts.size(); i++) {
      if (i > 0) {
        json.append(',');
      }
      Metadata metadata = parts.get(i);
      String[] names = metadata.names();
      Arrays.sort(names);
      json.append('{');
      for (int n = 0; n < names.length; n++) {
        if (n > 0) {
          json.append(',');
        }
        string(json, names[n]);
        json.append(':');
        String[] values = metadata.getValues(names[n]);
        if (values.length == 1) {
          string(json, values[0]);
        } else {
          json.append('[');
          for (int v = 0; v < values.length; v++) {
            if (v > 0) {
              json.append(',');
            }
            string(json, values[v]);
          }
          json.append(']');
        }
      }
      json.append('}');
    }
    return json.append(']').toString();
  }

  /**
   * {@code text} as a JSON string. A lone surrogate (a parser's broken text) becomes U+FFFD, so
   * that the answer is valid UTF-8.
   */
  static void string(StringBuilder json, String text) {
    json.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> json.append("\\\"");
        case '\\' -> json.append("\\\\");
        case '\n' -> json.append("\\n");
        case '\r' -> json.append("\\r");
        case '\t' -> json.append("\\t");
        default -> {
          if (c < 0x20) {
            json.append("\\u00").append(Character.forDigit(c >> 4, 16));
            json.append(Character.forDigit(c & 0xf, 16));
          } else if (Character.isHighSurrogate(c)
              && i + 1 < text.length()
              && Character.isLowSurrogate(text.charAt(i + 1))) {
            json.append(c).append(text.charAt(++i));
          } else if (Character.isSurrogate(c)) {
            json.append('\ufffd');
          } else {
            json.append(c);
          }
        }
      }
    }
    json.append('"');
  }
}
