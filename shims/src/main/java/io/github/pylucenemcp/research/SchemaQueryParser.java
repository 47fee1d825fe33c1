package io.github.pylucenemcp.research;

import io.github.pylucenemcp.queryparser.UnknownFieldException;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.Term;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.PrefixQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TermRangeQuery;
import org.apache.lucene.search.WildcardQuery;

/**
 * Lucene's classic syntax over a research index's own schema: a keyword field matches its exact
 * value ({@code id:CACM-0001}; patterns and ranges of raw values too), a long field takes exact
 * values and ranges as points ({@code year:[1970 TO 1975]}, {@code year:{1970 TO *]}), a text
 * field is analysed as always; a field the schema does not have is refused. (The classic parser
 * analyses every field with the text analyzer: {@code id:doc-1} searched "doc" and "1", and a
 * range over a long field compared text.) Not thread-safe: one per parse.
 */
public final class SchemaQueryParser extends QueryParser {
  private final Set<String> keywords;
  private final Set<String> longs;
  private final Set<String> fields;

  public SchemaQueryParser(
      String defaultField,
      Analyzer analyzer,
      Set<String> fields,
      Set<String> keywords,
      Set<String> longs) {
    super(defaultField, analyzer);
    this.fields = Set.copyOf(fields);
    this.keywords = Set.copyOf(keywords);
    this.longs = Set.copyOf(longs);
  }

  private void check(String field) throws ParseException {
    if (!fields.contains(field)) {
      throw new UnknownFieldException(field, fields);
    }
  }

  private static long number(String field, String text) throws ParseException {
    try {
      return Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw new ParseException(
          "field '"
              + field
              + "' holds whole numbers; '"
              + text
              + "' is not one (write "
              + field
              + ":1975 or "
              + field
              + ":[1970 TO 1975])");
    }
  }

  @Override
  protected Query getFieldQuery(String field, String queryText, boolean quoted)
      throws ParseException {
    check(field);
    if (keywords.contains(field)) {
      return new TermQuery(new Term(field, queryText));
    }
    if (longs.contains(field)) {
      return LongPoint.newExactQuery(field, number(field, queryText));
    }
    return super.getFieldQuery(field, queryText, quoted);
  }

  @Override
  protected Query getFieldQuery(String field, String queryText, int slop) throws ParseException {
    check(field);
    if (keywords.contains(field) || longs.contains(field)) {
      return getFieldQuery(field, queryText, true);
    }
    return super.getFieldQuery(field, queryText, slop);
  }

  @Override
  protected Query getRangeQuery(
      String field, String part1, String part2, boolean startInclusive, boolean endInclusive)
      throws ParseException {
    check(field);
    if (longs.contains(field)) {
      long lower = part1 == null ? Long.MIN_VALUE : number(field, part1);
      long upper = part2 == null ? Long.MAX_VALUE : number(field, part2);
      if (!startInclusive && part1 != null) {
        lower = lower == Long.MAX_VALUE ? lower : lower + 1;
      }
      if (!endInclusive && part2 != null) {
        upper = upper == Long.MIN_VALUE ? upper : upper - 1;
      }
      return LongPoint.newRangeQuery(field, lower, upper);
    }
    if (keywords.contains(field)) {
      return TermRangeQuery.newStringRange(field, part1, part2, startInclusive, endInclusive);
    }
    return super.getRangeQuery(field, part1, part2, startInclusive, endInclusive);
  }

  @Override
  protected Query getPrefixQuery(String field, String termStr) throws ParseException {
    check(field);
    if (keywords.contains(field)) {
      return new PrefixQuery(new Term(field, termStr));
    }
    refuseOnLong(field, termStr + "*");
    return super.getPrefixQuery(field, termStr);
  }

  @Override
  protected Query getWildcardQuery(String field, String termStr) throws ParseException {
    if ("*".equals(field) && "*".equals(termStr)) {
      return super.getWildcardQuery(field, termStr); // *:* every document
    }
    check(field);
    if (keywords.contains(field)) {
      return new WildcardQuery(new Term(field, termStr));
    }
    refuseOnLong(field, termStr);
    return super.getWildcardQuery(field, termStr);
  }

  @Override
  protected Query getFuzzyQuery(String field, String termStr, float minSimilarity)
      throws ParseException {
    check(field);
    refuseOnLong(field, termStr + "~");
    return super.getFuzzyQuery(field, termStr, minSimilarity);
  }

  @Override
  protected Query getRegexpQuery(String field, String termStr) throws ParseException {
    check(field);
    refuseOnLong(field, "/" + termStr + "/");
    return super.getRegexpQuery(field, termStr);
  }

  private void refuseOnLong(String field, String written) throws ParseException {
    if (longs.contains(field)) {
      throw new ParseException(
          "field '"
              + field
              + "' holds whole numbers; "
              + field
              + ":"
              + written
              + " is a pattern of text (write a range: "
              + field
              + ":[1970 TO 1979])");
    }
  }
}
