package io.github.pylucenemcp.index;

import io.github.pylucenemcp.analysis.Analyzers;
import io.github.pylucenemcp.highlight.SentenceIndex;
import io.github.pylucenemcp.schema.FieldSchema;
import io.github.pylucenemcp.util.Parallel;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.sinks.TeeSinkTokenFilter;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.FieldType;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.facet.FacetsConfig;
import org.apache.lucene.facet.sortedset.SortedSetDocValuesFacetField;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.Term;
import org.apache.lucene.util.BytesRef;

/**
 * Writes documents of the product schema many at a time, on several threads: Python hands over a
 * batch as two flat arrays, one row per document (the string fields of {@code stringFields},
 * several values of one field joined by {@link #SEPARATOR}, null where there is none; the numbers
 * of {@code longFields}, {@link #NONE} where there is none), so that indexing crosses the JPype
 * boundary once per batch, and Lucene's analysis runs on every core.
 *
 * <p>A string field is stored and analyzed when the schema counts it as text, one exact token when
 * it is a keyword, and a facet value too when it is a facet dimension; the content is stored with
 * offsets in its postings, with its reversed and translit twins and the lemma fields that the row's
 * {@link #LEMMA_FIELDS} slot names; the page offsets are stored, with their count as a point. A
 * number is a {@link LongPoint}, a doc value and a stored value. Each document replaces the one
 * with its {@code keyField} value. Thread-safe as {@link IndexWriter} is.
 */
public final class SchemaWriter implements AutoCloseable {
  /** Joins the values of one field in a row. */
  public static final String SEPARATOR = "\u001f";

  /** A number slot without a value. */
  public static final long NONE = Long.MIN_VALUE;

  /** The string slot that lists a row's lemma fields, comma-separated. */
  public static final String LEMMA_FIELDS = "_lemma_fields";

  /** The content and the lemma fields: indexed with offsets, which the highlighter reads. */
  private static final FieldType INDEXED_WITH_OFFSETS = indexedWithOffsets();

  private final IndexWriter writer;
  private final FieldSchema schema;
  private final FacetsConfig facets;
  private final String keyField;
  private final String[] stringFields;
  private final String[] longFields;
  private final String seenField;
  private final Set<String> facetDims;
  private final ExecutorService pool;
  private final int threads;
  private final int contentSlot;
  private final int lemmaSlot;
  // for a page's passages only: the lemma fields kept (null: an index's documents, all fields)
  private Set<String> pageLemmas;

  /**
   * @param seenField the doc-values-only twin of the {@code file_mtime} slot (null: none)
   * @param threads the threads a batch is indexed on (at least 1)
   */
  public SchemaWriter(
      IndexWriter writer,
      FieldSchema schema,
      FacetsConfig facets,
      String keyField,
      String[] stringFields,
      String[] longFields,
      String seenField,
      int threads) {
    this.writer = writer;
    this.schema = schema;
    this.facets = facets;
    this.keyField = keyField;
    this.stringFields = stringFields.clone();
    this.longFields = longFields.clone();
    this.seenField = seenField;
    this.facetDims = Set.copyOf(schema.facetDims);
    this.threads = Math.max(1, threads);
    this.pool =
        this.threads == 1
            ? null
            : Executors.newFixedThreadPool(
                this.threads,
                r -> {
                  Thread t = new Thread(r, "pylucene-mcp-indexing");
                  t.setDaemon(true);
                  return t;
                });
    if (List.of(this.stringFields).indexOf(keyField) < 0) {
      throw new IllegalArgumentException(keyField + " is not one of the string fields");
    }
    this.contentSlot = List.of(this.stringFields).indexOf(schema.content);
    this.lemmaSlot = List.of(this.stringFields).indexOf(LEMMA_FIELDS);
  }

  private static FieldType indexedWithOffsets() {
    FieldType type = new FieldType(TextField.TYPE_NOT_STORED);
    type.setIndexOptions(IndexOptions.DOCS_AND_FREQS_AND_POSITIONS_AND_OFFSETS);
    type.freeze();
    return type;
  }

  /**
   * Adds (or replaces) {@code strings.length / stringFields.length} documents; returns how many.
   *
   * @throws IllegalArgumentException for rows of the wrong length, a row without its key, or a
   *     value Lucene refuses (the message names the row)
   */
  public int add(String[] strings, long[] numbers) throws IOException {
    int rows = strings.length / stringFields.length;
    if (strings.length % stringFields.length != 0 || numbers.length != rows * longFields.length) {
      throw new IllegalArgumentException(
          strings.length
              + " strings and "
              + numbers.length
              + " numbers are not whole rows of "
              + stringFields.length
              + " and "
              + longFields.length
              + " fields");
    }
    if (pool == null || rows < 2 * threads) {
      addRows(strings, numbers, 0, rows);
      return rows;
    }
    int per = (rows + threads - 1) / threads;
    new Parallel(pool, threads)
        .each(
            (rows + per - 1) / per,
            part -> addRows(strings, numbers, part * per, Math.min(rows, (part + 1) * per)));
    return rows;
  }

  private void addRows(String[] strings, long[] numbers, int from, int to) throws IOException {
    for (int row = from; row < to; row++) {
      String key = null;
      try {
        Document document = new Document();
        for (int f = 0; f < stringFields.length; f++) {
          String value = strings[row * stringFields.length + f];
          if (value != null) {
            if (stringFields[f].equals(keyField)) {
              key = value;
              // sorted doc values: the unique key breaks ties, so a cursor never repeats
              document.add(new SortedDocValuesField(keyField, new BytesRef(value)));
            }
            addString(document, stringFields[f], value);
          }
        }
        if (contentSlot >= 0) {
          String content = strings[row * stringFields.length + contentSlot];
          String lemmaFields =
              lemmaSlot < 0 ? null : strings[row * stringFields.length + lemmaSlot];
          if (content != null) {
            boolean whole = pageLemmas == null;
            contentFields(schema, content, whole ? lemmaFields : page(lemmaFields), whole)
                .forEach(document::add);
          }
        }
        for (int f = 0; f < longFields.length; f++) {
          long value = numbers[row * longFields.length + f];
          if (value != NONE) {
            addLong(document, longFields[f], value);
          }
        }
        if (key == null) {
          throw new IllegalArgumentException("a document needs its " + keyField);
        }
        writer.updateDocument(new Term(keyField, key), facets.build(document));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            (key == null ? "document " + row + " of the batch" : key) + ": " + e.getMessage(), e);
      }
    }
  }

  private void addString(Document document, String name, String value) {
    if (name.equals(LEMMA_FIELDS) || name.equals(schema.content)) {
      return; // the content and its twins: contentFields
    }
    if (name.equals(schema.readers)) { // doc values alone: a new owner or mode updates them
      document.add(new BinaryDocValuesField(name, new BytesRef(value)));
      return;
    }
    if (name.equals(schema.pageOffsets)) {
      document.add(new StoredField(name, value));
      document.add(new LongPoint(name, value.isEmpty() ? 0 : value.split(",").length));
      return;
    }
    for (String one : value.split(SEPARATOR, -1)) {
      if (one.isEmpty()) {
        continue;
      }
      if (schema.text.contains(name)) {
        document.add(new TextField(name, one, Field.Store.YES));
      } else {
        document.add(new StringField(name, one, Field.Store.YES));
      }
      if (facetDims.contains(name)) {
        document.add(new SortedSetDocValuesFacetField(name, one));
      }
    }
  }

  private void addLong(Document document, String name, long value) {
    document.add(new LongPoint(name, value));
    document.add(new NumericDocValuesField(name, value));
    document.add(new StoredField(name, value));
    if (seenField != null && name.equals("file_mtime")) {
      document.add(new NumericDocValuesField(seenField, value));
    }
  }

  /**
   * The content's fields: the text stored, and indexed with offsets; its reversed and translit
   * twins; the lemma fields named in {@code lemmaFields} (comma-separated, null: none); its
   * sentence boundaries, when the schema keeps them ({@link SentenceIndex}). The text is normalized
   * and tokenized once, and each field's filters run on those tokens (a {@link
   * TeeSinkTokenFilter}): the chains of {@link Analyzers} after their tokenizer, so that each field
   * gets the tokens its analyzer makes. The first field must be indexed first: the others replay
   * what it read.
   */
  public static List<IndexableField> contentFields(
      FieldSchema schema, String text, String lemmaFields) {
    return contentFields(schema, text, lemmaFields, true);
  }

  /**
   * {@link #contentFields(FieldSchema, String, String)}, without the reversed and translit twins
   * unless {@code twins}.
   */
  public static List<IndexableField> contentFields(
      FieldSchema schema, String text, String lemmaFields, boolean twins) {
    StandardTokenizer tokenizer = new StandardTokenizer();
    tokenizer.setReader(Analyzers.normalized(new StringReader(text)));
    TeeSinkTokenFilter tee = new TeeSinkTokenFilter(tokenizer);
    List<IndexableField> fields = new ArrayList<>();
    fields.add(new Field(schema.content, Analyzers.contentChain(tee), INDEXED_WITH_OFFSETS));
    fields.add(new StoredField(schema.content, text));
    if (schema.sentences != null) {
      fields.add(new BinaryDocValuesField(schema.sentences, SentenceIndex.encode(text)));
    }
    if (twins) {
      fields.add(new TextField(schema.reversed, Analyzers.reversedChain(tee.newSinkTokenStream())));
      fields.add(new TextField(schema.translit, Analyzers.translitChain(tee.newSinkTokenStream())));
    }
    if (lemmaFields != null) {
      for (String field : lemmaFields.split(",")) {
        String language = schema.lemmaFields.get(field);
        if (language != null) {
          TokenStream lemmas = Analyzers.lemmaChain(tee.newSinkTokenStream(), language);
          fields.add(new Field(field, lemmas, INDEXED_WITH_OFFSETS));
        } else if (!field.isEmpty()) {
          throw new IllegalArgumentException("no lemma field " + field);
        }
      }
    }
    return fields;
  }

  /**
   * Writes the documents of a page whose passages are to be found ({@code Pages#storedPage}): the
   * content without its reversed and translit twins (the highlighter marks their matches on the
   * content), and only the lemma fields of {@code lemmas} (those a query has clauses on). Returns
   * this writer.
   */
  public SchemaWriter forPassages(Set<String> lemmas) {
    this.pageLemmas = Set.copyOf(lemmas);
    return this;
  }

  private String page(String lemmaFields) {
    if (lemmaFields == null) {
      return null;
    }
    List<String> kept = new ArrayList<>();
    for (String field : lemmaFields.split(",")) {
      if (pageLemmas.contains(field)) {
        kept.add(field);
      }
    }
    return String.join(",", kept);
  }

  @Override
  public void close() {
    if (pool != null) {
      pool.shutdown();
    }
  }
}
