package io.github.pylucenemcp.highlight;

import java.text.CharacterIterator;
import java.util.Locale;

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

  @Override
  public int next() {
    int boundary = icu.next();
    while (!keeps(boundary)) {
      boundary = icu.next();
    }
    return boundary;
  }

  @Override
  public int previous() {
    int boundary = icu.previous();
    while (!keeps(boundary)) {
      boundary = icu.previous();
    }
    return boundary;
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
    int boundary = icu.following(offset);
    while (!keeps(boundary)) {
      boundary = icu.next();
    }
    return boundary;
  }

  @Override
  public int preceding(int offset) {
    int boundary = icu.preceding(offset);
    while (!keeps(boundary)) {
      boundary = icu.previous();
    }
    return boundary;
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
