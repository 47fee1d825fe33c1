package io.github.pylucenemcp.index;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.TreeSet;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.ConstantScoreScorer;
import org.apache.lucene.search.ConstantScoreWeight;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.TwoPhaseIterator;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.BytesRef;

/**
 * The documents whose recorded readers (a binary doc-values field of principals joined by {@link
 * SchemaWriter#SEPARATOR}, {@link io.github.pylucenemcp.schema.FieldSchema#readers}) name one of
 * {@code principals} and shut none of them out: a recorded {@code -P} refuses a caller with the
 * principal {@code P}, and {@code -P except Q} one with {@code P} but not {@code Q} (a group the
 * system shuts out, but for the owner of the folder, whom the owner's bits judge). Doc values, not
 * terms, because the crawler updates them in place when a file's owner or mode changes; a view
 * counts its visible documents with this once per segment.
 */
public final class ReadersQuery extends Query {
  /** The mark of a recorded principal that is refused. */
  public static final String REFUSED = "-";

  /** Between a refused principal and the one it does not refuse. */
  public static final String EXCEPT = " except ";

  private final String field;
  private final Set<String> principals;

  public ReadersQuery(String field, String[] principals) {
    this.field = field;
    this.principals = Set.copyOf(java.util.Arrays.asList(principals)); // duplicates allowed
  }

  /** Whether the recorded {@code readers} name one of {@code principals} and refuse none. */
  boolean admits(BytesRef readers) {
    String text = new String(readers.bytes, readers.offset, readers.length, StandardCharsets.UTF_8);
    boolean named = false;
    for (String one : text.split(SchemaWriter.SEPARATOR, -1)) {
      if (one.startsWith(REFUSED)) {
        if (refuses(one.substring(REFUSED.length()))) {
          return false;
        }
      } else if (principals.contains(one)) {
        named = true;
      }
    }
    return named;
  }

  private boolean refuses(String refusal) {
    int but = refusal.indexOf(EXCEPT);
    if (but < 0) {
      return principals.contains(refusal);
    }
    return principals.contains(refusal.substring(0, but))
        && !principals.contains(refusal.substring(but + EXCEPT.length()));
  }

  @Override
  public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) {
    return new ConstantScoreWeight(this, boost) {
      @Override
      public ScorerSupplier scorerSupplier(LeafReaderContext context) throws IOException {
        BinaryDocValues values = context.reader().getBinaryDocValues(field);
        if (values == null || principals.isEmpty()) {
          return null;
        }
        TwoPhaseIterator matching =
            new TwoPhaseIterator(values) {
              @Override
              public boolean matches() throws IOException {
                return admits(values.binaryValue());
              }

              @Override
              public float matchCost() {
                return 10f; // a split of a few principals
              }
            };
        return new DefaultScorerSupplier(new ConstantScoreScorer(score(), scoreMode, matching));
      }

      @Override
      public boolean isCacheable(LeafReaderContext context) {
        return DocValues.isCacheable(context, field);
      }
    };
  }

  @Override
  public void visit(QueryVisitor visitor) {
    if (visitor.acceptField(field)) {
      visitor.visitLeaf(this);
    }
  }

  @Override
  public String toString(String defaultField) {
    return field + ":readers" + new TreeSet<>(principals);
  }

  @Override
  public boolean equals(Object other) {
    return sameClassAs(other)
        && field.equals(((ReadersQuery) other).field)
        && principals.equals(((ReadersQuery) other).principals);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * classHash() + field.hashCode()) + principals.hashCode();
  }
}
