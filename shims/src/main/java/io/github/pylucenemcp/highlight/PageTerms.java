package io.github.pylucenemcp.highlight;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.analysis.reverse.ReverseStringFilter;
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
import org.apache.lucene.search.WildcardQuery;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.automaton.ByteRunAutomaton;
import org.apache.lucene.util.automaton.CompiledAutomaton;

/**
 * A highlight query for each document of a page, with each pattern (wildcard, prefix, fuzzy word,
 * regular expression) replaced by the words it matches in that document, so that the highlighter
 * takes their offsets from the postings. Given a pattern, Lucene's highlighter instead analyses
 * each hit's whole text again (with every masked field's analyzer: the lemma chains), which was
 * most of a page's time on long documents; and it would test every word of the index against the
 * pattern for each hit. Here the pattern's words are enumerated once per page, as the search
 * enumerated them, and each document gets the words it has (one query of the page's words would
 * make the highlighter look each of them up in every document). A pattern that starts with its only
 * wildcards ({@code *tion}) is enumerated in the field's reversed twin, as a prefix ({@code
 * noit*}), and its words turned back: in the field itself it would test every word of the index.
 */
final class PageTerms {
  /** A pattern's words become clauses of boolean queries of at most this many. */
  static final int CLAUSES = 512;

  private final IndexSearcher searcher;
  // field → its twin whose words are the field's words reversed (content → content_reversed)
  private final Map<String, String> reversedTwins;
  // the page's documents, by leaf: their ids within the leaf, ascending
  private final int[][] byLeaf;
  // each pattern's words by document of the page, found once per pattern
  private final Map<MultiTermQuery, Map<Integer, List<BytesRef>>> found = new IdentityHashMap<>();

  private PageTerms(IndexSearcher searcher, int[] docIds, Map<String, String> reversedTwins) {
    this.searcher = searcher;
    this.reversedTwins = reversedTwins;
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    int[] counts = new int[leaves.size()];
    int[] leafOf = new int[docIds.length];
    for (int i = 0; i < docIds.length; i++) {
      leafOf[i] = ReaderUtil.subIndex(docIds[i], leaves);
      counts[leafOf[i]]++;
    }
    int[][] local = new int[leaves.size()][];
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

  /**
   * For each of {@code docIds}, {@code query} with its patterns replaced by their words in that
   * document; null when {@code query} has no pattern (it serves every document as it is). {@code
   * reversedTwins}: the fields whose words another field holds reversed, by field.
   */
  static Query[] perDocument(
      IndexSearcher searcher, Query query, int[] docIds, Map<String, String> reversedTwins)
      throws IOException {
    if (!hasPattern(query)) {
      return null;
    }
    PageTerms page = new PageTerms(searcher, docIds, reversedTwins);
    Query[] each = new Query[docIds.length];
    for (int i = 0; i < docIds.length; i++) {
      // a document whose words would pass the clauses a query may have (which the
      // highlighter's weight counts) keeps the patterns: Lucene's highlighter analyses it again
      boolean tooMany = page.leaves(query, docIds[i]) > IndexSearcher.getMaxClauseCount();
      each[i] = tooMany ? query : page.rewrite(query, docIds[i]);
    }
    return each;
  }

  /**
   * The leaf queries of {@code query} rewritten for document {@code doc}: a pattern counts its
   * words in the document, any other leaf one.
   */
  private int leaves(Query query, int doc) throws IOException {
    if (query instanceof BooleanQuery bool) {
      int sum = 0;
      for (BooleanClause clause : bool.clauses()) {
        sum += leaves(clause.query(), doc);
      }
      return sum;
    }
    if (query instanceof BoostQuery boost) {
      return leaves(boost.getQuery(), doc);
    }
    if (query instanceof MultiTermQuery pattern) {
      List<BytesRef> found = words(pattern).get(doc);
      return found == null ? 0 : found.size();
    }
    return 1;
  }

  private static boolean hasPattern(Query query) {
    if (query instanceof BooleanQuery bool) {
      return bool.clauses().stream().anyMatch(c -> hasPattern(c.query()));
    }
    if (query instanceof BoostQuery boost) {
      return hasPattern(boost.getQuery());
    }
    return query instanceof MultiTermQuery;
  }

  private Query rewrite(Query query, int doc) throws IOException {
    if (query instanceof BooleanQuery bool) {
      BooleanQuery.Builder rebuilt =
          new BooleanQuery.Builder()
              .setMinimumNumberShouldMatch(bool.getMinimumNumberShouldMatch());
      for (BooleanClause clause : bool.clauses()) {
        rebuilt.add(rewrite(clause.query(), doc), clause.occur());
      }
      return rebuilt.build();
    }
    if (query instanceof BoostQuery boost) {
      return new BoostQuery(rewrite(boost.getQuery(), doc), boost.getBoost());
    }
    if (query instanceof MultiTermQuery pattern) {
      List<BytesRef> words = words(pattern).get(doc);
      if (words == null) {
        return new MatchNoDocsQuery("no word of " + pattern + " in this document");
      }
      List<Query> clauses = new ArrayList<>(words.size());
      for (BytesRef word : words) {
        clauses.add(new TermQuery(new Term(pattern.getField(), word)));
      }
      return any(clauses);
    }
    return query;
  }

  /** The words of {@code pattern} in each document of the page that has one. */
  private Map<Integer, List<BytesRef>> words(MultiTermQuery pattern) throws IOException {
    Map<Integer, List<BytesRef>> known = found.get(pattern);
    if (known == null) {
      known = find(pattern);
      found.put(pattern, known);
    }
    return known;
  }

  private Map<Integer, List<BytesRef>> find(MultiTermQuery pattern) throws IOException {
    Map<Integer, List<BytesRef>> byDoc = new HashMap<>();
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    for (int l = 0; l < leaves.size(); l++) {
      int[] docs = byLeaf[l];
      Terms terms = docs.length == 0 ? null : leaves.get(l).reader().terms(pattern.getField());
      if (terms == null) {
        continue;
      }
      int docBase = leaves.get(l).docBase;
      Reversed reversed = Reversed.of(pattern, leaves.get(l), reversedTwins);
      TermsEnum each = reversed == null ? pattern.getTermsEnum(terms) : reversed.words;
      PostingsEnum postings = null;
      for (BytesRef term = each.next(); term != null; term = each.next()) {
        BytesRef word = reversed == null ? term : reversed.back(term);
        if (word == null) {
          continue;
        }
        postings = each.postings(postings, PostingsEnum.NONE);
        BytesRef copy = null;
        for (int doc : docs) {
          int at = postings.docID() < doc ? postings.advance(doc) : postings.docID();
          if (at == DocIdSetIterator.NO_MORE_DOCS) {
            break;
          }
          if (at == doc) {
            copy = copy == null ? BytesRef.deepCopyOf(word) : copy;
            byDoc.computeIfAbsent(docBase + doc, d -> new ArrayList<>()).add(copy);
          }
        }
      }
      if (reversed != null) { // in the field's order, as its own enumeration gives them
        for (int doc : docs) {
          List<BytesRef> words = byDoc.get(docBase + doc);
          if (words != null) {
            words.sort(null);
          }
        }
      }
    }
    return byDoc;
  }

  /**
   * A pattern's words found in a leaf through the reversed twin of its field: {@code *tion} as the
   * prefix {@code noit} there. The twin holds every word of the field reversed, in the same
   * documents (both come from the same tokens), so the words and their documents are the same; each
   * word turned back is tested against the pattern all the same.
   */
  private record Reversed(TermsEnum words, ByteRunAutomaton pattern) {
    static Reversed of(MultiTermQuery query, LeafReaderContext leaf, Map<String, String> twins)
        throws IOException {
      String twin = twins.get(query.getField());
      if (twin == null || !(query instanceof WildcardQuery wildcard)) {
        return null;
      }
      String text = wildcard.getTerm().text();
      String rest = text.replaceFirst("^[*?]+", "");
      CompiledAutomaton compiled = wildcard.getCompiled();
      if (rest.equals(text)
          || rest.isEmpty()
          || rest.chars().anyMatch(c -> c == '*' || c == '?' || c == '\\')
          || compiled.type != CompiledAutomaton.AUTOMATON_TYPE.NORMAL) {
        return null;
      }
      Terms terms = leaf.reader().terms(twin);
      if (terms == null) {
        return null;
      }
      String lead = text.substring(0, text.length() - rest.length());
      Term prefix =
          new Term(twin, ReverseStringFilter.reverse(rest) + ReverseStringFilter.reverse(lead));
      return new Reversed(new WildcardQuery(prefix).getTermsEnum(terms), compiled.runAutomaton);
    }

    /** The field's word that {@code reversed} is, if the pattern matches it; else null. */
    BytesRef back(BytesRef reversed) {
      BytesRef word = new BytesRef(ReverseStringFilter.reverse(reversed.utf8ToString()));
      return pattern.run(word.bytes, word.offset, word.length) ? word : null;
    }
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
