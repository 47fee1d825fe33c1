package io.github.pylucenemcp.analysis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import morfologik.stemming.Dictionary;

/**
 * The lemma dictionaries (LanguageTool's Morfologik dictionaries, from their jars on the class
 * path), each read once. Free of Lucene, so that the Solr plugin shares it with the embedded index.
 */
public final class LemmaDictionaries {
  private LemmaDictionaries() {}

  /** The languages that have a lemma dictionary: ISO 639-1 code → its LanguageTool resource. */
  private static final Map<String, String> RESOURCES =
      Map.of(
          "en", "org/languagetool/resource/en/english.dict",
          "de", "org/languagetool/resource/de/german.dict");

  private static final Map<String, Dictionary> LOADED = new ConcurrentHashMap<>();

  /** The languages {@link #of} knows. */
  public static Set<String> languages() {
    return RESOURCES.keySet();
  }

  /** The dictionary of {@code language} ("en" or "de"). */
  public static Dictionary of(String language) {
    String resource = RESOURCES.get(language);
    if (resource == null) {
      throw new IllegalArgumentException(
          "no lemma dictionary for language '" + language + "'; there are: " + RESOURCES.keySet());
    }
    return LOADED.computeIfAbsent(
        language,
        l -> {
          URL url = LemmaDictionaries.class.getClassLoader().getResource(resource);
          if (url == null) {
            throw new IllegalStateException(
                resource + " is not on the class path (LanguageTool's dictionary jar)");
          }
          try {
            return Dictionary.read(url);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  /** Whether the language's compounds outside the dictionary take their tail's forms (German). */
  public static boolean compounds(String language) {
    return "de".equals(language);
  }
}
