package io.github.pylucenemcp.search;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Set;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexableField;
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
 * would cross the boundary several times per term): terms by prefix, the most frequent terms, and
 * groups of documents that share a content hash. Each answer is one JSON string.
 */
public final class Vocabulary {
  private Vocabulary() {}

  private record Entry(String term, int docFreq, long totalTermFreq) {}

  private static final Comparator<Entry> BY_FREQUENCY =
      Comparator.comparingInt(Entry::docFreq).thenComparing(Entry::term, Comparator.reverseOrder());

  /**
   * The {@code limit} terms of {@code field} that start with {@code prefix} (already normalized
   * like the field), most documents first: {@code {"terms": [[term, docFreq], ...], "scanned": n,
   * "complete": bool}}; at most {@code maxScan} terms are looked at.
   */
  public static String suggest(
      IndexReader reader, String field, String prefix, int limit, int maxScan) throws IOException {
    return scan(reader, field, prefix, limit, maxScan, false);
  }

  /**
   * The {@code limit} most frequent terms of {@code field} by document frequency, with their total
   * frequency: {@code {"terms": [[term, docFreq, totalTermFreq], ...], "scanned": n, "complete":
   * bool}}; at most {@code maxScan} terms are looked at.
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
   * Groups of live documents that share a value of {@code hashField}, largest first (only documents
   * whose {@code pathField} starts with {@code under}, when it is not empty): {@code {"total":
   * groups, "groups": [{"contentHash", "size", "documents": [{"filePath", "fileSize",
   * "modifiedDate"}]}]}} for the groups {@code offset} to {@code offset + limit}; each lists its
   * first {@code maxListed} documents by path, and {@code size} counts them all. The documents
   * whose hash is {@code apart} (the hash of no text: they are not copies of each other) make no
   * group; {@code "apart"} counts them.
   */
  public static String duplicates(
      IndexReader reader,
      String hashField,
      String pathField,
      String sizeField,
      String dateField,
      int minGroupSize,
      String under,
      int offset,
      int limit,
      int maxListed,
      String apart)
      throws IOException {
    Terms terms = MultiTerms.getTerms(reader, hashField);
    List<Group> groups = new ArrayList<>();
    Set<String> fields = Set.of(pathField, sizeField, dateField);
    long apartCount = 0;
    if (terms != null) {
      TermsEnum iterator = terms.iterator();
      BytesRef apartTerm = new BytesRef(apart);
      for (BytesRef term = iterator.next(); term != null; term = iterator.next()) {
        if (term.equals(apartTerm)) {
          apartCount = documents(reader, hashField, term, fields, pathField, under).size();
          continue;
        }
        if (iterator.docFreq() < minGroupSize) {
          continue;
        }
        List<Document> documents = documents(reader, hashField, term, fields, pathField, under);
        if (documents.size() >= minGroupSize) {
          documents.sort(Comparator.comparing(d -> d.get(pathField)));
          groups.add(new Group(term.utf8ToString(), documents));
        }
      }
    }
    groups.sort(
        Comparator.<Group>comparingInt(g -> -g.documents.size()).thenComparing(Group::hash));
    Json json = new Json().object().name("total").number(groups.size());
    json.name("apart").number(apartCount).name("groups").array();
    int end = Math.min(groups.size(), offset + limit);
    for (Group group : groups.subList(Math.min(offset, end), end)) {
      json.object().name("contentHash").string(group.hash);
      json.name("size").number(group.documents.size()).name("documents").array();
      for (Document document :
          group.documents.subList(0, Math.min(group.documents.size(), maxListed))) {
        json.object().name("filePath").string(document.get(pathField));
        IndexableField size = document.getField(sizeField);
        if (size != null && size.numericValue() != null) {
          json.name("fileSize").number(size.numericValue().longValue());
        }
        IndexableField date = document.getField(dateField);
        if (date != null && date.numericValue() != null) {
          json.name("modifiedDate").instant(date.numericValue().longValue());
        }
        json.end();
      }
      json.end().end();
    }
    return json.end().end().toString();
  }

  private record Group(String hash, List<Document> documents) {}

  private static List<Document> documents(
      IndexReader reader,
      String field,
      BytesRef term,
      Set<String> fields,
      String pathField,
      String under)
      throws IOException {
    List<Document> found = new ArrayList<>();
    for (LeafReaderContext leaf : reader.leaves()) {
      PostingsEnum postings = leaf.reader().postings(new org.apache.lucene.index.Term(field, term));
      if (postings == null) {
        continue;
      }
      Bits live = leaf.reader().getLiveDocs();
      StoredFields stored = leaf.reader().storedFields();
      for (int doc = postings.nextDoc();
          doc != DocIdSetIterator.NO_MORE_DOCS;
          doc = postings.nextDoc()) {
        if (live != null && !live.get(doc)) {
          continue;
        }
        Document document = stored.document(doc, fields);
        String path = document.get(pathField);
        if (path != null && (under.isEmpty() || path.startsWith(under))) {
          found.add(document);
        }
      }
    }
    return found;
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
    Json json = new Json().object().name("terms").array();
    for (Entry e : sorted) {
      json.array().string(e.term()).number(e.docFreq());
      if (withTotal) {
        json.number(e.totalTermFreq());
      }
      json.end();
    }
    json.end().name("scanned").number(scanned);
    return json.name("complete").bool(complete).end().toString();
  }
}
