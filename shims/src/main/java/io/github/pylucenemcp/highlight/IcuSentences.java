package io.github.pylucenemcp.highlight;

import java.text.BreakIterator;
import java.text.CharacterIterator;
import java.text.StringCharacterIterator;
import java.util.Arrays;

/**
 * The sentences of passages ({@link ReaderSentences}: ICU's boundaries, UAX #29, less those {@link
 * SentenceRules} drops) as the {@link BreakIterator} the highlighter takes, found in one pass. The
 * highlighter asks for the boundaries around each match, in the order of the matches; the JDK's
 * sentence iterator re-read the text character by character for each of them (on a long document
 * with many matches, most of a page's highlighting), ICU's own re-scans from a safe point for each
 * jump. Here ICU walks forward once, as far as the last match asked for, and the boundaries it
 * passed are kept and looked up. A text whose boundaries were found when it was indexed ({@link
 * SentenceIndex}) is not read at all.
 */
public final class IcuSentences extends BreakIterator {
  /** Farther than this past the boundaries found, ICU jumps instead of walking there. */
  static final int GAP = 4096;

  private final com.ibm.icu.text.BreakIterator icu = new ReaderSentences();
  // for an offset before the boundaries found (after a jump): ICU asked directly
  private final com.ibm.icu.text.BreakIterator direct = new ReaderSentences();
  // a text whose boundaries are known (SentenceIndex.read), and them; else null
  private final String knownText;
  private final int[] knownBoundaries;
  private CharacterIterator text = new StringCharacterIterator("");
  // the boundaries found so far, ascending; complete once ICU reached the end
  private int[] found = {0};
  private int size = 1;
  private boolean complete;
  private int current;

  /** Finds every text's boundaries. */
  public IcuSentences() {
    this(null, null);
  }

  /**
   * Takes {@code boundaries} (ascending, 0 to the end; null: none known) for {@code text} (the very
   * string) instead of finding them.
   */
  IcuSentences(String text, int[] boundaries) {
    this.knownText = boundaries == null ? null : text;
    this.knownBoundaries = boundaries;
  }

  @Override
  public void setText(String newText) {
    setText(new StringCharacterIterator(newText));
    if (knownText != null && newText == knownText) {
      found = knownBoundaries; // never written to: complete, so reach() adds nothing
      size = knownBoundaries.length;
      complete = true;
    }
  }

  @Override
  public void setText(CharacterIterator newText) {
    text = newText;
    icu.setText(newText);
    direct.setText((CharacterIterator) newText.clone());
    found = new int[] {icu.first()};
    size = 1;
    complete = false;
    current = found[0];
  }

  @Override
  public CharacterIterator getText() {
    return text;
  }

  /**
   * Walks ICU forward until a boundary above {@code offset} is known (or the text ends); to an
   * offset far ahead ICU jumps (its boundary before the offset, found from a safe point) and the
   * boundaries found start again there.
   */
  private void reach(int offset) {
    while (!complete && found[size - 1] <= offset) {
      if (offset - found[size - 1] > GAP) {
        int before = icu.preceding(offset); // at or after the last boundary found
        if (before > found[size - 1]) {
          found[0] = before;
          size = 1;
        }
      }
      int next = icu.next();
      if (next == DONE) {
        complete = true;
      } else {
        if (size == found.length) {
          found = Arrays.copyOf(found, size * 2);
        }
        found[size++] = next;
      }
    }
  }

  /** The index of the first known boundary above {@code offset} ({@code size}: none). */
  private int above(int offset) {
    reach(offset);
    int at = Arrays.binarySearch(found, 0, size, offset);
    return at >= 0 ? at + 1 : -at - 1;
  }

  private int at(int index) {
    current = index >= 0 && index < size ? found[index] : DONE;
    return current;
  }

  @Override
  public int first() {
    return current = direct.first();
  }

  @Override
  public int last() {
    reach(Integer.MAX_VALUE - 1);
    return at(size - 1);
  }

  @Override
  public int next() {
    return current == DONE ? DONE : following(current);
  }

  @Override
  public int next(int n) {
    int result = current();
    for (int i = 0; i < n && result != DONE; i++) {
      result = next();
    }
    for (int i = 0; i > n && result != DONE; i--) {
      result = previous();
    }
    return result;
  }

  @Override
  public int previous() {
    return current == DONE ? DONE : preceding(current);
  }

  @Override
  public int following(int offset) {
    if (offset < found[0]) {
      return current = direct.following(offset);
    }
    return at(above(offset));
  }

  @Override
  public int preceding(int offset) {
    if (offset <= found[0]) {
      return current = direct.preceding(offset);
    }
    int above = above(offset - 1); // the first boundary at or above offset
    return at(above - 1);
  }

  @Override
  public boolean isBoundary(int offset) {
    if (offset < found[0]) {
      boolean boundary = direct.isBoundary(offset);
      current = direct.current();
      return boundary;
    }
    reach(offset);
    boolean boundary = Arrays.binarySearch(found, 0, size, offset) >= 0;
    following(offset - 1);
    return boundary;
  }

  @Override
  public int current() {
    return current;
  }
}
