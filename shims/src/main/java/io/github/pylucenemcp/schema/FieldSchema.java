package io.github.pylucenemcp.schema;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The index schema as the shims need it, handed over from Python ({@code pylucene_mcp.schema}) as
 * one object: which field is the content and its two twins, which fields are text, keyword, long or
 * date, the facet dimensions, and the stored fields a hit shows with their JSON names. Immutable;
 * build it with {@link #builder()}.
 */
public final class FieldSchema {
  public final String content;
  public final String reversed;
  public final String translit;
  public final String pageOffsets;

  /** The content's sentence boundaries, as doc values (null: none; passages find them). */
  public final String sentences;

  /**
   * Who may read a document, as the crawler recorded it: binary doc values of principals joined by
   * the row separator, updated in place when a file's owner or mode changes (null: none).
   */
  public final String readers;

  public final Set<String> text;
  public final Set<String> keyword;
  public final Set<String> longs;
  public final Set<String> dates;
  public final List<String> facetDims;

  /** Stored field → its key in a hit's JSON, in the order a hit shows them. */
  public final Map<String, String> hitFields;

  /** Keyword fields whose value {@code true} a hit shows as the JSON {@code true}. */
  public final Set<String> flags;

  /** Every field a query may name. */
  public final Set<String> queryable;

  /** Fields that unfielded words also match, with their weight (title, file name). */
  public final Map<String, Float> alsoSearched;

  /** The lemma twins of the content: field → language ({@code content_lemma_en} → "en"). */
  public final Map<String, String> lemmaFields;

  /** The weight of a lemma twin beside the content's exact words. */
  public final float lemmaWeight;

  private FieldSchema(Builder b) {
    content = require(b.content, "content");
    reversed = require(b.reversed, "reversed");
    translit = require(b.translit, "translit");
    pageOffsets = b.pageOffsets;
    sentences = b.sentences;
    readers = b.readers;
    text = Set.copyOf(b.text);
    keyword = Set.copyOf(b.keyword);
    longs = Set.copyOf(b.longs);
    dates = Set.copyOf(b.dates);
    facetDims = List.copyOf(b.facetDims);
    hitFields = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(b.hitFields));
    flags = Set.copyOf(b.flags);
    alsoSearched = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(b.alsoSearched));
    lemmaFields = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(b.lemmaFields));
    lemmaWeight = b.lemmaWeight;
    Set<String> all = new HashSet<>(text);
    all.addAll(keyword);
    all.addAll(longs);
    all.addAll(dates);
    all.add(content);
    queryable = Set.copyOf(all);
  }

  private static String require(String value, String what) {
    if (value == null) {
      throw new IllegalStateException("FieldSchema: the " + what + " field is not set");
    }
    return value;
  }

  /** Whether {@code field} holds longs or dates (LongPoint). */
  public boolean isNumeric(String field) {
    return longs.contains(field) || dates.contains(field);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Named steps instead of a dozen positional arguments. */
  public static final class Builder {
    private String content;
    private String reversed;
    private String translit;
    private String pageOffsets;
    private String sentences;
    private String readers;
    private final Set<String> text = new HashSet<>();
    private final Set<String> keyword = new HashSet<>();
    private final Set<String> longs = new HashSet<>();
    private final Set<String> dates = new HashSet<>();
    private final List<String> facetDims = new ArrayList<>();
    private final Map<String, String> hitFields = new LinkedHashMap<>();
    private final Set<String> flags = new HashSet<>();
    private final Map<String, Float> alsoSearched = new LinkedHashMap<>();
    private final Map<String, String> lemmaFields = new LinkedHashMap<>();
    private float lemmaWeight = 1f;

    private Builder() {}

    /**
     * Unfielded words and phrases also match the lemma twin {@code field} of the content, whose
     * words are the lemmas of {@code language}'s dictionary, weighted by {@code weight} (below 1,
     * so that the exact word ranks above another form of it). Every lemma field has one weight.
     */
    public Builder lemma(String field, String language, float weight) {
      lemmaFields.put(field, language);
      lemmaWeight = weight;
      return this;
    }

    /**
     * Unfielded words and phrases also match {@code field}, weighted by {@code boost}: a document
     * whose title lives only in its metadata is found by it, and a title match outranks a passing
     * mention in the text.
     */
    public Builder alsoSearch(String field, float boost) {
      alsoSearched.put(field, boost);
      return this;
    }

    /** The analyzed content field, its reversed twin and its German transliteration twin. */
    public Builder content(String content, String reversed, String translit) {
      this.content = content;
      this.reversed = reversed;
      this.translit = translit;
      return this;
    }

    /** The stored field of comma-separated character offsets at which pages start. */
    public Builder pageOffsets(String field) {
      this.pageOffsets = field;
      return this;
    }

    /**
     * The binary doc values field that keeps the content's sentence boundaries, found once when a
     * document is indexed ({@code SentenceIndex}), so that passages need not find them again.
     */
    public Builder sentences(String field) {
      this.sentences = field;
      return this;
    }

    /** The binary doc values field of a document's recorded readers ({@link #readers}). */
    public Builder readers(String field) {
      this.readers = field;
      return this;
    }

    public Builder text(Iterable<String> fields) {
      fields.forEach(text::add);
      return this;
    }

    public Builder keyword(Iterable<String> fields) {
      fields.forEach(keyword::add);
      return this;
    }

    public Builder longs(Iterable<String> fields) {
      fields.forEach(longs::add);
      return this;
    }

    public Builder dates(Iterable<String> fields) {
      fields.forEach(dates::add);
      return this;
    }

    /** The facet dimensions, in the order a search lists them. */
    public Builder facets(String... dims) {
      facetDims.addAll(List.of(dims));
      return this;
    }

    /** A stored field a hit shows, under {@code jsonKey}; hits list them in this order. */
    public Builder hitField(String field, String jsonKey) {
      hitFields.put(field, jsonKey);
      return this;
    }

    /** Keyword fields whose value {@code true} a hit shows as the JSON {@code true}. */
    public Builder flags(Iterable<String> fields) {
      fields.forEach(flags::add);
      return this;
    }

    public FieldSchema build() {
      return new FieldSchema(this);
    }
  }
}
