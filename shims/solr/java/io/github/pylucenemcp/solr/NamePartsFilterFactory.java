package io.github.pylucenemcp.solr;

import io.github.pylucenemcp.analysis.NamePartsFilter;
import java.util.Map;
import org.apache.lucene.analysis.TokenFilterFactory;
import org.apache.lucene.analysis.TokenStream;

/**
 * The product's {@link NamePartsFilter} in a Solr schema ({@code ElementTree.write} also gives
 * {@code elementtree}, {@code element}, {@code tree}, {@code write}): the same source, compiled
 * against the Lucene that Solr carries.
 */
public final class NamePartsFilterFactory extends TokenFilterFactory {
  /** The SPI name. */
  public static final String NAME = "pyluceneNameParts";

  public NamePartsFilterFactory(Map<String, String> args) {
    super(args);
    if (!args.isEmpty()) {
      throw new IllegalArgumentException("unknown parameters: " + args);
    }
  }

  /** For the SPI loader only. */
  public NamePartsFilterFactory() {
    throw defaultCtorException();
  }

  @Override
  public TokenStream create(TokenStream input) {
    return new NamePartsFilter(input);
  }
}
