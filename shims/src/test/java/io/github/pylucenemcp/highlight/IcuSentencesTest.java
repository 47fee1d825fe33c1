package io.github.pylucenemcp.highlight;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import java.text.BreakIterator;
import java.util.Locale;
import java.util.Random;
import org.apache.lucene.util.BytesRef;
import org.junit.Test;

public class IcuSentencesTest {
  private static final String TEXT =
      "Mietvertrag für Wohnraum\nDer Vermieter Herr Groß vermietet die Wohnung. Sie ist groß! "
          + "Ist sie teuer? Nein… Das kostet 4.200 Euro, z. B. im Mai.\n\n§ 2 Tätigkeit. Ende";

  @Test
  public void theBoundariesAreIcusInAnyOrderOfQuestions() {
    sameAsIcu(TEXT, new Random(7));
  }

  @Test
  public void aLongTextWithJumpsFarAheadAndBackHasIcusBoundariesToo() {
    // far more than IcuSentences.GAP: questions jump ahead, and back before the jump
    sameAsIcu(TEXT.repeat(400), new Random(11));
    String ascending = TEXT.repeat(400);
    IcuSentences sentences = new IcuSentences();
    sentences.setText(ascending);
    com.ibm.icu.text.BreakIterator icu =
        com.ibm.icu.text.BreakIterator.getSentenceInstance(Locale.ROOT);
    icu.setText(ascending);
    for (int offset = 0; offset < ascending.length(); offset += 997) { // as the highlighter asks
      assertEquals(icu.preceding(offset + 1), sentences.preceding(offset + 1));
      assertEquals(icu.following(offset), sentences.following(offset));
    }
  }

  @Test
  public void boundariesKeptWhenTheTextWasIndexedAnswerAsIcuDoes() {
    String text = TEXT.repeat(400);
    int[] kept = SentenceIndex.decode(SentenceIndex.encode(text), text.length());
    IcuSentences sentences = new IcuSentences(text, kept);
    sameAsIcu(text, new Random(13), sentences);
    // the kept ones are ICU's own, walked forward from the start
    com.ibm.icu.text.BreakIterator icu =
        com.ibm.icu.text.BreakIterator.getSentenceInstance(Locale.ROOT);
    icu.setText(text);
    int i = 0;
    for (int b = icu.first(); b != BreakIterator.DONE; b = icu.next()) {
      assertEquals(b, kept[i++]);
    }
    assertEquals(kept.length, i);
  }

  @Test
  public void keptBoundariesThatCannotBeTheTextsAreNotUsed() {
    assertNull(SentenceIndex.decode(SentenceIndex.encode(TEXT), TEXT.length() + 1));
    BytesRef value = SentenceIndex.encode(TEXT);
    value.length -= 1; // cut short
    assertNull(SentenceIndex.decode(value, TEXT.length()));
    assertNull(SentenceIndex.decode(new BytesRef(new byte[] {(byte) 0xff}), TEXT.length()));
  }

  private static void sameAsIcu(String text, Random random) {
    sameAsIcu(text, random, new IcuSentences());
  }

  private static void sameAsIcu(String text, Random random, IcuSentences sentences) {
    com.ibm.icu.text.BreakIterator icu =
        com.ibm.icu.text.BreakIterator.getSentenceInstance(Locale.ROOT);
    icu.setText(text);
    sentences.setText(text);
    for (int i = 0; i < 2000; i++) {
      int offset = random.nextInt(text.length() + 1);
      switch (random.nextInt(3)) {
        case 0 ->
            assertEquals("following " + offset, icu.following(offset), sentences.following(offset));
        case 1 ->
            assertEquals("preceding " + offset, icu.preceding(offset), sentences.preceding(offset));
        default -> {
          assertEquals(
              "isBoundary " + offset, icu.isBoundary(offset), sentences.isBoundary(offset));
          assertEquals("current " + offset, icu.current(), sentences.current());
        }
      }
    }
    assertEquals(icu.first(), sentences.first());
    for (int b = icu.next(); b != BreakIterator.DONE; b = icu.next()) {
      assertEquals(b, sentences.next());
    }
    assertEquals(BreakIterator.DONE, sentences.next());
    assertEquals(icu.last(), sentences.last());
    assertEquals(icu.previous(), sentences.previous());
  }
}
