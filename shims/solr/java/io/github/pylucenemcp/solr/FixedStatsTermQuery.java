package io.github.pylucenemcp.solr;

import java.io.IOException;
import java.util.Objects;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.TermStates;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.LeafSimScorer;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.TermScorer;
import org.apache.lucene.search.TermStatistics;
import org.apache.lucene.search.Weight;
import org.apache.lucene.search.similarities.Similarity;

/**
 * A term scored with the document frequency and total term frequency it is given, not with those
 * the searcher would look up: a term of a ranked pattern scores with its pattern's blended
 * statistics ({@link GlobalBlendQuery}), which Solr's distributed statistics would otherwise
 * replace with the term's own. The collection's statistics are the searcher's (the collection's, on
 * a node with exact distributed statistics).
 */
final class FixedStatsTermQuery extends Query {
  private final Term term;
  private final int docFreq;
  private final long totalTermFreq;

  FixedStatsTermQuery(Term term, int docFreq, long totalTermFreq) {
    this.term = term;
    this.docFreq = docFreq;
    this.totalTermFreq = totalTermFreq;
  }

  @Override
  public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost)
      throws IOException {
    CollectionStatistics collection = searcher.collectionStatistics(term.field());
    TermStates local = TermStates.build(searcher, term, true);
    if (local.docFreq() > 0) {
      // asked only to be counted: a node gathering distributed statistics reports the terms it
      // is asked for, and the pattern's blend needs every term's (the answer is not used here)
      searcher.termStatistics(term, local.docFreq(), local.totalTermFreq());
    }
    Similarity similarity = searcher.getSimilarity();
    Similarity.SimScorer sim =
        collection == null || docFreq <= 0
            ? null
            : similarity.scorer(
                boost, collection, new TermStatistics(term.bytes(), docFreq, totalTermFreq));
    return new Weight(this) {
      private PostingsEnum postings(LeafReaderContext leaf) throws IOException {
        Terms terms = leaf.reader().terms(term.field());
        if (sim == null || terms == null) {
          return null;
        }
        TermsEnum each = terms.iterator();
        if (!each.seekExact(term.bytes())) {
          return null;
        }
        return each.postings(
            null, scoreMode.needsScores() ? PostingsEnum.FREQS : PostingsEnum.NONE);
      }

      @Override
      public Scorer scorer(LeafReaderContext leaf) throws IOException {
        PostingsEnum postings = postings(leaf);
        if (postings == null) {
          return null;
        }
        LeafSimScorer scorer =
            new LeafSimScorer(sim, leaf.reader(), term.field(), scoreMode.needsScores());
        return new TermScorer(this, postings, scorer);
      }

      @Override
      public Explanation explain(LeafReaderContext leaf, int doc) throws IOException {
        PostingsEnum postings = postings(leaf);
        if (postings == null || postings.advance(doc) != doc) {
          return Explanation.noMatch("no matching term");
        }
        LeafSimScorer scorer = new LeafSimScorer(sim, leaf.reader(), term.field(), true);
        Explanation freq =
            Explanation.match(postings.freq(), "freq, occurrences of term within document");
        Explanation score = scorer.explain(doc, freq);
        return Explanation.match(
            score.getValue(),
            "weight("
                + getQuery()
                + " in "
                + doc
                + ") ["
                + similarity.getClass().getSimpleName()
                + "], result of:",
            score);
      }

      @Override
      public boolean isCacheable(LeafReaderContext leaf) {
        return true;
      }
    };
  }

  @Override
  public void visit(QueryVisitor visitor) {
    if (visitor.acceptField(term.field())) {
      visitor.consumeTerms(this, term);
    }
  }

  @Override
  public String toString(String field) {
    return term.field().equals(field) ? term.text() : term.toString();
  }

  @Override
  public boolean equals(Object other) {
    return sameClassAs(other)
        && term.equals(((FixedStatsTermQuery) other).term)
        && docFreq == ((FixedStatsTermQuery) other).docFreq
        && totalTermFreq == ((FixedStatsTermQuery) other).totalTermFreq;
  }

  @Override
  public int hashCode() {
    return Objects.hash(classHash(), term, docFreq, totalTermFreq);
  }
}
