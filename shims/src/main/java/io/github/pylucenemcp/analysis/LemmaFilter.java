package io.github.pylucenemcp.analysis;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import morfologik.stemming.Dictionary;
import morfologik.stemming.DictionaryLookup;
import morfologik.stemming.WordData;
import org.apache.lucene.analysis.TokenFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.PositionIncrementAttribute;

/**
 * Replaces each word by its lemmas from a Morfologik dictionary ("locks", "locked" → "lock"; "went"
 * → "go"; "Häuser" → "Haus"). A word with several lemmas ("saw" → "saw", "see") gives them all at
 * its position; a word the dictionary does not know stays as it is. The word is looked up as
 * written, lowercased and capitalized, and every reading counts.
 */
public final class LemmaFilter extends TokenFilter {
  /** At most this many lemmas per word: the rest of an ambiguous word's readings are dropped. */
  public static final int MAX_LEMMAS = 4;

  /** Longer words are compounds, numbers or noise that no dictionary holds: not looked up. */
  private static final int MAX_WORD = 40;

  /** The cache is emptied when it holds this many words. */
  private static final int CACHE_WORDS = 50_000;

  private static final String[] NONE = new String[0];

  /**
   * A thread's lookups in one dictionary: Morfologik's lookup object (not thread-safe) and the
   * words already looked up, with their lemmas (an empty array: unknown; never changed once
   * stored). A text repeats its words (Zipf), and a lookup costs ~10× a map hit. Kept per thread,
   * not per filter: the indexer builds a new chain for every document, and a cache of the filter's
   * own was empty for each (a fifth of the indexing time went to lookups).
   */
  private static final class Lookups {
    final DictionaryLookup lookup;
    final Map<String, String[]> cache = new HashMap<>();

    Lookups(Dictionary dictionary) {
      this.lookup = new DictionaryLookup(dictionary);
    }
  }

  private static final ThreadLocal<Map<Dictionary, Lookups>> LOOKUPS =
      ThreadLocal.withInitial(IdentityHashMap::new);

  private final Dictionary dictionary;
  private final boolean compounds;

  /** The shortest head and tail of a compound whose tail is looked up. */
  private static final int MIN_HEAD = 3;

  private static final int MIN_TAIL = 4;

  /** The lookups of the thread that consumes this stream (set at each {@link #reset}). */
  private Lookups lookups;

  private final CharTermAttribute term = addAttribute(CharTermAttribute.class);
  private final PositionIncrementAttribute increment =
      addAttribute(PositionIncrementAttribute.class);

  /** The current word's lemmas (a cached array), and the next of them to give. */
  private String[] pending = NONE;

  private int next;
  private State state;

  public LemmaFilter(TokenStream input, Dictionary dictionary) {
    this(input, dictionary, false);
  }

  /**
   * @param compounds whether a word the dictionary lacks takes the forms of its longest known tail
   *     that is a noun (German compounds: "silbentrennungen" → the tail "Trennungen" → Trennung →
   *     "silbentrennung"), the head kept as written
   */
  public LemmaFilter(TokenStream input, Dictionary dictionary, boolean compounds) {
    super(input);
    this.dictionary = dictionary;
    this.compounds = compounds;
  }

  @Override
  public boolean incrementToken() throws IOException {
    if (next < pending.length) {
      restoreState(state);
      term.setEmpty().append(pending[next++]);
      increment.setPositionIncrement(0);
      return true;
    }
    if (!input.incrementToken()) {
      return false;
    }
    String word = term.toString();
    Map<String, String[]> cache = lookups.cache;
    String[] known = cache.get(word);
    if (known == null) {
      List<String> found = new ArrayList<>(2);
      lemmas(word, found);
      known = found.isEmpty() ? NONE : found.toArray(NONE);
      if (cache.size() == CACHE_WORDS) {
        cache.clear();
      }
      cache.put(word, known);
    }
    pending = known;
    next = 0;
    if (pending.length > 0) {
      term.setEmpty().append(pending[0]);
      next = 1;
      if (pending.length > 1) {
        state = captureState();
      }
    }
    return true;
  }

  /**
   * The lemmas of {@code word} into {@code out}, none when the dictionary does not know it: the
   * readings of the word as written, lowercased, and capitalized, together (the content reaches
   * here case-folded, and German spells nouns capitalized: "haus" is the verb hausen's form and the
   * noun Haus).
   */
  private void lemmas(String word, List<String> out) {
    if (word.length() > MAX_WORD || !Character.isLetter(word.charAt(0))) {
      return;
    }
    Set<String> found = new LinkedHashSet<>();
    String lower = word.toLowerCase(Locale.ROOT);
    String capital = Character.toUpperCase(lower.charAt(0)) + lower.substring(1);
    find(word, found);
    if (!lower.equals(word)) {
      find(lower, found);
    }
    if (!capital.equals(word)) {
      find(capital, found);
    }
    if (found.isEmpty() && compounds) {
      compound(lower, found);
    }
    Set<String> seen = new HashSet<>(); // "bill" and "Bill" are one term once lowercased
    for (String lemma : found) {
      if (out.size() == MAX_LEMMAS) {
        break;
      }
      if (seen.add(lemma.toLowerCase(Locale.ROOT))) {
        out.add(lemma);
      }
    }
  }

  /**
   * The forms of the compound {@code lower} from its longest tail that the dictionary knows as a
   * noun (tags "SUB…"), each prefixed with the head as written: a compound outside the dictionary
   * (Silbentrennung, Silbentrennungen) meets its own forms.
   */
  private void compound(String lower, Set<String> found) {
    for (int i = 0; i < lower.length(); i++) {
      if (!Character.isLetter(lower.charAt(i))) {
        return;
      }
    }
    for (int start = MIN_HEAD; start <= lower.length() - MIN_TAIL; start++) {
      String tail = Character.toUpperCase(lower.charAt(start)) + lower.substring(start + 1);
      String head = lower.substring(0, start);
      for (WordData entry : lookups.lookup.lookup(tail)) {
        CharSequence stem = entry.getStem();
        CharSequence tag = entry.getTag();
        if (stem != null && stem.length() > 0 && tag != null && tag.toString().startsWith("SUB")) {
          found.add(head + stem.toString().toLowerCase(Locale.ROOT));
        }
      }
      if (!found.isEmpty()) {
        return;
      }
    }
  }

  private void find(String word, Set<String> found) {
    for (WordData entry : lookups.lookup.lookup(word)) {
      CharSequence stem = entry.getStem();
      if (stem != null && stem.length() > 0) {
        found.add(stem.toString());
      }
    }
  }

  @Override
  public void reset() throws IOException {
    super.reset();
    lookups = LOOKUPS.get().computeIfAbsent(dictionary, Lookups::new);
    pending = NONE;
    next = 0;
    state = null;
  }
}
