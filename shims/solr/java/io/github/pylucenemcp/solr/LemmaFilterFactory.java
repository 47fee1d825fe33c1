package io.github.pylucenemcp.solr;

import io.github.pylucenemcp.analysis.LemmaDictionaries;
import io.github.pylucenemcp.analysis.LemmaFilter;
import java.util.Map;
import morfologik.stemming.Dictionary;
import org.apache.lucene.analysis.TokenFilterFactory;
import org.apache.lucene.analysis.TokenStream;

/**
 * The product's {@link LemmaFilter} in a Solr schema: {@code language="en"} or {@code "de"} looks
 * words up in LanguageTool's dictionary of that language (its jar on the node's class path), German
 * compounds outside it taking their tail's forms, as the embedded index does.
 */
public final class LemmaFilterFactory extends TokenFilterFactory {
  /** The SPI name. */
  public static final String NAME = "pyluceneLemma";

  private final Dictionary dictionary;
  private final boolean compounds;

  public LemmaFilterFactory(Map<String, String> args) {
    super(args);
    String language = require(args, "language");
    if (!args.isEmpty()) {
      throw new IllegalArgumentException("unknown parameters: " + args);
    }
    this.dictionary = LemmaDictionaries.of(language);
    this.compounds = LemmaDictionaries.compounds(language);
  }

  /** For the SPI loader only. */
  public LemmaFilterFactory() {
    throw defaultCtorException();
  }

  @Override
  public TokenStream create(TokenStream input) {
    return new LemmaFilter(input, dictionary, compounds);
  }
}
