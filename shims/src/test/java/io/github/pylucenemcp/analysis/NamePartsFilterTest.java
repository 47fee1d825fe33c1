package io.github.pylucenemcp.analysis;

import static org.junit.Assert.assertEquals;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.OffsetAttribute;
import org.apache.lucene.analysis.tokenattributes.PositionIncrementAttribute;
import org.junit.Test;

public class NamePartsFilterTest {
  /** Each token as {@code term@position[start,end)}. */
  private static List<String> tokens(Analyzer analyzer, String text) throws IOException {
    List<String> out = new ArrayList<>();
    try (TokenStream ts = analyzer.tokenStream("content", text)) {
      CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
      PositionIncrementAttribute increment = ts.addAttribute(PositionIncrementAttribute.class);
      OffsetAttribute offset = ts.addAttribute(OffsetAttribute.class);
      ts.reset();
      int position = -1;
      while (ts.incrementToken()) {
        position += increment.getPositionIncrement();
        out.add(
            term + "@" + position + "[" + offset.startOffset() + "," + offset.endOffset() + ")");
      }
      ts.end();
    }
    return out;
  }

  @Test
  public void aJoinedNameIsKeptWholeWithItsPartsAtItsPosition() throws IOException {
    assertEquals(
        List.of(
            "call@0[0,4)",
            "elementtree.write@1[5,22)",
            "elementtree@1[5,16)",
            "element@1[5,12)",
            "tree@1[12,16)",
            "write@1[17,22)",
            "now@2[25,28)"),
        tokens(Analyzers.content(), "call ElementTree.write() now"));
    assertEquals(
        List.of("dhua.sty@0[0,8)", "dhua@0[0,4)", "sty@0[5,8)"),
        tokens(Analyzers.content(), "dhua.sty"));
    assertEquals(
        List.of("file_name@0[0,9)", "file@0[0,4)", "name@0[5,9)"),
        tokens(Analyzers.content(), "file_name"));
    assertEquals(
        List.of("getindexstats@0[0,13)", "get@0[0,3)", "index@0[3,8)", "stats@0[8,13)"),
        tokens(Analyzers.content(), "getIndexStats"));
    assertEquals(
        List.of("httpserver@0[0,10)", "http@0[0,4)", "server@0[4,10)"),
        tokens(Analyzers.content(), "HTTPServer"));
    // a possessive stands for its owner too: "LaTeX hook" finds "LaTeX's hook"; the typographic
    // apostrophe is the plain one once normalized
    assertEquals(
        List.of("latex's@0[0,7)", "latex@0[0,5)", "la@0[0,2)", "te@0[2,4)", "hook@1[8,12)"),
        tokens(Analyzers.content(), "LaTeX's hook"));
    assertEquals(List.of("anna's@0[0,6)", "anna@0[0,4)"), tokens(Analyzers.content(), "Anna’s"));
  }

  @Test
  public void wordsNumbersAndOneLetterPiecesStayAsTheyWere() throws IOException {
    assertEquals(
        List.of(
            "strasse@0[0,6)", "3.14@1[7,11)", "1.2.3@2[12,17)", "nasa@3[18,22)", "e.g@4[23,26)"),
        tokens(Analyzers.content(), "Straße 3.14 1.2.3 NASA e.g."));
    // a ligature the char filter expanded: the parts take the whole token's offsets
    assertEquals(
        List.of("finance.py@0[0,9)", "finance@0[0,9)", "py@0[0,9)"),
        tokens(Analyzers.content(), "\uFB01nance.py"));
  }

  @Test
  public void queriesKeepTheWholeNameAndTheTwinsSplitAsTheContentDoes() throws IOException {
    assertEquals(
        List.of("elementtree.write@0[0,17)"),
        tokens(Analyzers.content(false), "ElementTree.write"));
    assertEquals(
        List.of("yts.auhd@0[0,8)", "auhd@0[0,4)", "yts@0[5,8)"),
        tokens(Analyzers.reversed(), "dhua.sty"));
    assertEquals(
        List.of("mullervertrag@0[0,14)", "muller@0[0,7)", "vertrag@0[7,14)"),
        tokens(Analyzers.translitDe(), "MuellerVertrag"));
  }
}
