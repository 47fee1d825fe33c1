package io.github.pylucenemcp.analysis;

import com.ibm.icu.text.Normalizer2;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import morfologik.stemming.Dictionary;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.core.KeywordAnalyzer;
import org.apache.lucene.analysis.custom.CustomAnalyzer;
import org.apache.lucene.analysis.de.GermanNormalizationFilter;
import org.apache.lucene.analysis.icu.ICUNormalizer2CharFilter;
import org.apache.lucene.analysis.icu.ICUNormalizer2Filter;
import org.apache.lucene.analysis.miscellaneous.ASCIIFoldingFilter;
import org.apache.lucene.analysis.miscellaneous.PerFieldAnalyzerWrapper;
import org.apache.lucene.analysis.reverse.ReverseStringFilter;
import org.apache.lucene.analysis.standard.StandardTokenizer;

/**
 * The analysis chains of the index schema (the keyword and file-name ones built with {@link
 * CustomAnalyzer}).
 *
 * <ul>
 *   <li>{@code content}: ICU NFKC char filter (ligatures, full-width forms; case kept), standard
 *       tokenizer, name parts ({@link NamePartsFilter}: {@code ElementTree.write} also gives {@code
 *       elementtree}, {@code element}, {@code tree}, {@code write}), NFKC case folding, lowercase,
 *       ASCII folding (diacritics, ß → ss). A query's words are analysed without the name parts
 *       ({@link #content(boolean)}).
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

  /** The analyzer of {@code content} and of the other analyzed text fields, names split. */
  public static Analyzer content() {
    return content(true);
  }

  /**
   * The analyzer of {@code content}; {@code nameParts}: names also give their parts ({@link
   * NamePartsFilter}), as the index has them; a query's words are analysed without (a query for the
   * whole name matches the whole name).
   */
  public static Analyzer content(boolean nameParts) {
    return chain(t -> contentChain(t, nameParts), Analyzers::contentNormalization);
  }

  /** The analyzer of {@code content_reversed}: content's chain, each token reversed. */
  public static Analyzer reversed() {
    return reversed(true);
  }

  /** {@link #reversed()}, names split or not (see {@link #content(boolean)}). */
  public static Analyzer reversed(boolean nameParts) {
    return chain(t -> reversedChain(t, nameParts), Analyzers::contentNormalization);
  }

  /** The analyzer of {@code content_translit_de}: German digraphs and umlauts meet. */
  public static Analyzer translitDe() {
    return translitDe(true);
  }

  /** {@link #translitDe()}, names split or not (see {@link #content(boolean)}). */
  public static Analyzer translitDe(boolean nameParts) {
    return chain(
        t -> translitChain(t, nameParts),
        t -> new ASCIIFoldingFilter(new GermanNormalizationFilter(contentFolded(t))));
  }

  /**
   * An analyzer of the content's text: {@link #normalized} (NFKC, case kept), the standard
   * tokenizer and {@code chain}; a pattern's or fuzzy word's text is normalized by {@code
   * normalization} (NFKC, case folded, and the chain's other per-character filters).
   */
  private static Analyzer chain(
      UnaryOperator<TokenStream> chain, UnaryOperator<TokenStream> normalization) {
    return new Analyzer() {
      @Override
      protected Reader initReader(String fieldName, Reader reader) {
        return normalized(reader);
      }

      @Override
      protected Reader initReaderForNormalization(String fieldName, Reader reader) {
        return normalized(reader);
      }

      @Override
      protected TokenStreamComponents createComponents(String fieldName) {
        StandardTokenizer tokenizer = new StandardTokenizer();
        return new TokenStreamComponents(tokenizer, chain.apply(tokenizer));
      }

      @Override
      protected TokenStream normalize(String fieldName, TokenStream in) {
        return normalization.apply(in);
      }
    };
  }

  private static TokenStream contentNormalization(TokenStream tokens) {
    return new ASCIIFoldingFilter(contentFolded(tokens));
  }

  /** The languages {@link #lemma} knows. */
  public static Set<String> lemmaLanguages() {
    return LemmaDictionaries.languages();
  }

  /**
   * The analyzer of a lemma field: NFKC, the standard tokenizer, case folding (a word is looked up
   * lowercased, then capitalized: German nouns), each word's lemmas from the dictionary of {@code
   * language} ("en" or "de"), lowercase, ASCII folding.
   */
  public static Analyzer lemma(String language) {
    Dictionary dictionary = LemmaDictionaries.of(language);
    boolean compounds = LemmaDictionaries.compounds(language);
    return chain(
        t -> lemmaChain(t, dictionary, compounds),
        t -> new ASCIIFoldingFilter(new LowerCaseFilter(t)));
  }

  /** NFKC, case kept: the content's char filter (ligatures, full-width forms). */
  private static final Normalizer2 NFKC =
      Normalizer2.getInstance(null, "nfkc", Normalizer2.Mode.COMPOSE);

  /**
   * NFKC with case folding, as every chain of the content folds its tokens (after {@link
   * NamePartsFilter}, which needs the case); the same tokens as the char filter of NFKC with case
   * folding gave before the tokenizer (folding NFKC text is folding the text).
   */
  private static final Normalizer2 NFKC_CF =
      Normalizer2.getInstance(null, "nfkc_cf", Normalizer2.Mode.COMPOSE);

  /** {@code reader} through the content's char filter (NFKC, case kept). */
  public static Reader normalized(Reader reader) {
    return new ICUNormalizer2CharFilter(reader, NFKC);
  }

  /** Tokens of NFKC text case folded as NFKC_Casefold, then lowercase. */
  private static TokenStream contentFolded(TokenStream tokens) {
    return new LowerCaseFilter(new ICUNormalizer2Filter(tokens, NFKC_CF));
  }

  /*
   * The filters after the tokenizer of each content chain, for one tokenization of the content
   * shared by all its twins (index.SchemaWriter); each must make the tokens its analyzer above
   * makes (AnalyzersTest checks it on mixed text).
   */

  /** {@link #content()}'s filters. */
  public static TokenStream contentChain(TokenStream tokens) {
    return contentChain(tokens, true);
  }

  private static TokenStream contentChain(TokenStream tokens, boolean nameParts) {
    return new ASCIIFoldingFilter(contentFolded(nameParts ? new NamePartsFilter(tokens) : tokens));
  }

  /** {@link #reversed()}'s filters. */
  public static TokenStream reversedChain(TokenStream tokens) {
    return reversedChain(tokens, true);
  }

  private static TokenStream reversedChain(TokenStream tokens, boolean nameParts) {
    return new ReverseStringFilter(contentChain(tokens, nameParts));
  }

  /** {@link #translitDe()}'s filters. */
  public static TokenStream translitChain(TokenStream tokens) {
    return translitChain(tokens, true);
  }

  private static TokenStream translitChain(TokenStream tokens, boolean nameParts) {
    TokenStream split = nameParts ? new NamePartsFilter(tokens) : tokens;
    return new ASCIIFoldingFilter(new GermanNormalizationFilter(contentFolded(split)));
  }

  /** {@link #lemma}'s filters for {@code language}. */
  public static TokenStream lemmaChain(TokenStream tokens, String language) {
    return lemmaChain(
        tokens, LemmaDictionaries.of(language), LemmaDictionaries.compounds(language));
  }

  /** German compounds outside the dictionary take their tail's forms ({@link LemmaFilter}). */
  private static TokenStream lemmaChain(
      TokenStream tokens, Dictionary dictionary, boolean compounds) {
    return new ASCIIFoldingFilter(
        new LowerCaseFilter(new LemmaFilter(contentFolded(tokens), dictionary, compounds)));
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
    return perField(
        reversedField,
        translitField,
        keywordFields,
        caselessFields,
        lemmaFields,
        fileNameField,
        true);
  }

  /**
   * As above; {@code nameParts}: the content's chains split names ({@link NamePartsFilter}), as the
   * index analyses them; without, as a query's words are analysed.
   */
  public static Analyzer perField(
      String reversedField,
      String translitField,
      Set<String> keywordFields,
      Set<String> caselessFields,
      Map<String, String> lemmaFields,
      String fileNameField,
      boolean nameParts) {
    Map<String, Analyzer> fields = new HashMap<>();
    if (fileNameField != null) {
      fields.put(fileNameField, fileName());
    }
    lemmaFields.forEach((field, language) -> fields.put(field, lemma(language)));
    fields.put(reversedField, reversed(nameParts));
    fields.put(translitField, translitDe(nameParts));
    Analyzer keyword = keyword();
    for (String field : keywordFields) {
      fields.put(field, keyword);
    }
    Analyzer caseless = caselessKeyword();
    for (String field : caselessFields) {
      fields.put(field, caseless);
    }
    return new PerFieldAnalyzerWrapper(content(nameParts), fields);
  }
}
