package io.github.pylucenemcp.analysis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.core.KeywordAnalyzer;
import org.apache.lucene.analysis.custom.CustomAnalyzer;
import org.apache.lucene.analysis.miscellaneous.PerFieldAnalyzerWrapper;

/**
 * The analysis chains of the index schema, built with {@link CustomAnalyzer}.
 *
 * <ul>
 *   <li>{@code content}: ICU NFKC char filter (ligatures, full-width forms), standard tokenizer,
 *       lowercase, ASCII folding (diacritics, ß → ss).
 *   <li>{@code content_reversed}: the same, then every token reversed, so a leading wildcard
 *       becomes a prefix query.
 *   <li>{@code content_translit_de}: lowercase, then German normalization before folding, so that
 *       "Mueller" and "Müller" both become "muller", "Strasse"/"Straße" "strasse", "Kaese"/"Käse"
 *       "kase".
 * </ul>
 */
public final class Analyzers {
  private Analyzers() {}

  private static CustomAnalyzer.Builder base() throws IOException {
    return CustomAnalyzer.builder()
        .addCharFilter("icuNormalizer2", "name", "nfkc", "mode", "compose")
        .withTokenizer("standard")
        .addTokenFilter("lowercase");
  }

  /** The analyzer of {@code content} and of the other analyzed text fields. */
  public static Analyzer content() {
    try {
      return base().addTokenFilter("asciiFolding").build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The analyzer of {@code content_reversed}: content's chain, each token reversed. */
  public static Analyzer reversed() {
    try {
      return base().addTokenFilter("asciiFolding").addTokenFilter("reverseString").build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The analyzer of {@code content_translit_de}: German digraphs and umlauts meet. */
  public static Analyzer translitDe() {
    try {
      return base().addTokenFilter("germanNormalization").addTokenFilter("asciiFolding").build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Exact keyword fields (file_path): the whole value is one token, as it is. */
  public static Analyzer keyword() {
    return new KeywordAnalyzer();
  }

  /** Caseless keyword fields (language, file_extension …): the whole value, lowercased. */
  public static Analyzer caselessKeyword() {
    try {
      return CustomAnalyzer.builder().withTokenizer("keyword").addTokenFilter("lowercase").build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The analyzer of the whole schema: content's chain for every analyzed text field not named
   * here, the shadow chains for the shadow fields, and the keyword analyzer for keyword fields.
   */
  public static Analyzer perField(
      String reversedField, String translitField, Set<String> keywordFields) {
    return perField(reversedField, translitField, keywordFields, Set.of());
  }

  /**
   * As {@link #perField(String, String, Set)}, with {@code caselessFields} lowercased whole
   * (the values the index holds there are lowercase, so a query in any case finds them).
   */
  public static Analyzer perField(
      String reversedField,
      String translitField,
      Set<String> keywordFields,
      Set<String> caselessFields) {
    Map<String, Analyzer> fields = new HashMap<>();
    fields.put(reversedField, reversed());
    fields.put(translitField, translitDe());
    Analyzer keyword = keyword();
    for (String field : keywordFields) {
      fields.put(field, keyword);
    }
    Analyzer caseless = caselessKeyword();
    for (String field : caselessFields) {
      fields.put(field, caseless);
    }
    return new PerFieldAnalyzerWrapper(content(), fields);
  }
}
