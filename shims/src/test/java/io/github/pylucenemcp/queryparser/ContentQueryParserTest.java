package io.github.pylucenemcp.queryparser;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.github.pylucenemcp.analysis.Analyzers;
import io.github.pylucenemcp.schema.FieldSchema;
import java.util.Set;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.search.Query;
import org.junit.Test;

public class ContentQueryParserTest {
  static ContentQueryParser parser(boolean highlight) {
    FieldSchema schema =
        FieldSchema.builder()
            .content("content", "content_reversed", "content_translit_de")
            .text(Set.of("content", "title"))
            .keyword(Set.of("file_path", "language"))
            .longs(Set.of("file_size"))
            .dates(Set.of("modified_date"))
            .build();
    return new ContentQueryParser(
        schema,
        Analyzers.perField(
            "content_reversed", "content_translit_de", Set.of("file_path"), Set.of("language")),
        highlight);
  }

  static String parse(String query) throws ParseException {
    return parser(false).parse(query).toString();
  }

  static String parseAnd(String query) throws ParseException {
    ContentQueryParser parser = parser(false);
    parser.setDefaultOperator(ContentQueryParser.Operator.AND);
    return parser.parse(query).toString();
  }

  @Test
  public void wordsSideBySideBindTighterThanOr() throws ParseException {
    assertEquals(
        "(+content:machine +content:learning) (+content:deep +content:learning)",
        parseAnd("machine learning OR deep learning"));
    assertEquals("content:a (+content:b +content:c)", parseAnd("a OR b c"));
    assertEquals("(+content:a -content:b) content:c", parseAnd("a -b OR c"));
    assertEquals("+content:a +content:b", parseAnd("a b")); // no OR: the classic query
    assertEquals("content:a content:b", parse("a b")); // OR as the default: unchanged
  }

  @Test
  public void exclusionsAloneExcludeFromEveryDocument() throws ParseException {
    assertEquals("+*:* -content:draft", parseAnd("NOT draft"));
    assertEquals("content:a (+*:* -content:b)", parseAnd("a OR NOT b"));
  }

  @Test
  public void rankedPatternsAndFuzzyWordsMatchEveryTerm() throws ParseException {
    for (String query : new String[] {"sign*", "*vertrag*", "mayer~1"}) {
      org.apache.lucene.search.MultiTermQuery parsed =
          (org.apache.lucene.search.MultiTermQuery) parser(false).parse(query);
      assertEquals(RankedPatterns.ALL_TERMS_RANKED, parsed.getRewriteMethod());
    }
  }

  @Test
  public void leadingWildcardBecomesAReversedPatternWithAFixedPrefix() throws ParseException {
    assertEquals("content_reversed:gartrev*", parse("*Vertrag"));
  }

  @Test
  public void leadingWildcardStaysOnContentInHighlightMode() throws ParseException {
    assertEquals("content:*vertrag", parser(true).parse("*Vertrag").toString());
  }

  @Test
  public void infixWildcardStaysOnContent() throws ParseException {
    assertEquals("content:*vertrag*", parse("*vertrag*"));
  }

  @Test
  public void digraphsAndUmlautsAlsoSearchTheTranslitTwin() throws ParseException {
    assertEquals("content:mueller content_translit_de:muller", parse("Mueller"));
    assertEquals("content:kase content_translit_de:kase", parse("Käse"));
    assertEquals("content:contract", parse("contract"));
  }

  @Test
  public void proximityAppliesToBothTwins() throws ParseException {
    assertEquals(
        "content:\"strasse mueller\"~2 content_translit_de:\"strasse muller\"~2",
        parse("\"Strasse Mueller\"~2"));
  }

  @Test
  public void dateValuesAndRangesBecomePointQueries() throws ParseException {
    Query day = parser(false).parse("modified_date:2024-01-01");
    assertEquals(
        LongPoint.newRangeQuery("modified_date", 1704067200000L, 1704067200000L + 86_399_999L),
        day);
    Query open = parser(false).parse("modified_date:[2024-01-01 TO *]");
    assertEquals(LongPoint.newRangeQuery("modified_date", 1704067200000L, Long.MAX_VALUE), open);
    Query size = parser(false).parse("file_size:{10 TO 20}");
    assertEquals(LongPoint.newRangeQuery("file_size", 11, 19), size);
  }

  @Test
  public void badDatesAndNumbersSayWhatIsAccepted() {
    ParseException e =
        assertThrows(ParseException.class, () -> parser(false).parse("modified_date:[soon TO *]"));
    assertTrue(e.getMessage(), e.getMessage().contains("2024-01-01T10:30:00Z"));
    e = assertThrows(ParseException.class, () -> parser(false).parse("file_size:[big TO *]"));
    assertTrue(e.getMessage(), e.getMessage().contains("whole numbers"));
  }

  @Test
  public void unknownFieldsAreRefusedWithTheValidOnes() {
    ParseException e = assertThrows(ParseException.class, () -> parser(false).parse("year:2024"));
    UnknownFieldException unknown = (UnknownFieldException) e.getCause();
    assertEquals("year", unknown.getField());
    assertTrue(Set.of(unknown.getValidFields()).contains("modified_date"));
  }

  @Test
  public void unitsAreRecordedPerTermPhraseAndPattern() throws ParseException {
    ContentQueryParser p = parser(true);
    p.parse("contract AND \"signed deal\" OR *vertrag* -title:draft");
    assertEquals(3, p.getUnits().size());
  }

  @Test
  public void regexRepeatsAreBoundedBeforeAnAutomatonIsBuilt() throws ParseException {
    ParseException e =
        assertThrows(ParseException.class, () -> parser(false).parse("lease /a{1,100000}/"));
    assertTrue(e.getMessage(), e.getMessage().contains("repeats {1,100000} at position 1"));
    assertTrue(e.getMessage(), e.getMessage().contains("at most 100"));
    assertThrows(ParseException.class, () -> parser(false).parse("/x{5000}/"));
    assertTrue(parse("/a{1,100}b/"), parse("/a{1,100}b/").contains("/a{1,100}b/"));
  }

  @Test
  public void caselessKeywordFieldsAreLoweredAndPathsKeepTheirCase() throws ParseException {
    assertEquals("language:de", parse("language:DE"));
    assertEquals("language:d*", parse("language:D*"));
    assertEquals("file_path:/Docs/A.TXT", parse("file_path:\"/Docs/A.TXT\""));
  }
}
