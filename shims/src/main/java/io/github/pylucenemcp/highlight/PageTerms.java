package io.github.pylucenemcp.highlight;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.MultiTermQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.util.BytesRef;

/**
 * A highlight query with each pattern (wildcard, prefix, fuzzy word, regular expression) replaced
 * by the words it matches in the documents of the page, so that the highlighter takes their offsets
 * from the postings. Given a pattern, Lucene's highlighter instead analyses each hit's whole text
 * again (with every masked field's analyzer: the lemma chains), which was most of a page's time on
 * long documents; and it would test every word of the index against the pattern for each hit. Here
 * the pattern's words are enumerated once per page, as the search enumerated them, and a word is
 * kept when a document of the page has it.
 */
final class PageTerms {
  /** A pattern's words become clauses of boolean queries of at most this many. */
  static final int CLAUSES = 512;

  private final IndexSearcher searcher;
  // the page's documents, by leaf: their ids within the leaf, ascending
  private final int[][] byLeaf;

  private PageTerms(IndexSearcher searcher, int[] docIds) {
    this.searcher = searcher;
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    int[][] local = new int[leaves.size()][];
    int[] counts = new int[leaves.size()];
    int[] leafOf = new int[docIds.length];
    for (int i = 0; i < docIds.length; i++) {
      leafOf[i] = ReaderUtil.subIndex(docIds[i], leaves);
      counts[leafOf[i]]++;
    }
    for (int l = 0; l < local.length; l++) {
      local[l] = new int[counts[l]];
      counts[l] = 0;
    }
    for (int i = 0; i < docIds.length; i++) {
      int l = leafOf[i];
      local[l][counts[l]++] = docIds[i] - leaves.get(l).docBase;
    }
    for (int[] ids : local) {
      Arrays.sort(ids);
    }
    this.byLeaf = local;
  }

  /** {@code query} with its patterns replaced by their words in the documents {@code docIds}. */
  static Query expand(IndexSearcher searcher, Query query, int[] docIds) throws IOException {
    return new PageTerms(searcher, docIds).rewrite(query);
  }

  private Query rewrite(Query query) throws IOException {
    if (query instanceof BooleanQuery bool) {
      BooleanQuery.Builder rebuilt =
          new BooleanQuery.Builder()
              .setMinimumNumberShouldMatch(bool.getMinimumNumberShouldMatch());
      for (BooleanClause clause : bool.clauses()) {
        rebuilt.add(rewrite(clause.query()), clause.occur());
      }
      return rebuilt.build();
    }
    if (query instanceof BoostQuery boost) {
      return new BoostQuery(rewrite(boost.getQuery()), boost.getBoost());
    }
    if (query instanceof MultiTermQuery pattern) {
      return words(pattern);
    }
    return query;
  }

  /** The words of {@code pattern} that a document of the page has, as one query. */
  private Query words(MultiTermQuery pattern) throws IOException {
    Set<BytesRef> kept = new LinkedHashSet<>();
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    for (int l = 0; l < leaves.size(); l++) {
      int[] docs = byLeaf[l];
      if (docs.length == 0) {
        continue;
      }
      Terms terms = leaves.get(l).reader().terms(pattern.getField());
      if (terms == null) {
        continue;
      }
      TermsEnum each = pattern.getTermsEnum(terms);
      PostingsEnum postings = null;
      for (BytesRef term = each.next(); term != null; term = each.next()) {
        postings = each.postings(postings, PostingsEnum.NONE);
        if (inAny(postings, docs)) {
          kept.add(BytesRef.deepCopyOf(term));
        }
      }
    }
    if (kept.isEmpty()) {
      return new MatchNoDocsQuery("no word of " + pattern + " on this page");
    }
    List<Query> clauses = new ArrayList<>(kept.size());
    for (BytesRef term : kept) {
      clauses.add(new TermQuery(new Term(pattern.getField(), term)));
    }
    return any(clauses);
  }

  /** Whether {@code postings} has one of {@code docs} (ascending). */
  private static boolean inAny(PostingsEnum postings, int[] docs) throws IOException {
    for (int doc : docs) {
      int at = postings.docID() < doc ? postings.advance(doc) : postings.docID();
      if (at == doc) {
        return true;
      }
      if (at == DocIdSetIterator.NO_MORE_DOCS) {
        return false;
      }
    }
    return false;
  }

  /** The clauses ORed, nested so that no boolean query has more than {@link #CLAUSES}. */
  private static Query any(List<Query> clauses) {
    if (clauses.size() == 1) {
      return clauses.get(0);
    }
    if (clauses.size() > CLAUSES) {
      List<Query> groups = new ArrayList<>();
      for (int from = 0; from < clauses.size(); from += CLAUSES) {
        groups.add(any(clauses.subList(from, Math.min(clauses.size(), from + CLAUSES))));
      }
      return any(groups);
    }
    BooleanQuery.Builder any = new BooleanQuery.Builder();
    for (Query clause : clauses) {
      any.add(clause, BooleanClause.Occur.SHOULD);
    }
    return any.build();
  }
}
