package io.github.pylucenemcp.queryparser;

import org.apache.lucene.queryparser.classic.ParseException;

/** The repeat counts a regular expression of the query syntax may give. */
final class RegexRepeats {
  private RegexRepeats() {}

  /** The largest repeat count a regular expression may give ({@code {n}}, {@code {n,m}}). */
  public static final int MAX = 100;

  private static final java.util.regex.Pattern REPEAT =
      java.util.regex.Pattern.compile("\\{(\\d{1,9})(?:,(\\d{0,9}))?\\}");

  /**
   * Refuses repeats that make Lucene build an automaton too large to build in time ({@code
   * /a{1,100000}/} takes a core for minutes before any document is looked at).
   */
  static void check(String regex) throws ParseException {
    java.util.regex.Matcher m = REPEAT.matcher(regex);
    while (m.find()) {
      for (int g = 1; g <= 2; g++) {
        String n = m.group(g);
        if (n != null && !n.isEmpty() && Long.parseLong(n) > MAX) {
          throw new ParseException(
              "the regular expression /"
                  + (regex.length() > 60 ? regex.substring(0, 60) + "…" : regex)
                  + "/ repeats "
                  + m.group()
                  + " at position "
                  + m.start()
                  + "; a repeat may count "
                  + "at most "
                  + MAX
                  + " (or use a wildcard: a* instead of /a{1,1000}/)");
        }
      }
    }
  }
}
