package io.github.pylucenemcp.analysis;

import com.ibm.icu.text.Normalizer2;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import morfologik.stemming.Dictionary;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.core.KeywordAnalyzer;
import org.apache.lucene.analysis.custom.CustomAnalyzer;
import org.apache.lucene.analysis.de.GermanNormalizationFilter;
import org.apache.lucene.analysis.icu.ICUNormalizer2CharFilter;
import org.apache.lucene.analysis.miscellaneous.ASCIIFoldingFilter;
import org.apache.lucene.analysis.miscellaneous.PerFieldAnalyzerWrapper;
import org.apache.lucene.analysis.reverse.ReverseStringFilter;
import org.apache.lucene.analysis.standard.StandardTokenizer;

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
 *   <li>{@code content_lemma_en}, {@code content_lemma_de}: content's chain with each word replaced
 *       by its dictionary lemmas before lowercasing ({@link LemmaFilter}), so that "locks" and
 *       "locked" both become "lock", "Häuser" "haus".
 * </ul>
 */
public final class Analyzers {
  private Analyzers() {}

  private static CustomAnalyzer.Builder base() throws IOException {
    // NFKC with case folding (ICU's nfkc_cf, the char filter's default: "name" was never its
    // parameter, "form" is), as the content has been indexed from the start
    return CustomAnalyzer.builder()
        .addCharFilter("icuNormalizer2", "form", "nfkc_cf", "mode", "compose")
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

  /** The languages that have a lemma dictionary: ISO 639-1 code → its LanguageTool resource. */
  private static final Map<String, String> DICTIONARIES =
      Map.of(
          "en", "org/languagetool/resource/en/english.dict",
          "de", "org/languagetool/resource/de/german.dict");

  private static final Map<String, Dictionary> LOADED = new ConcurrentHashMap<>();

  /** The languages {@link #lemma} knows. */
  public static Set<String> lemmaLanguages() {
    return DICTIONARIES.keySet();
  }

  private static Dictionary dictionary(String language) {
    String resource = DICTIONARIES.get(language);
    if (resource == null) {
      throw new IllegalArgumentException(
          "no lemma dictionary for language '"
              + language
              + "'; there are: "
              + DICTIONARIES.keySet());
    }
    return LOADED.computeIfAbsent(
        language,
        l -> {
          URL url = Analyzers.class.getClassLoader().getResource(resource);
          if (url == null) {
            throw new IllegalStateException(resource + " is not on the class path");
          }
          try {
            return Dictionary.read(url);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  /**
   * The analyzer of a lemma field: NFKC with case folding, the standard tokenizer (a word is looked
   * up lowercased, then capitalized: German nouns), each word's lemmas from the dictionary of
   * {@code language} ("en" or "de"), lowercase, ASCII folding.
   */
  public static Analyzer lemma(String language) {
    Dictionary dictionary = dictionary(language);
    boolean compounds = "de".equals(language);
    return new Analyzer() {
      @Override
      protected Reader initReader(String fieldName, Reader reader) {
        return normalized(reader);
      }

      @Override
      protected TokenStreamComponents createComponents(String fieldName) {
        StandardTokenizer tokenizer = new StandardTokenizer();
        return new TokenStreamComponents(tokenizer, lemmaChain(tokenizer, dictionary, compounds));
      }

      @Override
      protected TokenStream normalize(String fieldName, TokenStream in) {
        return new ASCIIFoldingFilter(new LowerCaseFilter(in));
      }
    };
  }

  /** NFKC with case folding, as every chain of the content starts (the text fields' too). */
  private static final Normalizer2 NFKC_CF =
      Normalizer2.getInstance(null, "nfkc_cf", Normalizer2.Mode.COMPOSE);

  /** {@code reader} through the content's char filter (NFKC with case folding). */
  public static Reader normalized(Reader reader) {
    return new ICUNormalizer2CharFilter(reader, NFKC_CF);
  }

  /*
   * The filters after the tokenizer of each content chain, for one tokenization of the content
   * shared by all its twins (index.SchemaWriter); each must make the tokens its analyzer above
   * makes (AnalyzersTest checks it on mixed text).
   */

  /** {@link #content()}'s filters. */
  public static TokenStream contentChain(TokenStream tokens) {
    return new ASCIIFoldingFilter(new LowerCaseFilter(tokens));
  }

  /** {@link #reversed()}'s filters. */
  public static TokenStream reversedChain(TokenStream tokens) {
    return new ReverseStringFilter(contentChain(tokens));
  }

  /** {@link #translitDe()}'s filters. */
  public static TokenStream translitChain(TokenStream tokens) {
    return new ASCIIFoldingFilter(new GermanNormalizationFilter(new LowerCaseFilter(tokens)));
  }

  /** {@link #lemma}'s filters for {@code language}. */
  public static TokenStream lemmaChain(TokenStream tokens, String language) {
    return lemmaChain(tokens, dictionary(language), "de".equals(language));
  }

  /** German compounds outside the dictionary take their tail's forms ({@link LemmaFilter}). */
  private static TokenStream lemmaChain(
      TokenStream tokens, Dictionary dictionary, boolean compounds) {
    return new ASCIIFoldingFilter(
        new LowerCaseFilter(new LemmaFilter(tokens, dictionary, compounds)));
  }

  /**
   * The analyzer of {@code file_name}: split at spaces, then at dots, dashes, underscores, case
   * changes and digits ({@code WordDelimiterGraphFilter}), keeping the whole name too, so that
   * "Annual_Report-2024.pdf" is found by {@code report}, {@code 2024}, {@code pdf} and by its whole
   * name; lowercase, ASCII folding.
   */
  public static Analyzer fileName() {
    try {
      return CustomAnalyzer.builder()
          .addCharFilter("icuNormalizer2", "form", "nfkc", "mode", "compose") // case kept
          .withTokenizer("whitespace")
          .addTokenFilter(
              "wordDelimiterGraph",
              "preserveOriginal",
              "1",
              "splitOnCaseChange",
              "1",
              "splitOnNumerics",
              "1",
              "generateWordParts",
              "1",
              "generateNumberParts",
              "1",
              "stemEnglishPossessive",
              "0")
          .addTokenFilter("flattenGraph")
          .addTokenFilter("lowercase")
          .addTokenFilter("asciiFolding")
          .build();
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
   * The analyzer of the whole schema: content's chain for every analyzed text field not named here,
   * the shadow chains for the shadow fields, and the keyword analyzer for keyword fields.
   */
  public static Analyzer perField(
      String reversedField, String translitField, Set<String> keywordFields) {
    return perField(reversedField, translitField, keywordFields, Set.of());
  }

  /**
   * As {@link #perField(String, String, Set)}, with {@code caselessFields} lowercased whole (the
   * values the index holds there are lowercase, so a query in any case finds them).
   */
  public static Analyzer perField(
      String reversedField,
      String translitField,
      Set<String> keywordFields,
      Set<String> caselessFields) {
    return perField(reversedField, translitField, keywordFields, caselessFields, Map.of());
  }

  /**
   * As {@link #perField(String, String, Set, Set)}, with the lemma fields: field → language ({@code
   * content_lemma_en} → "en").
   */
  public static Analyzer perField(
      String reversedField,
      String translitField,
      Set<String> keywordFields,
      Set<String> caselessFields,
      Map<String, String> lemmaFields) {
    return perField(reversedField, translitField, keywordFields, caselessFields, lemmaFields, null);
  }

  /** As above, with {@code fileNameField} split into words ({@link #fileName}); null: none. */
  public static Analyzer perField(
      String reversedField,
      String translitField,
      Set<String> keywordFields,
      Set<String> caselessFields,
      Map<String, String> lemmaFields,
      String fileNameField) {
    Map<String, Analyzer> fields = new HashMap<>();
    if (fileNameField != null) {
      fields.put(fileNameField, fileName());
    }
    lemmaFields.forEach((field, language) -> fields.put(field, lemma(language)));
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
