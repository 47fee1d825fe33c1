package io.github.pylucenemcp.search;

import io.github.pylucenemcp.queryparser.ContentQueryParser;
import io.github.pylucenemcp.schema.FieldSchema;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;

/**
 * The parsing of a search's texts for one index (its schema and query analyzer): a text parsed for
 * searching and for highlighting ({@link Parsed}), a counted query's text for matching alone, each
 * parsed once and kept among the last {@link #PARSED_KEPT}; the errors a text can cause as the
 * {@link ParseException} the caller answers as a syntax error. Thread-safe: a new parser per parse,
 * the kept queries immutable.
 */
final class QueryParsing {
  private final FieldSchema schema;
  private final Analyzer queryAnalyzer;

  // the texts parsed last, by operator, word forms and text: a search parses its text (for
  // searching, highlighting and each field also searched, each a run of the parser) only the
  // first time; paging, filtering, counting and profiling it again
  // take the queries as they are (immutable, so shared by threads)
  private final Map<String, Parsed> parsedTexts =
      Collections.synchronizedMap(
          new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Parsed> eldest) {
              return size() > PARSED_KEPT;
            }
          });

  /** How many parsed texts are kept (see {@code parsedTexts}). */
  static final int PARSED_KEPT = 256;

  QueryParsing(FieldSchema schema, Analyzer queryAnalyzer) {
    this.schema = schema;
    this.queryAnalyzer = queryAnalyzer;
  }

  public ContentQueryParser parser(boolean and, boolean highlight) {
    return parser(and, highlight, true);
  }

  /** A parser; {@code wordForms}: words and phrases also match their lemmas (see there). */
  public ContentQueryParser parser(boolean and, boolean highlight, boolean wordForms) {
    // unfielded words in every field the schema searches, clause by clause (see there)
    ContentQueryParser parser = new ContentQueryParser(schema, queryAnalyzer, highlight, true);
    parser.setDefaultOperator(and ? QueryParser.Operator.AND : QueryParser.Operator.OR);
    parser.setWordForms(wordForms);
    return parser;
  }

  /**
   * Parses for searching and for highlighting.
   *
   * @throws ParseException for a malformed query or an unknown field
   */
  public Parsed parse(String text, boolean and) throws ParseException {
    return parse(text, and, true);
  }

  /**
   * Parses for searching and for highlighting; with {@code wordForms}, words and phrases also match
   * other forms of their words (the lemma fields).
   *
   * @throws ParseException for a malformed query or an unknown field
   */
  public Parsed parse(String text, boolean and, boolean wordForms) throws ParseException {
    String key = (and ? "A" : "O") + (wordForms ? "F" : "X") + text;
    Parsed known = parsedTexts.get(key);
    if (known == null) {
      known = parseAnew(text, and, wordForms);
      parsedTexts.put(key, known);
    }
    return known;
  }

  private Parsed parseAnew(String text, boolean and, boolean wordForms) throws ParseException {
    if (matchAll(text)) {
      Query all = MatchAllDocsQuery.INSTANCE;
      return new Parsed(all, all, all, List.of(), true);
    }
    Query query = parser(and, false, wordForms).parse(text);
    ContentQueryParser highlighter = parser(and, true, wordForms);
    Query highlight = highlighter.parse(text);
    return new Parsed(query, query, highlight, highlighter.getUnits(), false);
  }

  static boolean matchAll(String text) {
    String trimmed = text.strip();
    return trimmed.equals("*") || trimmed.equals("*:*");
  }

  /** What a search of {@code text} matches and scores ({@link Parsed#matchQuery}) alone. */
  private Query matchQuery(String text, boolean and, boolean wordForms) throws ParseException {
    if (matchAll(text)) {
      return MatchAllDocsQuery.INSTANCE;
    }
    String key = (and ? "a" : "o") + (wordForms ? "F" : "X") + text;
    Parsed known = parsedTexts.get(key);
    if (known == null) {
      Query match = parser(and, false, wordForms).parse(text);
      known = new Parsed(match, match, null, List.of(), false);
      parsedTexts.put(key, known);
    }
    return known.matchQuery;
  }

  /** {@link #parse}, with the errors of {@link #syntaxError}. */
  Parsed parseChecked(String text, boolean and, boolean wordForms) throws ParseException {
    try {
      return parse(text, and, wordForms);
    } catch (ParseException | IllegalArgumentException e) {
      throw syntaxError(e);
    }
  }

  /** A counted query: its {@link #matchQuery}, with the errors of {@link #syntaxError}. */
  Query countedQuery(String text, boolean and, boolean wordForms) throws ParseException {
    try {
      return matchQuery(text, and, wordForms);
    } catch (ParseException | IllegalArgumentException e) {
      throw syntaxError(e);
    }
  }

  /**
   * What the text can cause, as the ParseException that the caller answers as a syntax error. Only
   * that counts: a regular expression that does not parse is an IllegalArgumentException; too many
   * clauses and a too complex automaton keep their own types (each has its message); any other
   * RuntimeException is a bug of this code, and must not reach the user as "bad syntax".
   */
  private static ParseException syntaxError(Exception e) {
    ParseException failed = new ParseException("cannot parse the query: " + e.getMessage());
    failed.initCause(e);
    return failed;
  }
}
