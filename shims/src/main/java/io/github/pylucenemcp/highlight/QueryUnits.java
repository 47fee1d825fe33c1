package io.github.pylucenemcp.highlight;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.automaton.ByteRunAutomaton;

/**
 * Each unit of a query (a term, phrase or pattern the user typed) as a test on index terms: "does
 * this matched term belong to unit i?". Term coverage counts the units a passage touches.
 */
public final class QueryUnits {
  private final List<Predicate<BytesRef>> units = new ArrayList<>();
  private final Analyzer analyzer;
  private final List<String> analyzedAs = new ArrayList<>();
  // the terms each word makes in each field of analyzedAs, by field and word: a page's passages
  // match the same few words again and again (the lemma chains were a tenth of a page's time)
  // (the page's documents are highlighted on several threads)
  private final Map<String, Map<String, List<BytesRef>>> analyses = new ConcurrentHashMap<>();

  public QueryUnits(List<Query> queries, Set<String> fields) {
    this(queries, fields, null, null);
  }

  /**
   * With {@code analyzer}, a passage's matched words are also analysed as {@code field} is and
   * tested: a phrase's match is the whole phrase, and a pattern's match term is not always the word
   * it matched, so the words themselves count too.
   */
  public QueryUnits(List<Query> queries, Set<String> fields, Analyzer analyzer, String field) {
    this(queries, fields, analyzer, field, Set.of());
  }

  /**
   * As above, the matched words also analysed as each of {@code twins} is (the lemma fields:
   * "expressions" is the unit "expression" there).
   */
  public QueryUnits(
      List<Query> queries, Set<String> fields, Analyzer analyzer, String field, Set<String> twins) {
    this.analyzer = analyzer;
    if (field != null) {
      analyzedAs.add(field);
    }
    analyzedAs.addAll(twins);
    for (Query query : queries) {
      List<Predicate<BytesRef>> tests = new ArrayList<>();
      query.visit(
          new QueryVisitor() {
            @Override
            public boolean acceptField(String field) {
              return fields.contains(field);
            }

            @Override
            public void consumeTerms(Query q, Term... terms) {
              for (Term term : terms) {
                BytesRef bytes = BytesRef.deepCopyOf(term.bytes());
                tests.add(bytes::bytesEquals);
              }
            }

            @Override
            public void consumeTermsMatching(
                Query q, String field, Supplier<ByteRunAutomaton> automaton) {
              ByteRunAutomaton run = automaton.get();
              tests.add(b -> run.run(b.bytes, b.offset, b.length));
            }

            @Override
            public QueryVisitor getSubVisitor(BooleanClause.Occur occur, Query parent) {
              return occur == BooleanClause.Occur.MUST_NOT ? QueryVisitor.EMPTY_VISITOR : this;
            }
          });
      if (!tests.isEmpty()) {
        units.add(b -> tests.stream().anyMatch(t -> t.test(b)));
      }
    }
  }

  public int size() {
    return units.size();
  }

  /** The number of units that at least one of these terms belongs to. */
  public int covered(BytesRef[] terms, int count) {
    return covered(terms, count, List.of());
  }

  /**
   * The number of units that at least one of these terms, or of the terms the analyzer makes of the
   * matched {@code words}, belongs to.
   */
  public int covered(BytesRef[] terms, int count, List<String> words) {
    List<BytesRef> all = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      all.add(terms[i]);
    }
    if (analyzer != null) {
      for (String word : words) {
        for (String field : analyzedAs) {
          all.addAll(analyzed(field, word));
        }
      }
    }
    int covered = 0;
    for (Predicate<BytesRef> unit : units) {
      if (all.stream().anyMatch(unit)) {
        covered++;
      }
    }
    return covered;
  }

  private List<BytesRef> analyzed(String field, String text) {
    return analyses
        .computeIfAbsent(field, f -> new ConcurrentHashMap<>())
        .computeIfAbsent(text, t -> analyze(field, t));
  }

  private List<BytesRef> analyze(String field, String text) {
    List<BytesRef> out = new ArrayList<>();
    try (TokenStream stream = analyzer.tokenStream(field, text)) {
      CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
      stream.reset();
      while (stream.incrementToken()) {
        out.add(new BytesRef(term));
      }
      stream.end();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
