package io.github.pylucenemcp.highlight;

import static org.junit.Assert.assertEquals;

import java.text.BreakIterator;
import java.util.Locale;
import java.util.Random;
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

  private static void sameAsIcu(String text, Random random) {
    com.ibm.icu.text.BreakIterator icu =
        com.ibm.icu.text.BreakIterator.getSentenceInstance(Locale.ROOT);
    icu.setText(text);
    IcuSentences sentences = new IcuSentences();
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
