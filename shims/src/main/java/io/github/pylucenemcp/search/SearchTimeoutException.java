package io.github.pylucenemcp.search;

/** A search ran out of its time before it had anything to show (pylucene_mcp maps it). */
public final class SearchTimeoutException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final long limitMillis;

  public SearchTimeoutException(long limitMillis, Throwable cause) {
    super(
        "the search ran out of its time limit of "
            + limitMillis
            + " ms before it had results to show",
        cause);
    this.limitMillis = limitMillis;
  }

  public long getLimitMillis() {
    return limitMillis;
  }
}
