package io.github.pylucenemcp.search;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.StringHelper;

/**
 * What the index's vocabulary holds, in one call each (walking a terms dictionary through JPype
 * would cross the boundary several times per term): terms by prefix, the most frequent terms,
 * and groups of documents that share a content hash. Each answer is one JSON string.
 */
public final class Vocabulary {
  private Vocabulary() {}

  private record Entry(String term, int docFreq, long totalTermFreq) {}

  private static final Comparator<Entry> BY_FREQUENCY =
      Comparator.comparingInt(Entry::docFreq).thenComparing(Entry::term, Comparator.reverseOrder());

  /**
   * The {@code limit} terms of {@code field} that start with {@code prefix} (already normalized
   * like the field), most documents first: {@code {"terms": [[term, docFreq], ...],
   * "scanned": n, "complete": bool}}; at most {@code maxScan} terms are looked at.
   */
  public static String suggest(
      IndexReader reader, String field, String prefix, int limit, int maxScan) throws IOException {
    return scan(reader, field, prefix, limit, maxScan, false);
  }

  /**
   * The {@code limit} most frequent terms of {@code field} by document frequency, with their
   * total frequency: {@code {"terms": [[term, docFreq, totalTermFreq], ...], "scanned": n,
   * "complete": bool}}; at most {@code maxScan} terms are looked at.
   */
  public static String top(IndexReader reader, String field, int limit, int maxScan)
      throws IOException {
    return scan(reader, field, "", limit, maxScan, true);
  }

  /** The most frequent of the first {@code maxScan} terms that start with {@code prefix}. */
  private static String scan(
      IndexReader reader, String field, String prefix, int limit, int maxScan, boolean withTotal)
      throws IOException {
    Terms terms = MultiTerms.getTerms(reader, field);
    PriorityQueue<Entry> best = new PriorityQueue<>(BY_FREQUENCY);
    int scanned = 0;
    boolean complete = true;
    if (terms != null) {
      TermsEnum iterator = terms.iterator();
      BytesRef start = new BytesRef(prefix);
      if (iterator.seekCeil(start) != TermsEnum.SeekStatus.END) {
        for (BytesRef term = iterator.term(); term != null; term = iterator.next()) {
          if (!StringHelper.startsWith(term, start)) {
            break;
          }
          if (scanned >= maxScan) {
            complete = false;
            break;
          }
          scanned++;
          long total = withTotal ? iterator.totalTermFreq() : -1;
          offer(best, new Entry(term.utf8ToString(), iterator.docFreq(), total), limit);
        }
      }
    }
    return answer(best, scanned, complete, withTotal);
  }

  /**
   * Groups of live documents that share a value of {@code hashField}, largest first, each with
   * the stored {@code pathField} of its documents (only paths that start with {@code under},
   * when it is not empty): {@code {"total": groups, "groups": [{"hash", "size", "paths"}]}} for
   * the groups {@code offset} to {@code offset + limit}.
   */
  public static String duplicates(
      IndexReader reader,
      String hashField,
      String pathField,
      int minGroupSize,
      String under,
      int offset,
      int limit)
      throws IOException {
    Terms terms = MultiTerms.getTerms(reader, hashField);
    List<Object[]> groups = new ArrayList<>();
    if (terms != null) {
      TermsEnum iterator = terms.iterator();
      for (BytesRef term = iterator.next(); term != null; term = iterator.next()) {
        if (iterator.docFreq() < minGroupSize) {
          continue;
        }
        List<String> paths = paths(reader, hashField, term, pathField, under);
        if (paths.size() >= minGroupSize) {
          paths.sort(null);
          groups.add(new Object[] {term.utf8ToString(), paths});
        }
      }
    }
    groups.sort(
        Comparator.<Object[]>comparingInt(g -> -((List<?>) g[1]).size())
            .thenComparing(g -> (String) g[0]));
    Json json = new Json().raw("{\"total\":").number((long) groups.size()).raw(",\"groups\":[");
    int end = Math.min(groups.size(), offset + limit);
    for (int i = offset; i < end; i++) {
      @SuppressWarnings("unchecked")
      List<String> paths = (List<String>) groups.get(i)[1];
      json.raw(i == offset ? "{\"hash\":" : ",{\"hash\":").string((String) groups.get(i)[0]);
      json.raw(",\"size\":").number((long) paths.size()).raw(",\"paths\":[");
      for (int p = 0; p < paths.size(); p++) {
        json.raw(p == 0 ? "" : ",").string(paths.get(p));
      }
      json.raw("]}");
    }
    return json.raw("]}").toString();
  }

  private static List<String> paths(
      IndexReader reader, String field, BytesRef term, String pathField, String under)
      throws IOException {
    List<String> paths = new ArrayList<>();
    for (LeafReaderContext leaf : reader.leaves()) {
      PostingsEnum postings = leaf.reader().postings(new org.apache.lucene.index.Term(field, term));
      if (postings == null) {
        continue;
      }
      Bits live = leaf.reader().getLiveDocs();
      StoredFields stored = leaf.reader().storedFields();
      for (int doc = postings.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = postings.nextDoc()) {
        if (live != null && !live.get(doc)) {
          continue;
        }
        String path = stored.document(doc, java.util.Set.of(pathField)).get(pathField);
        if (path != null && (under.isEmpty() || path.startsWith(under))) {
          paths.add(path);
        }
      }
    }
    return paths;
  }

  private static void offer(PriorityQueue<Entry> best, Entry entry, int limit) {
    if (best.size() < limit) {
      best.add(entry);
    } else if (limit > 0 && BY_FREQUENCY.compare(entry, best.peek()) > 0) {
      best.poll();
      best.add(entry);
    }
  }

  private static String answer(
      PriorityQueue<Entry> best, int scanned, boolean complete, boolean withTotal) {
    List<Entry> sorted = new ArrayList<>(best);
    sorted.sort(BY_FREQUENCY.reversed());
    Json json = new Json().raw("{\"terms\":[");
    for (int i = 0; i < sorted.size(); i++) {
      Entry e = sorted.get(i);
      json.raw(i == 0 ? "[" : ",[").string(e.term()).raw(",").number((long) e.docFreq());
      if (withTotal) {
        json.raw(",").number(e.totalTermFreq());
      }
      json.raw("]");
    }
    json.raw("],\"scanned\":").number((long) scanned);
    return json.raw(",\"complete\":").raw(complete ? "true" : "false").raw("}").toString();
  }
}
