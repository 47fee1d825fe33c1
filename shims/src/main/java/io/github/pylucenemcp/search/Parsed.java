package io.github.pylucenemcp.search;

import java.util.List;
import org.apache.lucene.search.Query;

/**
 * A query parsed for searching and for highlighting, with the highlight's units. {@code query} is
 * the query on the content (its rewrites, what profileQuery and explainMiss take apart); {@code
 * matchQuery} is what a search matches and scores: the content query, or the same query on each
 * field the schema also searches (title, file name), weighted.
 */
public final class Parsed {
  public final Query query;
  public final Query matchQuery;
  public final Query highlightQuery;
  public final List<Query> units;

  /** {@code *} or {@code *:*}: every document, nothing to highlight. */
  public final boolean matchAll;

  Parsed(Query query, Query matchQuery, Query highlightQuery, List<Query> units, boolean matchAll) {
    this.query = query;
    this.matchQuery = matchQuery;
    this.highlightQuery = highlightQuery;
    this.units = units;
    this.matchAll = matchAll;
  }
}
