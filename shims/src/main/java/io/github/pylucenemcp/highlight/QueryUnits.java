package io.github.pylucenemcp.highlight;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
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

  public QueryUnits(List<Query> queries, Set<String> fields) {
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
    int covered = 0;
    for (Predicate<BytesRef> unit : units) {
      for (int i = 0; i < count; i++) {
        if (unit.test(terms[i])) {
          covered++;
          break;
        }
      }
    }
    return covered;
  }
}
