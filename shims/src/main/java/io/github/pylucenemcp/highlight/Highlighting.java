package io.github.pylucenemcp.highlight;

import io.github.pylucenemcp.index.SchemaWriter;
import io.github.pylucenemcp.schema.FieldSchema;
import java.io.IOException;
import java.text.BreakIterator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.uhighlight.Passage;
import org.apache.lucene.search.uhighlight.PassageFormatter;
import org.apache.lucene.search.uhighlight.UnifiedHighlighter;
import org.apache.lucene.search.uhighlight.WholeBreakIterator;
import org.apache.lucene.store.ByteBuffersDirectory;

/**
 * The passages of a page of hits, a document at a time (the page's documents may be highlighted on
 * several threads): a {@link UnifiedHighlighter} over the whole stored {@code content} (no length
 * cap), offsets from the postings, the query's content and translit terms matched against the
 * content's postings and each lemma field's terms against its own.
 */
public final class Highlighting {
  private final IndexSearcher searcher;
  private final Analyzer analyzer;
  private final FieldSchema schema;
  private final int[] docIds;
  private final int maxPassages;
  private final StructuredPassageFormatter formatter;
  private final Set<String> masked;
  private final Map<String, Predicate<String>> matchers;
  private final Query query;
  // the query of each document, its patterns replaced by its words (null: query serves them all)
  private final Query[] perDocument;

  /**
   * A page's passages, prepared once for its documents: the query's patterns resolved into each
   * document's words ({@link PageTerms}), the lemma fields to mark, the formatter. Then {@link
   * #passages(int, String)} highlights one document; it may be called on several threads.
   */
  public Highlighting(
      IndexSearcher searcher,
      Analyzer analyzer,
      FieldSchema schema,
      Set<String> matchFields,
      Query highlightQuery,
      List<Query> units,
      int[] docIds,
      int maxPassages,
      int maxChars)
      throws IOException {
    this.searcher = searcher;
    this.analyzer = analyzer;
    this.schema = schema;
    this.docIds = docIds.clone();
    this.maxPassages = maxPassages;
    this.query = highlightQuery;
    Set<String> lemmaFields = schema.lemmaFields.keySet();
    this.formatter =
        new StructuredPassageFormatter(
            new QueryUnits(units, matchFields, analyzer, schema.content, lemmaFields), maxChars);
    this.masked = withOffsets(searcher, named(highlightQuery, lemmaFields));
    this.matchers = matchers(schema.content, matchFields, lemmaFields);
    this.perDocument =
        maxPassages <= 0
            ? null
            : PageTerms.perDocument(
                searcher, highlightQuery, docIds, Map.of(schema.content, schema.reversed));
  }

  /**
   * The passages of the page's {@code i}-th document, a {@code List<PassageInfo>} (best first) from
   * the schema's content; null without passages. A document that matched on other fields only gets
   * one passage from its start, without highlights. The matches of the schema's lemma fields (twins
   * of the content with offsets of their own) mark the content too, so "expressions" is marked for
   * the word "expression". {@code text}: the document's stored content, already read (null: the
   * highlighter reads it). Its sentence boundaries are read from the schema's {@code sentences} doc
   * values ({@link SentenceIndex}; none: ICU finds them). Thread-safe.
   */
  public Object passages(int i, String text) throws IOException {
    if (maxPassages <= 0) {
      return null;
    }
    int doc = docIds[i];
    int[] boundaries =
        text == null ? null : SentenceIndex.read(searcher, schema.sentences, doc, text);
    return highlight(i, text, formatter, () -> new IcuSentences(text, boundaries), 1, maxPassages);
  }

  /**
   * The matches in the page's {@code i}-th document, as the passages mark them, over its whole
   * {@code text}: {@code [start, end, start, end …]} in the text's order, overlaps merged, at most
   * {@code max} of them (empty: none).
   */
  public int[] matches(int i, String text, int max) throws IOException {
    Object found = highlight(i, text, new MatchSpans(max), WholeBreakIterator::new, 0, 1);
    return found == null ? new int[0] : (int[]) found;
  }

  private Object highlight(
      int i,
      String text,
      PassageFormatter format,
      Supplier<BreakIterator> sentences,
      int noHighlightPassages,
      int passages)
      throws IOException {
    int doc = docIds[i];
    String field = schema.content;
    ObjectHighlighter highlighter =
        new ObjectHighlighter(
            doc,
            text,
            matchers,
            UnifiedHighlighter.builder(searcher, analyzer)
                .withMaxLength(Integer.MAX_VALUE - 1)
                .withFormatter(format)
                .withMaskedFieldsFunc(f -> f.equals(field) ? masked : Set.of())
                .withHighlightPhrasesStrictly(true)
                .withHandleMultiTermQuery(true)
                .withMaxNoHighlightPassages(noHighlightPassages)
                .withBreakIterator(sentences)
                .withScorer(new LeanPassageScorer()));
    return highlighter.highlightAsObjects(
            new String[] {field},
            perDocument == null ? query : perDocument[i],
            new int[] {doc},
            new int[] {passages})
        .get(field)[0];
  }

  /**
   * The matches of {@code highlightQuery} (with its {@code units}, as a search parsed them) in
   * {@code text}, a document's stored content whose lemma fields are {@code lemmaFields}
   * (comma-separated), found as its passages would mark them (see {@link #matches}): the text is
   * indexed alone in memory with the schema's content fields, so any engine's document can be
   * previewed.
   */
  public static int[] matchesIn(
      FieldSchema schema,
      Analyzer analyzer,
      Set<String> matchFields,
      Query highlightQuery,
      List<Query> units,
      String text,
      String lemmaFields,
      int max)
      throws IOException {
    try (ByteBuffersDirectory directory = new ByteBuffersDirectory()) {
      try (IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig(analyzer))) {
        Document document = new Document();
        SchemaWriter.contentFields(schema, text, lemmaFields).forEach(document::add);
        writer.addDocument(document);
      }
      try (DirectoryReader reader = DirectoryReader.open(directory)) {
        Highlighting one =
            new Highlighting(
                new IndexSearcher(reader),
                analyzer,
                schema,
                matchFields,
                highlightQuery,
                units,
                new int[] {0},
                1,
                Integer.MAX_VALUE);
        return one.matches(0, text, max);
      }
    }
  }

  /** A passage formatter that gives the passages' match offsets, merged and in order. */
  private static final class MatchSpans extends PassageFormatter {
    private final int max;

    MatchSpans(int max) {
      this.max = max;
    }

    @Override
    public Object format(Passage[] passages, String content) {
      List<int[]> spans = new ArrayList<>();
      for (Passage passage : passages) {
        for (int k = 0; k < passage.getNumMatches(); k++) {
          spans.add(new int[] {passage.getMatchStarts()[k], passage.getMatchEnds()[k]});
        }
      }
      spans.sort(
          (a, b) -> a[0] != b[0] ? Integer.compare(a[0], b[0]) : Integer.compare(b[1], a[1]));
      List<int[]> merged = new ArrayList<>();
      for (int[] span : spans) {
        int[] last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
        if (last != null && span[0] < last[1]) {
          last[1] = Math.max(last[1], span[1]); // a twin's match of the same word
        } else if (merged.size() < max) {
          merged.add(span.clone());
        }
      }
      int[] out = new int[merged.size() * 2];
      for (int k = 0; k < merged.size(); k++) {
        out[2 * k] = merged.get(k)[0];
        out[2 * k + 1] = merged.get(k)[1];
      }
      return out;
    }
  }

  /**
   * The fields of {@code fields} that some document of the index has, with offsets in their
   * postings. A masked field without postings (no German document, so no {@code content_lemma_de})
   * would make the highlighter analyse every hit's whole text again into a {@code MemoryIndex}, to
   * find no match: most of a page's time on an English collection.
   */
  static Set<String> withOffsets(IndexSearcher searcher, Set<String> fields) {
    FieldInfos infos = FieldInfos.getMergedFieldInfos(searcher.getIndexReader());
    return fields.stream()
        .filter(
            f -> {
              FieldInfo info = infos.fieldInfo(f);
              return info != null
                  && info.getIndexOptions()
                      == IndexOptions.DOCS_AND_FREQS_AND_POSITIONS_AND_OFFSETS;
            })
        .collect(Collectors.toUnmodifiableSet());
  }

  /**
   * The fields of {@code fields} that {@code query} has a clause on: a masked field the query does
   * not name would only look its other clauses up in that field's postings again.
   */
  static Set<String> named(Query query, Set<String> fields) {
    Set<String> named = new HashSet<>();
    query.visit(
        new QueryVisitor() {
          @Override
          public boolean acceptField(String field) {
            if (fields.contains(field)) {
              named.add(field);
            }
            return false;
          }

          @Override
          public QueryVisitor getSubVisitor(BooleanClause.Occur occur, Query parent) {
            return occur == BooleanClause.Occur.MUST_NOT ? QueryVisitor.EMPTY_VISITOR : this;
          }
        });
    return named;
  }

  /**
   * Whose clauses each field's highlighting marks: a lemma field its own, the content the others of
   * {@code matchFields} (the translit twin's terms are looked up in the content's postings). With
   * one matcher for every field, each field's pass looked every clause up in its own postings and a
   * word that is its own lemma was marked, and scored, once for each field.
   */
  static Map<String, Predicate<String>> matchers(
      String content, Set<String> matchFields, Set<String> lemmaFields) {
    Map<String, Predicate<String>> matchers = new HashMap<>();
    matchers.put(content, f -> matchFields.contains(f) && !lemmaFields.contains(f));
    for (String lemma : lemmaFields) {
      matchers.put(lemma, lemma::equals);
    }
    return matchers;
  }

  /** Opens up the formatter-object API, which UnifiedHighlighter keeps protected. */
  private static final class ObjectHighlighter extends UnifiedHighlighter {
    // the one document highlighted and its text, read already (null: Lucene reads it)
    private final int doc;
    private final String text;
    // whose clauses each highlighted field marks (see matchers)
    private final Map<String, Predicate<String>> matchers;

    ObjectHighlighter(
        int doc,
        String text,
        Map<String, Predicate<String>> matchers,
        UnifiedHighlighter.Builder builder) {
      super(builder);
      this.doc = doc;
      this.text = text;
      this.matchers = matchers;
    }

    @Override
    protected Predicate<String> getFieldMatcher(String field) {
      Predicate<String> matcher = matchers.get(field);
      return matcher != null ? matcher : super.getFieldMatcher(field);
    }

    /** The text read already, else as Lucene reads it (one field of one document). */
    @Override
    protected List<CharSequence[]> loadFieldValues(
        String[] fields, DocIdSetIterator docIter, int cacheCharsThreshold) throws IOException {
      if (text == null || fields.length != 1) {
        return super.loadFieldValues(fields, docIter, cacheCharsThreshold);
      }
      List<CharSequence[]> values = new ArrayList<>();
      for (int d = docIter.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = docIter.nextDoc()) {
        if (d != doc) {
          throw new IllegalStateException("asked for document " + d + ", not " + doc);
        }
        values.add(new CharSequence[] {text});
      }
      return values;
    }

    Map<String, Object[]> highlightAsObjects(
        String[] fields, Query query, int[] docIds, int[] maxPassages) throws IOException {
      return highlightFieldsAsObjects(fields, query, docIds, maxPassages);
    }
  }
}
