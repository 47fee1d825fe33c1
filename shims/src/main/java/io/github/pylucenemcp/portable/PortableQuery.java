package io.github.pylucenemcp.portable;

import io.github.pylucenemcp.queryparser.NamePhraseQuery;
import io.github.pylucenemcp.queryparser.RankedPatterns;
import io.github.pylucenemcp.search.Json;
import java.util.List;
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
import org.apache.lucene.search.PointRangeQuery;
import org.apache.lucene.search.PrefixQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.RegexpQuery;
import org.apache.lucene.search.SynonymQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TermRangeQuery;
import org.apache.lucene.search.WildcardQuery;
import org.apache.lucene.util.BytesRef;

/**
 * A parsed query as JSON, for an engine in another JVM (the SolrCloud backend's query parser
 * plugin, {@code io.github.pylucenemcp.solr.PortableQParserPlugin}) to build the same Lucene query
 * from: the product parses and analyses the user's text once, here, and the remote engine runs the
 * terms, phrases and patterns it gives, so no user text reaches another query parser.
 *
 * <p>Each node is an object whose {@code "t"} names its kind (docs/scale-out.md lists them): {@code
 * term}, {@code bool}, {@code boost}, {@code const}, {@code syn}, {@code phrase}, {@code
 * multiPhrase}, {@code prefix}, {@code wildcard}, {@code regexp}, {@code fuzzy}, {@code termRange},
 * {@code longRange}, {@code all}, {@code none}. A pattern says whether it is ranked by its best
 * terms ({@link RankedPatterns#ALL_TERMS_RANKED}) or scored constant. A query of any other kind is
 * refused: a remote engine must never run something other than what was parsed.
 */
public final class PortableQuery {
  private PortableQuery() {}

  /** {@code query} as JSON text. */
  public static String toJson(Query query) {
    Json out = new Json();
    write(query, out);
    return out.toString();
  }

  private static void write(Query query, Json out) {
    out.object();
    switch (query) {
      case TermQuery q -> term(out.name("t").string("term"), q.getTerm());
      case BooleanQuery q -> bool(q, out);
      case BoostQuery q -> {
        out.name("t").string("boost").name("b").decimal(q.getBoost()).name("q");
        write(q.getQuery(), out);
      }
      case ConstantScoreQuery q -> {
        out.name("t").string("const").name("q");
        write(q.getQuery(), out);
      }
      case SynonymQuery q -> synonyms(q, out);
      case PhraseQuery q -> phrase(q, out);
      case NamePhraseQuery q -> {
        out.name("t").string("namePhrase").name("q");
        write(q.phrase(), out);
      }
      case MultiPhraseQuery q -> multiPhrase(q, out);
      case PrefixQuery q -> pattern("prefix", q.getPrefix(), q, out);
      case WildcardQuery q -> pattern("wildcard", q.getTerm(), q, out);
      case RegexpQuery q -> pattern("regexp", q.getRegexp(), q, out);
      case FuzzyQuery q -> {
        pattern("fuzzy", q.getTerm(), q, out);
        out.name("edits").number(q.getMaxEdits()).name("prefix").number(q.getPrefixLength());
        out.name("transpositions").bool(q.getTranspositions());
      }
      case TermRangeQuery q -> termRange(q, out);
      case PointRangeQuery q -> longRange(q, out);
      case MatchAllDocsQuery q -> out.name("t").string("all");
      case MatchNoDocsQuery q -> out.name("t").string("none");
      default ->
          throw new IllegalArgumentException(
              "a query of kind "
                  + query.getClass().getSimpleName()
                  + " cannot be sent to a remote engine: "
                  + query);
    }
    out.end();
  }

  private static void term(Json out, Term term) {
    out.name("f").string(term.field()).name("v").string(term.text());
  }

  private static void bool(BooleanQuery q, Json out) {
    out.name("t").string("bool").name("msm").number(q.getMinimumNumberShouldMatch());
    out.name("c").array();
    for (BooleanClause clause : q.clauses()) {
      out.object().name("o").string(clause.occur().name()).name("q");
      write(clause.query(), out);
      out.end();
    }
    out.end();
  }

  private static void synonyms(SynonymQuery q, Json out) {
    List<Term> terms = q.getTerms();
    out.name("t").string("syn").name("f").string(q.getField()).name("v").array();
    for (Term term : terms) {
      out.string(term.text());
    }
    out.end();
  }

  private static void phrase(PhraseQuery q, Json out) {
    out.name("t").string("phrase").name("f").string(q.getField()).name("slop").number(q.getSlop());
    out.name("v").array();
    for (Term term : q.getTerms()) {
      out.string(term.text());
    }
    out.end().name("pos").array();
    for (int position : q.getPositions()) {
      out.number(position);
    }
    out.end();
  }

  private static void multiPhrase(MultiPhraseQuery q, Json out) {
    Term[][] terms = q.getTermArrays();
    out.name("t").string("multiPhrase").name("slop").number(q.getSlop());
    out.name("f").string(terms[0][0].field()).name("v").array();
    for (Term[] atPosition : terms) {
      out.array();
      for (Term term : atPosition) {
        out.string(term.text());
      }
      out.end();
    }
    out.end().name("pos").array();
    for (int position : q.getPositions()) {
      out.number(position);
    }
    out.end();
  }

  private static void pattern(String kind, Term term, MultiTermQuery q, Json out) {
    term(out.name("t").string(kind), term);
    out.name("ranked").bool(q.getRewriteMethod() == RankedPatterns.ALL_TERMS_RANKED);
  }

  private static void termRange(TermRangeQuery q, Json out) {
    out.name("t").string("termRange").name("f").string(q.getField());
    bound(out.name("lo"), q.getLowerTerm()).name("hi");
    bound(out, q.getUpperTerm()).name("li").bool(q.includesLower());
    out.name("ui").bool(q.includesUpper());
  }

  private static Json bound(Json out, BytesRef bound) {
    return bound == null ? out.string(null) : out.string(bound.utf8ToString());
  }

  private static void longRange(PointRangeQuery q, Json out) {
    if (q.getNumDims() != 1 || q.getBytesPerDim() != Long.BYTES) {
      throw new IllegalArgumentException("only ranges of one long can be sent: " + q);
    }
    out.name("t").string("longRange").name("f").string(q.getField());
    out.name("lo").number(LongPoint.decodeDimension(q.getLowerPoint(), 0));
    out.name("hi").number(LongPoint.decodeDimension(q.getUpperPoint(), 0));
  }
}
