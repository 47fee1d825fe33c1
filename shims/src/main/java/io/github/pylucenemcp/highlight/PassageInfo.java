package io.github.pylucenemcp.highlight;

/** One passage as the search results show it; plain values for the Python side. */
public final class PassageInfo {
  /** The passage text, at most maxChars visible characters, matches inside {@code <em>}. */
  public final String text;

  /** This passage's BM25 passage score relative to the document's best passage (best = 1.0). */
  public final float score;

  /** The distinct words of the document that matched, as written there. */
  public final String[] matchedTerms;

  /** The share (0–1) of the query's terms, phrases and patterns that occur in the passage. */
  public final float termCoverage;

  /** Where the passage starts in the document: 0 = start, 1 = end. */
  public final float position;

  /** Character offsets of the shown text in the stored content. */
  public final int startOffset;

  public final int endOffset;

  PassageInfo(
      String text,
      float score,
      String[] matchedTerms,
      float termCoverage,
      float position,
      int startOffset,
      int endOffset) {
    this.text = text;
    this.score = score;
    this.matchedTerms = matchedTerms;
    this.termCoverage = termCoverage;
    this.position = position;
    this.startOffset = startOffset;
    this.endOffset = endOffset;
  }
}
