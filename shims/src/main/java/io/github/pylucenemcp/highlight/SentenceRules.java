package io.github.pylucenemcp.highlight;

import java.util.Locale;
import java.util.Set;

/**
 * Where ICU's sentence rules (UAX #29, {@link Locale#ROOT}) end a sentence that a reader does not:
 * a break ICU found is dropped
 *
 * <ul>
 *   <li>at a wrapped line: a line feed followed by a lower-case word, the line before not ending in
 *       {@code !} or {@code ?} (a mail or text file wrapped at 72 columns; ICU ends a sentence at
 *       every line feed);
 *   <li>after a German ordinal: a number of one to three digits and a full stop, before a month's
 *       name ("am 15. März") or after a preposition or article ("im 19. Jahrhundert", "zum 3.
 *       Mal"); "Die Antwort ist 42. Danach" still ends;
 *   <li>after an initial ("D. E. Knuth", "z. B.") or a common abbreviation of German or English
 *       ("Dr.", "Nr.", "vgl.", "bzw.", "e.g.") before a capital.
 * </ul>
 *
 * docs/passages.md lists them. A blank line always ends a sentence.
 */
final class SentenceRules {
  private SentenceRules() {}

  // spelled as in the text, without the last full stop
  private static final Set<String> ABBREVIATIONS =
      Set.of(
          // English
          "Mr",
          "Mrs",
          "Ms",
          "Dr",
          "Prof",
          "St",
          "Jr",
          "Sr",
          "vs",
          "cf",
          "approx",
          "Fig",
          "Figs",
          "Eq",
          "Eqs",
          "Vol",
          "vol",
          "pp",
          "e.g",
          "i.e",
          "et al",
          // German
          "Hr",
          "Hrn",
          "Fr",
          "Frl",
          "Nr",
          "Str",
          "bzw",
          "ca",
          "vgl",
          "Abs",
          "Art",
          "Bd",
          "Abb",
          "Kap",
          "Anm",
          "Jh",
          "Jhd",
          "geb",
          "gest",
          "ggf",
          "inkl",
          "exkl",
          "evtl",
          "sog",
          "Tel",
          "Mio",
          "Mrd",
          "bspw",
          "zzgl",
          "z.B",
          "d.h",
          "u.a",
          "o.ä",
          "s.o",
          "s.u",
          "u.U",
          "i.d.R",
          "z.T",
          "Dipl",
          "Ing",
          "Std",
          "Min",
          "Hbf");

  private static final Set<String> MONTHS =
      Set.of(
          "januar",
          "jänner",
          "februar",
          "feber",
          "märz",
          "april",
          "mai",
          "juni",
          "juli",
          "august",
          "september",
          "oktober",
          "november",
          "dezember",
          "jan",
          "feb",
          "mär",
          "mrz",
          "apr",
          "jun",
          "jul",
          "aug",
          "sep",
          "sept",
          "okt",
          "nov",
          "dez",
          "january",
          "february",
          "march",
          "may",
          "june",
          "july",
          "october",
          "december",
          "mar",
          "oct",
          "dec");

  // the words before a German ordinal
  private static final Set<String> ORDINAL_CUES =
      Set.of(
          "am", "im", "vom", "zum", "zur", "beim", "ums", "bis", "ab", "seit", "nach", "vor", "der",
          "die", "das", "den", "dem", "des", "ein", "eine", "einem", "einen", "einer", "jeden",
          "jedem", "jeder", "dieses", "diesem", "dieser", "ihrem", "ihren", "seinem", "seinen",
          "unserem", "ihr", "sein", "unser");

  /** Whether the break ICU found at {@code at} in {@code text} ends a sentence for a reader. */
  static boolean keeps(CharSequence text, int at) {
    if (at <= 0 || at >= text.length()) {
      return true;
    }
    return !wrappedLine(text, at) && !afterAbbreviation(text, at);
  }

  private static boolean wrappedLine(CharSequence text, int at) {
    if (text.charAt(at - 1) != '\n') {
      return false; // ICU breaks right after a line feed
    }
    int last = at - 2;
    while (last >= 0 && isBlank(text.charAt(last))) {
      last--;
    }
    if (last < 0 || text.charAt(last) == '\n') {
      return false; // a blank line ends a paragraph
    }
    char end = text.charAt(last);
    if (end == '!' || end == '?') {
      return false;
    }
    int next = at;
    while (next < text.length() && isBlank(text.charAt(next))) {
      next++;
    }
    return next < text.length() && Character.isLowerCase(Character.codePointAt(text, next));
  }

  private static boolean afterAbbreviation(CharSequence text, int at) {
    int dot = at - 1;
    int lineFeeds = 0;
    while (dot >= 0 && Character.isWhitespace(text.charAt(dot))) {
      if (text.charAt(dot) == '\n' && ++lineFeeds > 1) {
        return false;
      }
      dot--;
    }
    if (dot < 0 || text.charAt(dot) != '.') {
      return false;
    }
    int start = dot;
    while (start > 0 && (isWordChar(text.charAt(start - 1)) || text.charAt(start - 1) == '.')) {
      start--;
    }
    while (start < dot && text.charAt(start) == '.') {
      start++; // "...Dr." is not the abbreviation "..Dr"
    }
    String token = text.subSequence(start, dot).toString();
    if (token.isEmpty()) {
      return false;
    }
    if (token.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return token.length() <= 3
          && (MONTHS.contains(wordAt(text, at).toLowerCase(Locale.ROOT))
              || ORDINAL_CUES.contains(wordBefore(text, start).toLowerCase(Locale.ROOT)));
    }
    if (token.length() == 1 && Character.isLetter(token.charAt(0))) {
      return true; // an initial
    }
    if (ABBREVIATIONS.contains(token)) {
      return true;
    }
    String before = wordBefore(text, start);
    return !before.isEmpty() && ABBREVIATIONS.contains(before + " " + token); // "et al."
  }

  /** The letters from {@code from} on. */
  private static String wordAt(CharSequence text, int from) {
    int end = from;
    while (end < text.length() && Character.isLetter(text.charAt(end))) {
      end++;
    }
    return text.subSequence(from, end).toString();
  }

  /** The letters just before the blanks before {@code end}. */
  private static String wordBefore(CharSequence text, int end) {
    int i = end;
    while (i > 0 && isBlank(text.charAt(i - 1))) {
      i--;
    }
    if (i == end) {
      return ""; // not a word of its own
    }
    int start = i;
    while (start > 0 && Character.isLetter(text.charAt(start - 1))) {
      start--;
    }
    return text.subSequence(start, i).toString();
  }

  private static boolean isWordChar(char c) {
    return Character.isLetterOrDigit(c);
  }

  private static boolean isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\u00a0';
  }
}
