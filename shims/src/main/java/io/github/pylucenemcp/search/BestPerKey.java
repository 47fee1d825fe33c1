package io.github.pylucenemcp.search;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.util.BytesRef;

/**
 * Each key's best-scoring document among those offered in document order (the first of a tie
 * stays), and the best of them: a semantic search's documents, each by its best chunk.
 */
final class BestPerKey {
  private final Map<BytesRef, ScoreDoc> best = new HashMap<>();

  /** {@code doc} (a top-level document number) with {@code score} for {@code key}. */
  void offer(BytesRef key, int doc, float score) {
    ScoreDoc known = best.get(key);
    if (known == null) {
      best.put(BytesRef.deepCopyOf(key), new ScoreDoc(doc, score));
    } else if (score > known.score) { // documents come in order: the first of a tie stays
      known.doc = doc;
      known.score = score;
    }
  }

  /** The keys' best documents, best first (ties by document), at most {@code max}. */
  TopDocs top(int max, TotalHits.Relation relation) {
    List<ScoreDoc> found = new ArrayList<>(best.values());
    found.sort(
        (a, b) ->
            a.score != b.score ? Float.compare(b.score, a.score) : Integer.compare(a.doc, b.doc));
    ScoreDoc[] kept = found.subList(0, Math.min(max, found.size())).toArray(new ScoreDoc[0]);
    return new TopDocs(new TotalHits(found.size(), relation), kept);
  }
}
