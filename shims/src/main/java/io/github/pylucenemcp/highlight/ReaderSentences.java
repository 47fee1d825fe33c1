package io.github.pylucenemcp.highlight;

import java.text.CharacterIterator;
import java.util.Locale;
import java.util.function.IntSupplier;

/**
 * ICU's sentence boundaries ({@link Locale#ROOT}) less those {@link SentenceRules} drops: the
 * sentences of passages, found the same way when a text is indexed ({@link SentenceIndex}) and when
 * it is highlighted ({@link IcuSentences}).
 */
final class ReaderSentences extends com.ibm.icu.text.BreakIterator {
  private final com.ibm.icu.text.BreakIterator icu =
      com.ibm.icu.text.BreakIterator.getSentenceInstance(Locale.ROOT);
  private CharSequence chars = "";

  @Override
  public void setText(String text) {
    icu.setText(text);
    chars = text;
  }

  @Override
  public void setText(CharacterIterator text) {
    icu.setText(text);
    chars = new Chars((CharacterIterator) text.clone());
  }

  @Override
  public CharacterIterator getText() {
    return icu.getText();
  }

  private boolean keeps(int boundary) {
    return boundary == DONE || SentenceRules.keeps(chars, boundary);
  }

  @Override
  public int first() {
    return icu.first();
  }

  @Override
  public int last() {
    return icu.last();
  }

  @Override
  public int current() {
    return icu.current();
  }

  /** {@code boundary}, or the first one {@code onward} then gives that the rules keep. */
  private int kept(int boundary, IntSupplier onward) {
    int at = boundary;
    while (!keeps(at)) {
      at = onward.getAsInt();
    }
    return at;
  }

  @Override
  public int next() {
    return kept(icu.next(), icu::next);
  }

  @Override
  public int previous() {
    return kept(icu.previous(), icu::previous);
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
  public int following(int offset) {
    return kept(icu.following(offset), icu::next);
  }

  @Override
  public int preceding(int offset) {
    return kept(icu.preceding(offset), icu::previous);
  }

  @Override
  public boolean isBoundary(int offset) {
    following(offset - 1);
    return current() == offset;
  }

  /** The characters of an iterator as a sequence (from its begin index). */
  private static final class Chars implements CharSequence {
    private final CharacterIterator text;

    Chars(CharacterIterator text) {
      this.text = text;
    }

    @Override
    public int length() {
      return text.getEndIndex() - text.getBeginIndex();
    }

    @Override
    public char charAt(int index) {
      return text.setIndex(text.getBeginIndex() + index);
    }

    @Override
    public CharSequence subSequence(int start, int end) {
      StringBuilder out = new StringBuilder(end - start);
      for (int i = start; i < end; i++) {
        out.append(charAt(i));
      }
      return out;
    }

    @Override
    public String toString() {
      return subSequence(0, length()).toString();
    }
  }
}
