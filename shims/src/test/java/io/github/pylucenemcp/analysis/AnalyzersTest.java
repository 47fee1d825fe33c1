package io.github.pylucenemcp.analysis;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.PositionIncrementAttribute;
import org.junit.Test;

public class AnalyzersTest {
  static List<String> tokens(Analyzer analyzer, String text) throws IOException {
    List<String> out = new ArrayList<>();
    try (TokenStream ts = analyzer.tokenStream("f", text)) {
      CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
      ts.reset();
      while (ts.incrementToken()) {
        out.add(term.toString());
      }
      ts.end();
    }
    return out;
  }

  @Test
  public void contentNormalizesLigaturesFoldsAndLowercases() throws IOException {
    assertEquals(
        List.of("finance", "cafe", "muller", "strasse"),
        tokens(Analyzers.content(), "\uFB01nance Café Müller Straße"));
  }

  @Test
  public void reversedReversesFoldedTokens() throws IOException {
    assertEquals(List.of("gartrevstiebra"), tokens(Analyzers.reversed(), "Arbeitsvertrag"));
  }

  @Test
  public void translitMakesDigraphsAndUmlautsMeet() throws IOException {
    Analyzer a = Analyzers.translitDe();
    assertEquals(tokens(a, "Müller Straße Käse"), tokens(a, "Mueller Strasse Kaese"));
    assertEquals(List.of("muller", "strasse", "kase"), tokens(a, "Mueller Strasse Kaese"));
  }

  @Test
  public void englishLemmasMeetRegularAndIrregularForms() throws IOException {
    Analyzer a = Analyzers.lemma("en");
    assertEquals(
        List.of("lock", "font", "encoding", "exception", "child", "go", "mouse"),
        tokens(a, "locks fonts encodings Exceptions children went mice"));
    // "locked" is also an adjective of its own: both readings, at one position
    assertEquals(List.of("locked", "lock"), tokens(a, "locked"));
  }

  @Test
  public void germanLemmasFoldAfterTheLookup() throws IOException {
    Analyzer a = Analyzers.lemma("de");
    // Häuser → Haus → haus; a lowercase noun is looked up capitalized; ging → gehen
    assertEquals(
        List.of("haus", "haus", "vertrag", "gehen"), tokens(a, "Häuser häuser Verträge ging"));
  }

  @Test
  public void aGermanCompoundOutsideTheDictionaryTakesItsTailsForms() throws IOException {
    Analyzer de = Analyzers.lemma("de");
    // neither is in the dictionary; Trennung(en) is: both meet at one term
    assertEquals(List.of("silbentrennung"), tokens(de, "Silbentrennungen"));
    assertEquals(List.of("silbentrennung"), tokens(de, "Silbentrennung"));
    // a known word keeps its own lemma, an unknown word without a known tail stays
    assertEquals(List.of("vertrag"), tokens(de, "Verträge"));
    assertEquals(List.of("xyzzyq"), tokens(de, "Xyzzyq"));
    // English has no such fallback
    assertEquals(List.of("silbentrennungen"), tokens(Analyzers.lemma("en"), "Silbentrennungen"));
  }

  @Test
  public void anUnknownWordStaysAndAnAmbiguousOneKeepsItsPosition() throws IOException {
    Analyzer a = Analyzers.lemma("en");
    assertEquals(List.of("xyzzyq", "42"), tokens(a, "Xyzzyq 42"));
    assertEquals(List.of("bill"), tokens(a, "Bill")); // the name and the noun: one term
    List<String> saw = new ArrayList<>();
    List<Integer> increments = new ArrayList<>();
    try (TokenStream ts = a.tokenStream("f", "I saw it")) {
      CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
      PositionIncrementAttribute inc = ts.addAttribute(PositionIncrementAttribute.class);
      ts.reset();
      while (ts.incrementToken()) {
        saw.add(term.toString());
        increments.add(inc.getPositionIncrement());
      }
      ts.end();
    }
    assertTrue(saw.toString(), saw.contains("see") && saw.contains("saw"));
    assertEquals(saw.size() - 3, increments.stream().filter(i -> i == 0).count());
  }

  @Test(expected = IllegalArgumentException.class)
  public void aLanguageWithoutDictionaryIsRefused() {
    Analyzers.lemma("fr");
  }

  @Test
  public void aFileNameIsSplitIntoItsWordsAndKeptWhole() throws IOException {
    List<String> tokens = tokens(Analyzers.fileName(), "Annual_Report-2024 Überblick.PDF");
    assertTrue(tokens.toString(), tokens.containsAll(List.of("annual", "report", "2024", "pdf")));
    assertTrue(tokens.toString(), tokens.contains("annual_report-2024"));
    assertTrue(tokens.toString(), tokens.contains("uberblick"));
    assertEquals(List.of("notes.txt", "notes", "txt"), tokens(Analyzers.fileName(), "notes.txt"));
    assertTrue(tokens(Analyzers.fileName(), "myReport.docx").containsAll(List.of("my", "report")));
  }
}
