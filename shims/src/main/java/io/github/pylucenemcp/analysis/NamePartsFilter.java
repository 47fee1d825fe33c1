package io.github.pylucenemcp.analysis;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.lucene.analysis.TokenFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.OffsetAttribute;
import org.apache.lucene.analysis.tokenattributes.PositionIncrementAttribute;
import org.apache.lucene.util.AttributeSource;

/**
 * Names found by their parts: a token that joins words with dots or underscores, or by case changes
 * ({@code ElementTree.write}, {@code dhua.sty}, {@code file_name}, {@code getIndexStats}), is kept
 * whole and followed by its parts at the same position (position increment 0, as a synonym stands
 * beside its word): the pieces between dots and underscores ({@code elementtree}, {@code write})
 * and the camel-case words of each ({@code element}, {@code tree}); an English possessive also
 * stands for its owner ({@code LaTeX's}: {@code latex}, {@code la}, {@code te}). A part keeps its
 * own offsets inside the token, so a highlighter marks it there.
 *
 * <p>At the same position, the parts change neither the positions of the words after the name
 * (phrases across it match as before) nor the document's length as BM25 counts it (overlapping
 * tokens are discounted). Parts of one character, and tokens without a letter ({@code 3.14}, {@code
 * 1.2.3}), are not split. Only the index applies it: a query for the whole name matches the whole
 * name, a query for a part matches the part.
 *
 * <p>It needs the text with its case, before case folding: case changes are its cue.
 */
public final class NamePartsFilter extends TokenFilter {
  private final CharTermAttribute term = addAttribute(CharTermAttribute.class);
  private final OffsetAttribute offset = addAttribute(OffsetAttribute.class);
  private final PositionIncrementAttribute increment =
      addAttribute(PositionIncrementAttribute.class);
  private final ArrayDeque<int[]> parts = new ArrayDeque<>(); // [start, end) in the token
  private AttributeSource.State whole;
  private String text;
  private boolean exactOffsets;
  private int startOffset;

  public NamePartsFilter(TokenStream input) {
    super(input);
  }

  @Override
  public boolean incrementToken() throws IOException {
    if (!parts.isEmpty()) {
      int[] part = parts.poll();
      restoreState(whole);
      term.setEmpty().append(text, part[0], part[1]);
      increment.setPositionIncrement(0);
      if (exactOffsets) {
        offset.setOffset(startOffset + part[0], startOffset + part[1]);
      }
      return true;
    }
    if (!input.incrementToken()) {
      return false;
    }
    List<int[]> found = parts(term);
    if (!found.isEmpty()) {
      text = term.toString();
      whole = captureState();
      startOffset = offset.startOffset();
      // a part's offsets are the whole token's where the text was not the token as written
      // (a ligature the char filter expanded …)
      exactOffsets = offset.endOffset() - startOffset == text.length();
      parts.addAll(found);
    }
    return true;
  }

  /**
   * The parts of {@code token} ({@code [start, end)} in it), in order, without repeats and without
   * the whole token; none when it is no joined name.
   */
  static List<int[]> parts(CharSequence token) {
    int end = token.length();
    if (end > 3
        && Character.toLowerCase(token.charAt(end - 1)) == 's'
        && (token.charAt(end - 2) == '\'' || token.charAt(end - 2) == '\u2019')) {
      // a possessive: "LaTeX's" is also LaTeX (and its parts)
      CharSequence owner = token.subSequence(0, end - 2);
      List<int[]> found = new ArrayList<>();
      if (owner.chars().anyMatch(Character::isLetter)) {
        found.add(new int[] {0, end - 2});
        found.addAll(parts(owner));
      }
      return found;
    }
    List<int[]> found = new ArrayList<>();
    int length = token.length();
    boolean letter = false;
    boolean joined = false;
    for (int i = 0; i < length; i++) {
      char c = token.charAt(i);
      letter |= Character.isLetter(c);
      joined |= c == '.' || c == '_' || i > 0 && caseChange(token, i);
    }
    if (!letter || !joined) {
      return found;
    }
    Set<String> seen = new HashSet<>();
    seen.add(token.toString().toLowerCase(Locale.ROOT));
    List<int[]> segments = new ArrayList<>();
    int start = 0;
    for (int i = 0; i <= length; i++) {
      if (i == length || token.charAt(i) == '.' || token.charAt(i) == '_') {
        if (i > start) {
          segments.add(new int[] {start, i});
        }
        start = i + 1;
      }
    }
    for (int[] segment : segments) {
      if (segments.size() > 1) {
        add(found, seen, token, segment[0], segment[1]);
      }
      int from = segment[0];
      for (int i = segment[0] + 1; i < segment[1]; i++) {
        if (caseChange(token, i)) {
          add(found, seen, token, from, i);
          from = i;
        }
      }
      if (from > segment[0]) {
        add(found, seen, token, from, segment[1]);
      }
    }
    return found;
  }

  /**
   * Whether a camel-case word starts at {@code i}: a capital after a small letter ({@code
   * getIndex}), or the last capital of a run before a small letter ({@code HTTPServer}).
   */
  private static boolean caseChange(CharSequence token, int i) {
    char before = token.charAt(i - 1);
    char c = token.charAt(i);
    if (!Character.isUpperCase(c)) {
      return false;
    }
    if (Character.isLowerCase(before)) {
      return true;
    }
    return Character.isUpperCase(before)
        && i + 1 < token.length()
        && Character.isLowerCase(token.charAt(i + 1));
  }

  private static void add(
      List<int[]> found, Set<String> seen, CharSequence token, int start, int end) {
    if (end - start < 2) {
      return;
    }
    String part = token.subSequence(start, end).toString();
    boolean letter = part.chars().anyMatch(Character::isLetter);
    if (letter && seen.add(part.toLowerCase(Locale.ROOT))) {
      found.add(new int[] {start, end});
    }
  }

  @Override
  public void reset() throws IOException {
    super.reset();
    parts.clear();
    whole = null;
    text = null;
  }
}
