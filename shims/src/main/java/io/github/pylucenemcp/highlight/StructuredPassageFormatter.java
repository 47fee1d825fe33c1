package io.github.pylucenemcp.highlight;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.lucene.search.uhighlight.Passage;
import org.apache.lucene.search.uhighlight.PassageFormatter;

/**
 * Formats passages for a machine reader: a window of at most {@code maxChars} visible characters
 * around the matches, {@code <em>} around each match, best passage first, each with its relative
 * score, matched words, term coverage and position in the document. Returns a {@code
 * List<PassageInfo>}.
 */
public final class StructuredPassageFormatter extends PassageFormatter {
  static final String ELLIPSIS = "…";

  private final QueryUnits units;
  private final int maxChars;

  public StructuredPassageFormatter(QueryUnits units, int maxChars) {
    if (maxChars < 20) {
      throw new IllegalArgumentException("maxChars must be at least 20, got " + maxChars);
    }
    this.units = units;
    this.maxChars = maxChars;
  }

  @Override
  public Object format(Passage[] passages, String content) {
    float best = 0f;
    for (Passage p : passages) {
      best = Math.max(best, p.getScore());
    }
    List<PassageInfo> out = new ArrayList<>(passages.length);
    for (Passage p : passages) {
      out.add(formatOne(p, content, best));
    }
    out.sort(Comparator.comparingDouble((PassageInfo i) -> -i.score));
    return out;
  }

  private PassageInfo formatOne(Passage p, String content, float best) {
    int n = p.getNumMatches();
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    int[] starts = p.getMatchStarts();
    int[] ends = p.getMatchEnds();
    Arrays.sort(order, Comparator.comparingInt((Integer i) -> starts[i]));

    int ps = p.getStartOffset();
    int pe = Math.min(p.getEndOffset(), content.length());
    int budget = maxChars - 2 * ELLIPSIS.length();
    int ws;
    int we;
    if (pe - ps <= maxChars || n == 0) {
      ws = ps;
      we = Math.min(pe, ps + maxChars);
    } else {
      // The longest run of matches from the first one that fits, centred in the window.
      int ms = starts[order[0]];
      int me = Math.min(ends[order[0]], ms + budget);
      for (int k = 1; k < n && ends[order[k]] - ms <= budget; k++) {
        me = Math.max(me, ends[order[k]]);
      }
      int slack = budget - (me - ms);
      ws = Math.max(ps, ms - slack / 2);
      we = Math.min(pe, ws + budget);
      ws = Math.max(ps, we - budget);
      ws = snapStart(content, ws, ps, ms);
      we = snapEnd(content, we, pe, me);
    }

    StringBuilder text = new StringBuilder();
    if (ws > ps) {
      text.append(ELLIPSIS);
    }
    Map<String, String> matched = new LinkedHashMap<>();
    int cursor = ws;
    for (int k = 0; k < n; k++) {
      int s = starts[order[k]];
      int e = Math.min(ends[order[k]], we);
      if (s < cursor || s >= we) {
        continue; // overlaps the previous match (content and translit twins) or outside the window
      }
      text.append(content, cursor, s).append("<em>").append(content, s, e).append("</em>");
      cursor = e;
      String word = content.substring(s, ends[order[k]]);
      matched.putIfAbsent(word.toLowerCase(Locale.ROOT), word);
    }
    text.append(content, cursor, we);
    if (we < pe) {
      text.append(ELLIPSIS);
    }
    String shown = text.toString().replaceAll("\\s+", " ").strip();
    List<String> words = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      words.add(content.substring(starts[i], Math.min(ends[i], content.length())));
    }
    float coverage =
        units.size() == 0 ? 0f : (float) units.covered(p.getMatchTerms(), n, words) / units.size();
    float position = content.isEmpty() ? 0f : (float) ps / content.length();
    return new PassageInfo(
        shown,
        best > 0 ? p.getScore() / best : 1f,
        matched.values().toArray(new String[0]),
        coverage,
        position,
        ws,
        we);
  }

  /** Moves a window start forward to a word start, never past the first match. */
  private static int snapStart(String content, int ws, int ps, int firstMatch) {
    if (ws <= ps || Character.isWhitespace(content.charAt(ws - 1))) {
      return ws;
    }
    for (int i = ws; i < firstMatch; i++) {
      if (Character.isWhitespace(content.charAt(i))) {
        return i + 1;
      }
    }
    return ws;
  }

  /** Moves a window end back to a word end, never before the last shown match. */
  private static int snapEnd(String content, int we, int pe, int lastMatch) {
    if (we >= pe || Character.isWhitespace(content.charAt(we))) {
      return we;
    }
    for (int i = we - 1; i > lastMatch; i--) {
      if (Character.isWhitespace(content.charAt(i))) {
        return i;
      }
    }
    return we;
  }
}
