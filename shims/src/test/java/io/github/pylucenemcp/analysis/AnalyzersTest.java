package io.github.pylucenemcp.analysis;

import static org.junit.Assert.assertEquals;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
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
}
