package io.github.pylucenemcp.highlight;

import org.apache.lucene.search.uhighlight.Passage;
import org.apache.lucene.search.uhighlight.PassageScorer;
import org.apache.lucene.util.BytesRef;

/**
 * Lucene's passage score (BM25 over the passage, by position), computed the same way and in the
 * same order, without the hash table Lucene's {@link PassageScorer#score} builds for every
 * candidate passage (a 32 KB block each: a sixth of a page's highlighting on documents with
 * thousands of matches). A passage has a few matches: its distinct terms are found by comparing
 * them.
 */
final class LeanPassageScorer extends PassageScorer {
  @Override
  public float score(Passage passage, int contentLength) {
    int matches = passage.getNumMatches();
    BytesRef[] terms = passage.getMatchTerms();
    int[] inDoc = passage.getMatchTermFreqsInDoc();
    // the distinct terms in order of first match, as Lucene numbers them
    int[] first = new int[matches];
    int[] inPassage = new int[matches];
    int distinct = 0;
    for (int i = 0; i < matches; i++) {
      int known = 0;
      while (known < distinct && !terms[first[known]].bytesEquals(terms[i])) {
        known++;
      }
      if (known == distinct) {
        first[distinct++] = i;
      }
      inPassage[known]++;
    }
    float score = 0;
    for (int t = 0; t < distinct; t++) {
      score += weight(contentLength, inDoc[first[t]]) * tf(inPassage[t], passage.getLength());
    }
    return score * norm(passage.getStartOffset());
  }
}
