package io.github.pylucenemcp.queryparser;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.DisjunctionMaxQuery;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MultiPhraseQuery;
import org.apache.lucene.search.PhraseQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;

/**
 * An exact phrase whose neighbouring words may also be the parts of one name: {@code "dhua sty
 * for"} finds "dhua.sty for", {@code "element tree write"} finds "ElementTree.write". A name's
 * parts stand at the name's position (NamePartsFilter), so the words of the phrase that are its
 * parts match at one position, not at successive ones.
 *
 * <p>Rewritten on each index: the pairs of neighbouring words that stand at one position in some
 * document of it (read from the postings, stopping at the first; kept for the reader, which a
 * search rewrites its query on several times) may be joined; the query is the plain phrase or any
 * of the phrases in which some of those pairs are joined (at most {@value #MAX_JOINS} pairs:
 * 2^{@value #MAX_JOINS} phrases), scored as the best of them. Where no pair stands at one position
 * anywhere, it is the plain phrase. Each phrase checks its own positions, so the hits are exact
 * whatever pairs were found.
 *
 * <p>Compiled for the Solr plugin too (Lucene 9): it uses only what both versions have.
 */
public final class NamePhraseQuery extends Query {
  /** The most pairs of words that are tried joined. */
  static final int MAX_JOINS = 6;

  private final PhraseQuery phrase;

  /** {@code phrase}: an exact phrase (slop 0) of one term at each of its successive positions. */
  public NamePhraseQuery(PhraseQuery phrase) {
    this.phrase = Objects.requireNonNull(phrase);
  }

  /** The plain phrase. */
  public PhraseQuery phrase() {
    return phrase;
  }

  /** Whether a parsed phrase can be one: exact, two words or more, one at each position. */
  public static boolean applies(PhraseQuery phrase) {
    int[] positions = phrase.getPositions();
    if (phrase.getSlop() != 0 || positions.length < 2) {
      return false;
    }
    for (int i = 1; i < positions.length; i++) {
      if (positions[i] != positions[i - 1] + 1) {
        return false;
      }
    }
    return true;
  }

  @Override
  public Query rewrite(IndexSearcher searcher) throws IOException {
    Term[] terms = phrase.getTerms();
    List<Integer> joinable = new ArrayList<>();
    for (int i = 0; i + 1 < terms.length && joinable.size() < MAX_JOINS; i++) {
      if (!terms[i].equals(terms[i + 1]) && atOnePosition(searcher, terms[i], terms[i + 1])) {
        joinable.add(i);
      }
    }
    if (joinable.isEmpty()) {
      return phrase;
    }
    List<Query> variants = new ArrayList<>();
    for (int mask = 0; mask < 1 << joinable.size(); mask++) {
      PhraseQuery.Builder builder = new PhraseQuery.Builder();
      int position = 0;
      for (int i = 0; i < terms.length; i++) {
        builder.add(terms[i], position);
        int bit = joinable.indexOf(i);
        if (bit < 0 || (mask & 1 << bit) == 0) {
          position++; // the next word stands after this one, not beside it
        }
      }
      variants.add(builder.build());
    }
    return new DisjunctionMaxQuery(variants, 0f);
  }

  // what each reader (by its cache key) has shown of pairs: a search rewrites its query several
  // times on one reader (the hits, the count, the facets, each hit's passages)
  private static final Map<IndexReader.CacheKey, Map<String, Boolean>> SEEN =
      Collections.synchronizedMap(new WeakHashMap<>());

  /** Forgets every pair seen (bench/name_phrases.py measures a phrase's first search so). */
  public static void forgetPairs() {
    SEEN.clear();
  }

  /** Whether some document has {@code a} and {@code b} at one position. */
  static boolean atOnePosition(IndexSearcher searcher, Term a, Term b) throws IOException {
    IndexReader reader = searcher.getIndexReader();
    IndexReader.CacheHelper helper = reader.getReaderCacheHelper();
    if (helper == null) {
      return scan(reader, a, b);
    }
    Map<String, Boolean> seen =
        SEEN.computeIfAbsent(helper.getKey(), k -> new ConcurrentHashMap<>());
    String pair = a.field() + '\u0000' + a.text() + '\u0000' + b.text();
    Boolean known = seen.get(pair);
    if (known == null) {
      known = scan(reader, a, b);
      seen.put(pair, known);
    }
    return known;
  }

  private static boolean scan(IndexReader reader, Term a, Term b) throws IOException {
    for (LeafReaderContext leaf : reader.leaves()) {
      PostingsEnum first = leaf.reader().postings(a, PostingsEnum.POSITIONS);
      PostingsEnum second = leaf.reader().postings(b, PostingsEnum.POSITIONS);
      if (first == null || second == null) {
        continue;
      }
      int doc = first.nextDoc();
      while (doc != DocIdSetIterator.NO_MORE_DOCS) {
        int other = second.docID() < doc ? second.advance(doc) : second.docID();
        if (other == DocIdSetIterator.NO_MORE_DOCS) {
          break;
        }
        if (other == doc && samePosition(first, second)) {
          return true;
        }
        doc = first.advance(other == doc ? doc + 1 : other);
      }
    }
    return false;
  }

  private static boolean samePosition(PostingsEnum first, PostingsEnum second) throws IOException {
    int left = first.freq();
    int right = second.freq();
    int p = first.nextPosition();
    int q = second.nextPosition();
    while (true) {
      if (p == q) {
        return true;
      }
      if (p < q) {
        if (--left == 0) {
          return false;
        }
        p = first.nextPosition();
      } else {
        if (--right == 0) {
          return false;
        }
        q = second.nextPosition();
      }
    }
  }

  @Override
  public void visit(QueryVisitor visitor) {
    phrase.visit(visitor);
  }

  @Override
  public String toString(String field) {
    return phrase.toString(field);
  }

  @Override
  public boolean equals(Object other) {
    return sameClassAs(other) && phrase.equals(((NamePhraseQuery) other).phrase);
  }

  @Override
  public int hashCode() {
    return classHash() ^ phrase.hashCode();
  }

  /** {@code query} with {@code slop}: a sloppy phrase is a plain one (its words are words). */
  static Query withSlop(Query query, int slop) {
    if (query instanceof NamePhraseQuery named) {
      return slop == 0 ? named : withSlop(named.phrase(), slop);
    }
    if (query instanceof PhraseQuery phrase) {
      PhraseQuery.Builder builder = new PhraseQuery.Builder().setSlop(slop);
      Term[] terms = phrase.getTerms();
      int[] positions = phrase.getPositions();
      for (int i = 0; i < terms.length; i++) {
        builder.add(terms[i], positions[i]);
      }
      return builder.build();
    }
    if (query instanceof MultiPhraseQuery multi) {
      return new MultiPhraseQuery.Builder(multi).setSlop(slop).build();
    }
    return query;
  }
}
