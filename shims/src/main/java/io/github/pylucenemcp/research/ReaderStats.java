package io.github.pylucenemcp.research;

import io.github.pylucenemcp.search.Json;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.MultiBits;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.TermVectors;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermStatistics;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;

/**
 * What pyserini's {@code LuceneIndexReader} reads, in one Java call each and as UTF-8 JSON: a
 * field's statistics over the whole index (every segment), a term's postings, a document's term
 * vector, and the terms of a field page by page.
 */
public final class ReaderStats {
  private ReaderStats() {}

  /**
   * {@code {"total_terms", "documents", "non_empty_documents", "unique_terms"}} of {@code field}:
   * the sum of its term frequencies, the live documents, the documents that have the field, and its
   * distinct terms over all segments (counted by merging the segments' terms).
   */
  public static byte[] stats(IndexReader reader, String field) throws IOException {
    Terms terms = MultiTerms.getTerms(reader, field);
    long unique = 0;
    if (terms != null) {
      TermsEnum each = terms.iterator();
      while (each.next() != null) {
        unique++;
      }
    }
    return new Json()
        .object()
        .name("total_terms")
        .number(terms == null ? 0 : terms.getSumTotalTermFreq())
        .name("documents")
        .number(reader.numDocs())
        .name("non_empty_documents")
        .number(terms == null ? 0 : terms.getDocCount())
        .name("unique_terms")
        .number(unique)
        .end()
        .toString()
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The postings of {@code term} in {@code field}: {@code [[Lucene id, tf, [positions]], ...]} of
   * the live documents, or null when no document has the term.
   */
  public static byte[] postings(IndexReader reader, String field, String term) throws IOException {
    Terms terms = MultiTerms.getTerms(reader, field);
    if (terms == null) {
      return null;
    }
    TermsEnum each = terms.iterator();
    if (!each.seekExact(new BytesRef(term))) {
      return null;
    }
    Bits live = MultiBits.getLiveDocs(reader);
    boolean positions = terms.hasPositions();
    PostingsEnum postings =
        each.postings(null, positions ? PostingsEnum.POSITIONS : PostingsEnum.FREQS);
    Json json = new Json().array();
    for (int doc = postings.nextDoc();
        doc != DocIdSetIterator.NO_MORE_DOCS;
        doc = postings.nextDoc()) {
      if (live != null && !live.get(doc)) {
        continue;
      }
      int freq = postings.freq();
      json.array().number(doc).number(freq).array();
      for (int i = 0; positions && i < freq; i++) {
        json.number(postings.nextPosition());
      }
      json.end().end();
    }
    return json.end().toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Document {@code doc}'s term vector of {@code field}: {@code {term: [tf, [positions]]}}, or null
   * when the field has none for it (it was indexed without term vectors).
   */
  public static byte[] vector(IndexReader reader, int doc, String field) throws IOException {
    Terms terms = reader.termVectors().get(doc, field);
    if (terms == null) {
      return null;
    }
    Json json = new Json().object();
    TermsEnum each = terms.iterator();
    PostingsEnum postings = null;
    for (BytesRef term = each.next(); term != null; term = each.next()) {
      int freq = (int) each.totalTermFreq();
      json.name(term.utf8ToString()).array().number(freq).array();
      if (terms.hasPositions()) {
        postings = each.postings(postings, PostingsEnum.POSITIONS);
        postings.nextDoc();
        for (int i = 0; i < postings.freq(); i++) {
          json.number(postings.nextPosition());
        }
      }
      json.end().end();
    }
    return json.end().toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Writes every live document's term vector of {@code field} with each term's score as {@code
   * searcher}'s similarity gives it (its weight for the term alone: the score of a {@code
   * TermQuery}, rounded as {@link #asAnserini} does) to {@code path}, a JSON line a document:
   * {@code {"id": …, "vector": {term: weight}}}, the id from the stored {@code idField}. Returns
   * how many documents were written.
   */
  public static int dumpWeights(IndexSearcher searcher, String field, String idField, String path)
      throws IOException {
    IndexReader reader = searcher.getIndexReader();
    Similarity similarity = searcher.getSimilarity();
    CollectionStatistics collection = searcher.collectionStatistics(field);
    Map<String, Similarity.SimScorer> scorers = new HashMap<>();
    StoredFields stored = reader.storedFields();
    TermVectors vectors = reader.termVectors();
    int written = 0;
    try (Writer out = Files.newBufferedWriter(Path.of(path), StandardCharsets.UTF_8)) {
      for (LeafReaderContext leaf : reader.leaves()) {
        Bits live = leaf.reader().getLiveDocs();
        NumericDocValues norms = leaf.reader().getNormValues(field);
        for (int local = 0; local < leaf.reader().maxDoc(); local++) {
          if (live != null && !live.get(local)) {
            continue;
          }
          int doc = leaf.docBase + local;
          long norm = norms != null && norms.advanceExact(local) ? norms.longValue() : 1L;
          Json json = new Json().object().name("id").string(stored.document(doc).get(idField));
          json.name("vector").object();
          Terms terms = collection == null ? null : vectors.get(doc, field);
          if (terms != null) {
            TermsEnum each = terms.iterator();
            for (BytesRef term = each.next(); term != null; term = each.next()) {
              String text = term.utf8ToString();
              Similarity.SimScorer scorer = scorers.get(text);
              if (scorer == null) {
                Term t = new Term(field, BytesRef.deepCopyOf(term));
                TermStatistics stats =
                    searcher.termStatistics(t, reader.docFreq(t), reader.totalTermFreq(t));
                scorer = similarity.scorer(1f, collection, stats);
                scorers.put(text, scorer);
              }
              json.name(text).decimal(asAnserini(scorer.score(each.totalTermFreq(), norm)));
            }
          }
          out.write(json.end().end().toString());
          out.write('\n');
          written++;
        }
      }
    }
    return written;
  }

  /** A field's terms over the whole index, a page at a time, in term order. */
  public static final class TermPages {
    private final TermsEnum each;
    private boolean done;

    public TermPages(IndexReader reader, String field) throws IOException {
      Terms terms = MultiTerms.getTerms(reader, field);
      this.each = terms == null ? null : terms.iterator();
      this.done = terms == null;
    }

    /** The next {@code size} terms as {@code [[term, df, cf], ...]}; an empty array at the end. */
    public byte[] next(int size) throws IOException {
      Json json = new Json().array();
      for (int i = 0; i < size && !done; i++) {
        BytesRef term = each.next();
        if (term == null) {
          done = true;
        } else {
          json.array()
              .string(term.utf8ToString())
              .number(each.docFreq())
              .number(each.totalTermFreq())
              .end();
        }
      }
      return json.end().toString().getBytes(StandardCharsets.UTF_8);
    }
  }

  /**
   * A term's weight {@code score} as Anserini computes it: the score of a search for the document's
   * id (a constant 1) and the term, less that 1, the sum taken in float. It differs from the score
   * by up to half a float step at 1 (6e-8), which a test of pyserini's checks to 8 places.
   */
  public static float asAnserini(float score) {
    return (float) (1.0 + score) - 1f;
  }
}
