package io.github.pylucenemcp.solr;

import io.github.pylucenemcp.queryparser.NamePhraseQuery;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.ConstantScoreQuery;
import org.apache.lucene.search.FuzzyQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.MultiPhraseQuery;
import org.apache.lucene.search.MultiTermQuery;
import org.apache.lucene.search.PhraseQuery;
import org.apache.lucene.search.PrefixQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.RegexpQuery;
import org.apache.lucene.search.SynonymQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TermRangeQuery;
import org.apache.lucene.search.WildcardQuery;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.automaton.Operations;
import org.apache.lucene.util.automaton.RegExp;
import org.apache.solr.common.params.SolrParams;
import org.apache.solr.request.SolrQueryRequest;
import org.apache.solr.search.QParser;
import org.apache.solr.search.QParserPlugin;
import org.apache.solr.search.SyntaxError;
import org.noggit.ObjectBuilder;

/**
 * {@code defType=pylucene}: the query as the product parsed and analysed it, in the JSON of its
 * {@code io.github.pylucenemcp.portable.PortableQuery}, built again node by node with this Lucene's
 * classes. Nothing in it is parsed as query syntax: each term is a term, and a pattern's text is
 * the pattern. A node of a kind not listed there is refused.
 */
public final class PortableQParserPlugin extends QParserPlugin {
  /** The name a request gives as {@code defType}. */
  public static final String NAME = "pylucene";

  @Override
  public QParser createParser(
      String qstr, SolrParams localParams, SolrParams params, SolrQueryRequest req) {
    return new QParser(qstr, localParams, params, req) {
      @Override
      public Query parse() throws SyntaxError {
        try {
          return build(ObjectBuilder.fromJSON(qstr));
        } catch (IOException | RuntimeException e) {
          throw new SyntaxError("not a query of the pylucene-mcp backend: " + e.getMessage(), e);
        }
      }
    };
  }

  /** The query of one JSON node (a map with its kind under {@code "t"}). */
  static Query build(Object json) {
    Map<?, ?> node = (Map<?, ?>) json;
    String kind = text(node, "t");
    return switch (kind) {
      case "term" -> new TermQuery(term(node));
      case "bool" -> bool(node);
      case "boost" -> new BoostQuery(build(node.get("q")), number(node, "b").floatValue());
      case "const" -> new ConstantScoreQuery(build(node.get("q")));
      case "syn" -> synonyms(node);
      case "phrase" -> phrase(node);
      case "namePhrase" -> new NamePhraseQuery((PhraseQuery) phrase((Map<?, ?>) node.get("q")));
      case "multiPhrase" -> multiPhrase(node);
      case "prefix" -> new PrefixQuery(term(node), rewrite(node));
      case "wildcard" ->
          new WildcardQuery(term(node), Operations.DEFAULT_DETERMINIZE_WORK_LIMIT, rewrite(node));
      case "regexp" ->
          // as the product's Lucene 10 parser: every syntax flag but the deprecated complement
          new RegexpQuery(
              term(node),
              RegExp.ALL & ~RegExp.COMPLEMENT,
              0,
              RegexpQuery.DEFAULT_PROVIDER,
              Operations.DEFAULT_DETERMINIZE_WORK_LIMIT,
              rewrite(node));
      case "fuzzy" ->
          new FuzzyQuery(
              term(node),
              number(node, "edits").intValue(),
              number(node, "prefix").intValue(),
              FuzzyQuery.defaultMaxExpansions,
              Boolean.TRUE.equals(node.get("transpositions")),
              Boolean.TRUE.equals(node.get("ranked"))
                  ? AllTermsRanked.INSTANCE
                  : FuzzyQuery.defaultRewriteMethod(FuzzyQuery.defaultMaxExpansions));
      case "termRange" ->
          new TermRangeQuery(
              text(node, "f"),
              bound(node.get("lo")),
              bound(node.get("hi")),
              Boolean.TRUE.equals(node.get("li")),
              Boolean.TRUE.equals(node.get("ui")));
      case "longRange" ->
          LongPoint.newRangeQuery(
              text(node, "f"), number(node, "lo").longValue(), number(node, "hi").longValue());
      case "blend" ->
          new GlobalBlendQuery(text(node, "f"), strings(node.get("v")), floats(node, "b"));
      case "paths" ->
          new PathScoresQuery(text(node, "f"), strings(node.get("v")), floats(node, "s"));
      case "vectorsAbove" ->
          new VectorsAboveQuery(
              text(node, "f"), vector(floats(node, "v")), number(node, "min").floatValue());
      case "all" -> new MatchAllDocsQuery();
      case "none" -> new MatchNoDocsQuery();
      default -> throw new IllegalArgumentException("unknown node kind '" + kind + "'");
    };
  }

  private static Query bool(Map<?, ?> node) {
    BooleanQuery.Builder builder = new BooleanQuery.Builder();
    builder.setMinimumNumberShouldMatch(number(node, "msm").intValue());
    for (Object each : (List<?>) node.get("c")) {
      Map<?, ?> clause = (Map<?, ?>) each;
      builder.add(build(clause.get("q")), BooleanClause.Occur.valueOf(text(clause, "o")));
    }
    return builder.build();
  }

  private static Query synonyms(Map<?, ?> node) {
    String field = text(node, "f");
    SynonymQuery.Builder builder = new SynonymQuery.Builder(field);
    for (Object each : (List<?>) node.get("v")) {
      builder.addTerm(new Term(field, (String) each));
    }
    return builder.build();
  }

  private static Query phrase(Map<?, ?> node) {
    String field = text(node, "f");
    List<?> terms = (List<?>) node.get("v");
    List<?> positions = (List<?>) node.get("pos");
    PhraseQuery.Builder builder = new PhraseQuery.Builder();
    builder.setSlop(number(node, "slop").intValue());
    for (int i = 0; i < terms.size(); i++) {
      builder.add(new Term(field, (String) terms.get(i)), ((Number) positions.get(i)).intValue());
    }
    return builder.build();
  }

  private static Query multiPhrase(Map<?, ?> node) {
    String field = text(node, "f");
    List<?> terms = (List<?>) node.get("v");
    List<?> positions = (List<?>) node.get("pos");
    MultiPhraseQuery.Builder builder = new MultiPhraseQuery.Builder();
    builder.setSlop(number(node, "slop").intValue());
    for (int i = 0; i < terms.size(); i++) {
      List<?> atPosition = (List<?>) terms.get(i);
      Term[] each = new Term[atPosition.size()];
      for (int j = 0; j < each.length; j++) {
        each[j] = new Term(field, (String) atPosition.get(j));
      }
      builder.add(each, ((Number) positions.get(i)).intValue());
    }
    return builder.build();
  }

  private static List<String> strings(Object value) {
    List<String> out = new java.util.ArrayList<>();
    for (Object each : (List<?>) value) {
      out.add((String) each);
    }
    return out;
  }

  /** The numbers under {@code key} (none when it is absent). */
  private static List<Float> floats(Map<?, ?> node, String key) {
    List<Float> out = new java.util.ArrayList<>();
    Object value = node.get(key);
    if (value != null) {
      for (Object each : (List<?>) value) {
        out.add(((Number) each).floatValue());
      }
    }
    return out;
  }

  private static float[] vector(List<Float> numbers) {
    float[] out = new float[numbers.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = numbers.get(i);
    }
    return out;
  }

  private static MultiTermQuery.RewriteMethod rewrite(Map<?, ?> node) {
    return Boolean.TRUE.equals(node.get("ranked"))
        ? AllTermsRanked.INSTANCE
        : MultiTermQuery.CONSTANT_SCORE_BLENDED_REWRITE;
  }

  private static Term term(Map<?, ?> node) {
    return new Term(text(node, "f"), text(node, "v"));
  }

  private static BytesRef bound(Object value) {
    return value == null ? null : new BytesRef((String) value);
  }

  private static String text(Map<?, ?> node, String key) {
    Object value = node.get(key);
    if (!(value instanceof String s)) {
      throw new IllegalArgumentException("'" + key + "' must be a string in " + node);
    }
    return s;
  }

  private static Number number(Map<?, ?> node, String key) {
    Object value = node.get(key);
    if (!(value instanceof Number n)) {
      throw new IllegalArgumentException("'" + key + "' must be a number in " + node);
    }
    return n;
  }
}
