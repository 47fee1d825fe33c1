package io.github.pylucenemcp.search;

/**
 * How a filter of a {@link SearchRequest} takes part in the search. Python names these constants
 * (it passes {@code FilterKind.DRILL_DOWN} itself), so there is one list of them.
 */
public enum FilterKind {
  /** A clause every hit matches; counted with the query alone. */
  FILTER,
  /** A clause no hit matches. */
  EXCLUDE,
  /**
   * Values of a facet dimension, chosen by drill-down ({@link SearchRequest#drillDown}): the
   * dimension's facet still counts its other values. The filter's query is what its count counts.
   */
  DRILL_DOWN
}
