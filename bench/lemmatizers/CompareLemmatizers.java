import io.github.pylucenemcp.analysis.Analyzers;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import morfologik.stemming.Dictionary;
import morfologik.stemming.DictionaryLookup;
import morfologik.stemming.WordData;
import opennlp.tools.lemmatizer.LemmatizerME;
import opennlp.tools.lemmatizer.LemmatizerModel;
import opennlp.tools.postag.POSModel;
import opennlp.tools.postag.POSTaggerME;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.miscellaneous.ASCIIFoldingFilter;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;

/**
 * Two lemmatizers for the lemma fields, compared on quality and cost (docs/relevance.md):
 * OpenNLP (part-of-speech tagger, then the statistical lemmatizer; the models of the
 * opennlp-models-pos-* and -lemmatizer-* artifacts) and Morfologik's lookup in LanguageTool's
 * dictionaries (what the product uses). Quality: the share of word forms in real sentences
 * (en.tsv, de.tsv: sentence TAB form=lemma,...) whose lemma each one finds. Cost: tokens per
 * second over a text file, after the standard tokenizer, three rounds.
 *
 * <p>Run by {@code gradle -q compareLemmatizers} (bench/lemmatizers.py).
 */
public final class CompareLemmatizers {
  private CompareLemmatizers() {}

  static String[] tokens(String text) throws IOException {
    List<String> out = new ArrayList<>();
    try (StandardTokenizer tokenizer = new StandardTokenizer()) {
      tokenizer.setReader(new StringReader(text));
      CharTermAttribute term = tokenizer.addAttribute(CharTermAttribute.class);
      tokenizer.reset();
      while (tokenizer.incrementToken()) {
        out.add(term.toString());
      }
      tokenizer.end();
    }
    return out.toArray(new String[0]);
  }

  static InputStream resource(String name) {
    InputStream in = CompareLemmatizers.class.getClassLoader().getResourceAsStream(name);
    if (in == null) {
      throw new IllegalStateException(name + " is not on the class path");
    }
    return in;
  }

  /** Morfologik's lemmas of a word as written, lowercased and capitalized, as the product's. */
  static Set<String> lookup(DictionaryLookup dictionary, String word) {
    Set<String> found = new TreeSet<>();
    String lower = word.toLowerCase(Locale.ROOT);
    String capital = Character.toUpperCase(lower.charAt(0)) + lower.substring(1);
    for (String form : new java.util.LinkedHashSet<>(List.of(word, lower, capital))) {
      for (WordData entry : dictionary.lookup(form)) {
        found.add(entry.getStem().toString());
      }
    }
    return found;
  }

  /**
   * The product's lemmas of a word: the lemma field's analyzer (Morfologik's lookup, and for
   * German a compound outside the dictionary the forms of its longest known tail), folded.
   */
  static Set<String> product(Analyzer analyzer, String word) throws java.io.IOException {
    Set<String> found = new TreeSet<>();
    try (TokenStream ts = analyzer.tokenStream("f", word)) {
      CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
      ts.reset();
      while (ts.incrementToken()) {
        found.add(term.toString());
      }
      ts.end();
    }
    return found;
  }

  /** {@code word} as the lemma fields hold it: lowercase, ASCII-folded. */
  static String folded(String word) {
    char[] in = word.toLowerCase(Locale.ROOT).toCharArray();
    char[] out = new char[in.length * 4];
    int n = ASCIIFoldingFilter.foldToASCII(in, 0, out, 0, in.length);
    return new String(out, 0, n);
  }

  public static void main(String[] args) throws Exception {
    String language = args[0];
    Path sentences = Path.of(args[1]);
    String ud = language.equals("en") ? "en-ud-ewt" : "de-ud-gsd";
    long start = System.nanoTime();
    POSTaggerME tagger =
        new POSTaggerME(new POSModel(resource("opennlp-" + ud + "-pos-1.3-2.5.4.bin")));
    LemmatizerME lemmatizer =
        new LemmatizerME(new LemmatizerModel(resource("opennlp-" + ud + "-lemmas-1.3-2.5.4.bin")));
    long openNlpLoad = System.nanoTime() - start;
    start = System.nanoTime();
    String dict = language.equals("en") ? "en/english.dict" : "de/german.dict";
    DictionaryLookup morfologik =
        new DictionaryLookup(
            Dictionary.read(
                CompareLemmatizers.class
                    .getClassLoader()
                    .getResource("org/languagetool/resource/" + dict)));
    long morfologikLoad = System.nanoTime() - start;
    Analyzer lemmaField = Analyzers.lemma(language);
    int forms = 0;
    int openNlpRight = 0;
    int morfologikRight = 0;
    int productRight = 0;
    int productWrong = 0; // a lemma that is neither the one wanted nor the word itself
    for (String line : Files.readAllLines(sentences)) {
      if (line.isBlank()) {
        continue;
      }
      String[] parts = line.split("\t");
      String[] words = tokens(parts[0]);
      String[] lemmas = lemmatizer.lemmatize(words, tagger.tag(words));
      for (String pair : parts[1].split(",")) {
        String form = pair.split("=")[0];
        String want = pair.split("=")[1];
        String openNlp = lemmas[Arrays.asList(words).indexOf(form)];
        Set<String> fromDictionary = lookup(morfologik, form);
        boolean openNlpOk = openNlp.equalsIgnoreCase(want);
        boolean morfologikOk = fromDictionary.stream().anyMatch(want::equalsIgnoreCase);
        Set<String> ours = product(lemmaField, form);
        boolean productOk = ours.contains(folded(want));
        forms++;
        openNlpRight += openNlpOk ? 1 : 0;
        morfologikRight += morfologikOk ? 1 : 0;
        productRight += productOk ? 1 : 0;
        for (String lemma : ours) {
          productWrong += lemma.equals(folded(want)) || lemma.equals(folded(form)) ? 0 : 1;
        }
        if (!openNlpOk || !morfologikOk || !productOk) {
          System.out.printf(
              "  %-22s want %-20s OpenNLP %-20s Morfologik %-24s product %s%n",
              form, want, openNlp, fromDictionary, ours);
        }
      }
    }
    System.out.printf(
        "%s quality: OpenNLP %d/%d, Morfologik %d/%d, the product's lemma field %d/%d (%d other"
            + " lemmas); models loaded in %.0f ms and %.0f ms%n",
        language, openNlpRight, forms, morfologikRight, forms, productRight, forms, productWrong,
        openNlpLoad / 1e6, morfologikLoad / 1e6);
    if (args.length < 3) {
      return;
    }
    List<String[]> documents = new ArrayList<>();
    long count = 0;
    for (String line : Files.readAllLines(Path.of(args[2]))) {
      String[] words = tokens(line);
      documents.add(words);
      count += words.length;
    }
    long sink = 0;
    for (int round = 1; round <= 3; round++) {
      long t0 = System.nanoTime();
      for (String[] words : documents) {
        sink += lemmatizer.lemmatize(words, tagger.tag(words)).length;
      }
      long t1 = System.nanoTime();
      for (String[] words : documents) {
        for (String word : words) {
          sink += lookup(morfologik, word).size();
        }
      }
      long t2 = System.nanoTime();
      System.out.printf(
          "%s cost, round %d: %d tokens; OpenNLP %.0f thousand tokens/s, Morfologik %.0f"
              + " thousand tokens/s (%d)%n",
          language, round, count, count / ((t1 - t0) / 1e9) / 1e3,
          count / ((t2 - t1) / 1e9) / 1e3, sink % 10);
    }
  }
}
