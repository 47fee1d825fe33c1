package io.github.pylucenemcp.index;

import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.WeakHashMap;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FilterDirectoryReader;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.ImpactsEnum;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.FixedBitSet;
import org.apache.lucene.util.IOBooleanSupplier;
import org.apache.lucene.util.automaton.CompiledAutomaton;

/**
 * An index as one reader sees it: only the documents of {@code visible} exist. The others are
 * hidden as deleted documents are, and every statistic leaves them out too: a term's document and
 * total frequency, a field's document count and sums (what BM25's IDF and average length take), the
 * terms themselves (a term only hidden documents hold is not there). So every search, count, facet,
 * score, explanation and term list over this reader is the one an index of the visible documents
 * alone would give.
 *
 * <p>The statistics are counted over the visible documents' postings when first asked, per segment,
 * field and term (a field's once per segment). Caches keyed by reader (the query cache, facet
 * states) do not take this reader for the one it wraps: it has no cache helper of its own.
 */
public final class VisibleReader extends FilterDirectoryReader {
  private final Query visible;

  /** {@code in} as a reader of the documents that {@code visible} matches (and are not deleted). */
  public VisibleReader(DirectoryReader in, Query visible) throws IOException {
    super(in, new Wrapper(visible));
    this.visible = visible;
  }

  @Override
  protected DirectoryReader doWrapDirectoryReader(DirectoryReader in) throws IOException {
    return new VisibleReader(in, visible);
  }

  @Override
  public CacheHelper getReaderCacheHelper() {
    return null;
  }

  private static final class Wrapper extends SubReaderWrapper {
    private final Query visible;

    Wrapper(Query visible) {
      this.visible = visible;
    }

    @Override
    public LeafReader wrap(LeafReader reader) {
      try {
        CacheHelper helper = reader.getReaderCacheHelper();
        if (helper == null) {
          return new Leaf(reader, visibleDocs(reader, visible), new HashMap<>(), new HashMap<>());
        }
        // a segment whose documents are unchanged (its reader's key) keeps its visible documents
        // and its fields' statistics from one refresh to the next
        Seen seen;
        synchronized (SEEN) {
          seen = SEEN.computeIfAbsent(helper.getKey(), k -> new HashMap<>()).get(visible);
        }
        if (seen == null) {
          seen = new Seen(visibleDocs(reader, visible), new HashMap<>(), new HashMap<>());
          synchronized (SEEN) {
            SEEN.computeIfAbsent(helper.getKey(), k -> new HashMap<>()).put(visible, seen);
          }
        }
        return new Leaf(reader, seen.live, seen.fieldStats, seen.pointStats);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }

  /** A segment's visible documents and its fields' statistics over them. */
  private record Seen(
      FixedBitSet live, Map<String, long[]> fieldStats, Map<String, Object[]> pointStats) {}

  /** By segment reader (weakly: gone with the segment), then by the visible documents' query. */
  private static final Map<Object, Map<Query, Seen>> SEEN = new WeakHashMap<>();

  /** The live documents of {@code leaf} that {@code visible} matches. */
  static FixedBitSet visibleDocs(LeafReader leaf, Query visible) throws IOException {
    FixedBitSet docs = new FixedBitSet(Math.max(1, leaf.maxDoc()));
    IndexSearcher searcher = new IndexSearcher(leaf);
    searcher.setQueryCache(null);
    Weight weight =
        searcher.createWeight(searcher.rewrite(visible), ScoreMode.COMPLETE_NO_SCORES, 1f);
    Scorer scorer = weight.scorer(leaf.getContext());
    if (scorer != null) {
      Bits live = leaf.getLiveDocs();
      DocIdSetIterator it = scorer.iterator();
      for (int doc = it.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = it.nextDoc()) {
        if (live == null || live.get(doc)) {
          docs.set(doc);
        }
      }
    }
    return docs;
  }

  /** A segment with only its visible documents live, and statistics of those alone. */
  static final class Leaf extends FilterLeafReader {
    private final FixedBitSet live;
    private final int numDocs;
    private final Map<String, long[]> fieldStats;
    // by field: {docCount, size, min, max}, or no entry yet; a field without visible points
    // maps to an empty array
    private final Map<String, Object[]> pointStats;

    Leaf(
        LeafReader in,
        FixedBitSet live,
        Map<String, long[]> fieldStats,
        Map<String, Object[]> pointStats) {
      super(in);
      this.live = live;
      this.numDocs = live.cardinality();
      this.fieldStats = fieldStats;
      this.pointStats = pointStats;
    }

    @Override
    public Bits getLiveDocs() {
      return live;
    }

    @Override
    public int numDocs() {
      return numDocs;
    }

    @Override
    public Terms terms(String field) throws IOException {
      Terms terms = super.terms(field);
      return terms == null ? null : new VisibleTerms(terms, field);
    }

    @Override
    public PointValues getPointValues(String field) throws IOException {
      PointValues points = super.getPointValues(field);
      if (points == null) {
        return null;
      }
      Object[] stats = pointStatsOf(field, points);
      return stats == null ? null : new VisiblePoints(points, stats);
    }

    /**
     * {docCount, size, min, max} of {@code field}'s points in the visible documents (null when they
     * have none), counted once.
     */
    private Object[] pointStatsOf(String field, PointValues points) throws IOException {
      synchronized (pointStats) {
        Object[] known = pointStats.get(field);
        if (known != null) {
          return known.length == 0 ? null : known;
        }
      }
      int bytes = points.getBytesPerDimension();
      int dims = points.getNumIndexDimensions();
      FixedBitSet having = new FixedBitSet(Math.max(1, maxDoc()));
      long[] size = {0};
      byte[][] range = {null, null};
      points.intersect(
          new PointValues.IntersectVisitor() {
            @Override
            public void visit(int docID) {
              throw new IllegalStateException("every point is visited with its value");
            }

            @Override
            public void visit(int docID, byte[] value) {
              if (!live.get(docID)) {
                return;
              }
              having.set(docID);
              size[0]++;
              if (range[0] == null) {
                range[0] = value.clone();
                range[1] = value.clone();
                return;
              }
              for (int d = 0; d < dims; d++) {
                int from = d * bytes;
                int to = from + bytes;
                if (Arrays.compareUnsigned(value, from, to, range[0], from, to) < 0) {
                  System.arraycopy(value, from, range[0], from, bytes);
                }
                if (Arrays.compareUnsigned(value, from, to, range[1], from, to) > 0) {
                  System.arraycopy(value, from, range[1], from, bytes);
                }
              }
            }

            @Override
            public PointValues.Relation compare(byte[] minPacked, byte[] maxPacked) {
              return PointValues.Relation.CELL_CROSSES_QUERY; // every point, with its value
            }
          });
      Object[] stats =
          size[0] == 0 ? null : new Object[] {having.cardinality(), size[0], range[0], range[1]};
      synchronized (pointStats) {
        pointStats.put(field, stats == null ? new Object[0] : stats);
      }
      return stats;
    }

    @Override
    public CacheHelper getCoreCacheHelper() {
      return null;
    }

    @Override
    public CacheHelper getReaderCacheHelper() {
      return null;
    }

    /** {docCount, sumDocFreq, sumTotalTermFreq} of {@code field} over the visible documents. */
    private long[] statsOf(String field, Terms terms) throws IOException {
      synchronized (fieldStats) {
        long[] known = fieldStats.get(field);
        if (known != null) {
          return known;
        }
        FixedBitSet having = new FixedBitSet(Math.max(1, maxDoc()));
        long sumDocFreq = 0;
        long sumTotalTermFreq = 0;
        TermsEnum all = terms.iterator();
        PostingsEnum postings = null;
        while (all.next() != null) {
          postings = all.postings(postings, PostingsEnum.FREQS);
          for (int doc = postings.nextDoc();
              doc != DocIdSetIterator.NO_MORE_DOCS;
              doc = postings.nextDoc()) {
            if (live.get(doc)) {
              having.set(doc);
              sumDocFreq++;
              sumTotalTermFreq += postings.freq();
            }
          }
        }
        long[] stats = {having.cardinality(), sumDocFreq, sumTotalTermFreq};
        fieldStats.put(field, stats);
        return stats;
      }
    }

    /** The terms of a field that visible documents hold, with their visible statistics. */
    private final class VisibleTerms extends FilterTerms {
      private final String field;

      VisibleTerms(Terms in, String field) {
        super(in);
        this.field = field;
      }

      @Override
      public TermsEnum iterator() throws IOException {
        return new VisibleTermsEnum(in.iterator(), live);
      }

      @Override
      public TermsEnum intersect(CompiledAutomaton compiled, BytesRef startTerm)
          throws IOException {
        return new VisibleTermsEnum(in.intersect(compiled, startTerm), live);
      }

      @Override
      public long size() {
        return -1; // unknown without counting every term
      }

      @Override
      public int getDocCount() throws IOException {
        return (int) statsOf(field, in)[0];
      }

      @Override
      public long getSumDocFreq() throws IOException {
        return statsOf(field, in)[1];
      }

      @Override
      public long getSumTotalTermFreq() throws IOException {
        return statsOf(field, in)[2];
      }
    }
  }

  /**
   * A field's points as the visible documents hold them: the tree searched as it is (the hidden
   * documents are not live), the counts and the least and greatest values those of the visible.
   */
  static final class VisiblePoints extends PointValues {
    private final PointValues in;
    private final Object[] stats;

    VisiblePoints(PointValues in, Object[] stats) {
      this.in = in;
      this.stats = stats;
    }

    @Override
    public PointTree getPointTree() throws IOException {
      return in.getPointTree();
    }

    @Override
    public byte[] getMinPackedValue() {
      return ((byte[]) stats[2]).clone();
    }

    @Override
    public byte[] getMaxPackedValue() {
      return ((byte[]) stats[3]).clone();
    }

    @Override
    public int getNumDimensions() throws IOException {
      return in.getNumDimensions();
    }

    @Override
    public int getNumIndexDimensions() throws IOException {
      return in.getNumIndexDimensions();
    }

    @Override
    public int getBytesPerDimension() throws IOException {
      return in.getBytesPerDimension();
    }

    @Override
    public long size() {
      return (Long) stats[1];
    }

    @Override
    public int getDocCount() {
      return (Integer) stats[0];
    }
  }

  /**
   * The terms that visible documents hold, each with the document and total frequency of those: a
   * term whose documents are all hidden is skipped, and is not found by a seek.
   */
  static final class VisibleTermsEnum extends FilterLeafReader.FilterTermsEnum {
    private final Bits live;
    private PostingsEnum postings;
    private int docFreq = -1;
    private long totalTermFreq;

    VisibleTermsEnum(TermsEnum in, Bits live) {
      super(in);
      this.live = live;
    }

    /** Counts the current term's visible documents and occurrences. */
    private int count() throws IOException {
      if (docFreq < 0) {
        int found = 0;
        long occurrences = 0;
        postings = in.postings(postings, PostingsEnum.FREQS);
        for (int doc = postings.nextDoc();
            doc != DocIdSetIterator.NO_MORE_DOCS;
            doc = postings.nextDoc()) {
          if (live.get(doc)) {
            found++;
            occurrences += postings.freq();
          }
        }
        docFreq = found;
        totalTermFreq = occurrences;
      }
      return docFreq;
    }

    @Override
    public BytesRef next() throws IOException {
      for (BytesRef term = in.next(); term != null; term = in.next()) {
        docFreq = -1;
        if (count() > 0) {
          return term;
        }
      }
      return null;
    }

    @Override
    public SeekStatus seekCeil(BytesRef text) throws IOException {
      docFreq = -1;
      SeekStatus status = in.seekCeil(text);
      if (status == SeekStatus.END || count() > 0) {
        return status;
      }
      return next() == null ? SeekStatus.END : SeekStatus.NOT_FOUND;
    }

    @Override
    public boolean seekExact(BytesRef text) throws IOException {
      docFreq = -1;
      return in.seekExact(text) && count() > 0;
    }

    @Override
    public IOBooleanSupplier prepareSeekExact(BytesRef text) throws IOException {
      // what TermStates seeks through (to prefetch): found only with visible documents
      IOBooleanSupplier found = in.prepareSeekExact(text);
      if (found == null) {
        return null;
      }
      return () -> {
        docFreq = -1;
        return found.get() && count() > 0;
      };
    }

    @Override
    public void seekExact(BytesRef term, org.apache.lucene.index.TermState state)
        throws IOException {
      docFreq = -1;
      in.seekExact(term, state);
    }

    @Override
    public void seekExact(long ord) throws IOException {
      docFreq = -1;
      in.seekExact(ord);
    }

    @Override
    public int docFreq() throws IOException {
      return count();
    }

    @Override
    public long totalTermFreq() throws IOException {
      count();
      return totalTermFreq;
    }

    @Override
    public ImpactsEnum impacts(int flags) throws IOException {
      return in.impacts(flags); // upper bounds over all documents: still bounds over fewer
    }
  }
}
