package io.github.pylucenemcp.highlight;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import java.text.BreakIterator;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.apache.lucene.util.BytesRef;
import org.junit.Test;

public class IcuSentencesTest {
  private static final String TEXT =
      "Mietvertrag für Wohnraum\nDer Vermieter Herr Groß vermietet die Wohnung. Sie ist groß! "
          + "Ist sie teuer? Nein… Das kostet 4.200 Euro, z. B. im Mai.\n\n§ 2 Tätigkeit. Am 1. "
          + "April kam Dr. Weber, die\nsie kannte. Ende";

  @Test
  public void theBoundariesAreTheWalkedOnesInAnyOrderOfQuestions() {
    sameAsWalked(TEXT, new Random(7));
  }

  @Test
  public void aLongTextWithJumpsFarAheadAndBackHasTheSameBoundaries() {
    // far more than IcuSentences.GAP: questions jump ahead, and back before the jump
    sameAsWalked(TEXT.repeat(400), new Random(11));
    String ascending = TEXT.repeat(400);
    IcuSentences sentences = new IcuSentences();
    sentences.setText(ascending);
    Walked walked = new Walked(ascending);
    for (int offset = 0; offset < ascending.length(); offset += 997) { // as the highlighter asks
      assertEquals(walked.preceding(offset + 1), sentences.preceding(offset + 1));
      assertEquals(walked.following(offset), sentences.following(offset));
    }
  }

  @Test
  public void boundariesKeptWhenTheTextWasIndexedAnswerAsFoundOnes() {
    String text = TEXT.repeat(400);
    int[] kept = SentenceIndex.decode(SentenceIndex.encode(text), text.length());
    sameAsWalked(text, new Random(13), new IcuSentences(text, kept));
    assertArrayEquals(new Walked(text).boundaries, kept);
  }

  @Test
  public void keptBoundariesThatCannotBeTheTextsAreNotUsed() {
    assertNull(SentenceIndex.decode(SentenceIndex.encode(TEXT), TEXT.length() + 1));
    BytesRef value = SentenceIndex.encode(TEXT);
    value.length -= 1; // cut short
    assertNull(SentenceIndex.decode(value, TEXT.length()));
    assertNull(SentenceIndex.decode(new BytesRef(new byte[] {(byte) 0xff}), TEXT.length()));
  }

  @Test
  public void aGermanOrdinalEndsNoSentence() {
    assertEquals(
        List.of(
            "Der Vertrag beginnt am 15. März 2024 und endet am 31. Dezember. ",
            "Danach gilt er im 19. Jahrhundert zum 3. Mal. ",
            "Die Antwort ist 42. ",
            "Danach kam nichts."),
        sentences(
            "Der Vertrag beginnt am 15. März 2024 und endet am 31. Dezember. Danach gilt er im"
                + " 19. Jahrhundert zum 3. Mal. Die Antwort ist 42. Danach kam nichts."));
  }

  @Test
  public void initialsAndAbbreviationsEndNoSentence() {
    assertEquals(
        List.of(
            "Herr Dr. Müller kam, z. B. hier, vgl. Abschnitt 3 bzw. Anhang 2. ",
            "D. E. Knuth wrote it, e.g. Volume 1. ",
            "Mr. Smith came. ",
            "Sie kam."),
        sentences(
            "Herr Dr. Müller kam, z. B. hier, vgl. Abschnitt 3 bzw. Anhang 2. D. E. Knuth wrote"
                + " it, e.g. Volume 1. Mr. Smith came. Sie kam."));
  }

  @Test
  public void aWrappedLineEndsNoSentenceButABlankLineOrAShoutDoes() {
    assertEquals(
        List.of(
            "The package can usually\nbe used in the argument.\n",
            "New line\n",
            "Starts here.\n",
            "\n", // ICU: each line feed
            "next paragraph, really?\n",
            "yes\n",
            "- a list\n",
            "- of items"),
        sentences(
            "The package can usually\nbe used in the argument.\nNew line\nStarts here.\n\n"
                + "next paragraph, really?\nyes\n- a list\n- of items"));
  }

  private static List<String> sentences(String text) {
    IcuSentences sentences = new IcuSentences();
    sentences.setText(text);
    List<String> out = new ArrayList<>();
    int start = sentences.first();
    for (int end = sentences.next(); end != BreakIterator.DONE; end = sentences.next()) {
      out.add(text.substring(start, end));
      start = end;
    }
    assertArrayEquals(
        new Walked(text).boundaries,
        SentenceIndex.decode(SentenceIndex.encode(text), text.length()));
    return out;
  }

  private static void sameAsWalked(String text, Random random) {
    sameAsWalked(text, random, new IcuSentences());
  }

  /**
   * The boundaries by the plain definition: ICU's, walked from the start, each one that {@link
   * SentenceRules} keeps; and the answers of a break iterator over them.
   */
  private static final class Walked {
    final int[] boundaries;
    int current;

    Walked(String text) {
      com.ibm.icu.text.BreakIterator icu =
          com.ibm.icu.text.BreakIterator.getSentenceInstance(Locale.ROOT);
      icu.setText(text);
      List<Integer> kept = new ArrayList<>();
      for (int b = icu.first(); b != BreakIterator.DONE; b = icu.next()) {
        if (SentenceRules.keeps(text, b)) {
          kept.add(b);
        }
      }
      boundaries = kept.stream().mapToInt(Integer::intValue).toArray();
    }

    int following(int offset) {
      for (int b : boundaries) {
        if (b > offset) {
          return current = b;
        }
      }
      return current = BreakIterator.DONE;
    }

    int preceding(int offset) {
      int found = BreakIterator.DONE;
      for (int b : boundaries) {
        if (b < offset) {
          found = b;
        }
      }
      return current = found;
    }

    boolean isBoundary(int offset) {
      following(offset - 1);
      return current == offset;
    }
  }

  private static void sameAsWalked(String text, Random random, IcuSentences sentences) {
    Walked walked = new Walked(text);
    sentences.setText(text);
    for (int i = 0; i < 2000; i++) {
      int offset = random.nextInt(text.length() + 1);
      switch (random.nextInt(3)) {
        case 0 ->
            assertEquals(
                "following " + offset, walked.following(offset), sentences.following(offset));
        case 1 ->
            assertEquals(
                "preceding " + offset, walked.preceding(offset), sentences.preceding(offset));
        default -> {
          assertEquals(
              "isBoundary " + offset, walked.isBoundary(offset), sentences.isBoundary(offset));
          assertEquals("current " + offset, walked.current, sentences.current());
        }
      }
    }
    int[] all = walked.boundaries;
    assertEquals(all[0], sentences.first());
    for (int k = 1; k < all.length; k++) {
      assertEquals(all[k], sentences.next());
    }
    assertEquals(BreakIterator.DONE, sentences.next());
    assertEquals(all[all.length - 1], sentences.last());
    assertEquals(all.length > 1 ? all[all.length - 2] : BreakIterator.DONE, sentences.previous());
  }
}
