package io.github.pylucenemcp.highlight;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.uhighlight.UnifiedHighlighter;

/**
 * Passages for a page of hits in one Java call: a {@link UnifiedHighlighter} over the whole stored
 * {@code content} (no length cap), offsets from the postings, matching the query's terms on {@code
 * content} and its translit twin against content's postings.
 */
public final class Highlighting {
  private Highlighting() {}

  /**
   * Returns, for each doc id, a {@code List<PassageInfo>} (best first). A document that matched on
   * other fields only gets one passage from its start, without highlights. The matches of {@code
   * maskedFields} (twins of {@code field} with offsets of their own: the lemma fields) mark {@code
   * field}'s text too, so "expressions" is marked for the word "expression". {@code texts}: each
   * document's stored {@code field}, already read (null: the highlighter reads them).
   */
  public static Object[] passages(
      IndexSearcher searcher,
      Analyzer analyzer,
      String field,
      Set<String> matchFields,
      Set<String> maskedFields,
      Query highlightQuery,
      List<Query> units,
      int[] docIds,
      String[] texts,
      int maxPassages,
      int maxChars)
      throws IOException {
    if (docIds.length == 0 || maxPassages <= 0) {
      return new Object[docIds.length];
    }
    StructuredPassageFormatter formatter =
        new StructuredPassageFormatter(
            new QueryUnits(units, matchFields, analyzer, field, maskedFields), maxChars);
    Set<String> masked = withOffsets(searcher, maskedFields);
    // the texts read already, when every document has one (else Lucene reads them all)
    Map<Integer, String> known = new HashMap<>();
    boolean all = texts != null && Arrays.stream(texts).allMatch(Objects::nonNull);
    for (int i = 0; all && i < docIds.length; i++) {
      known.put(docIds[i], texts[i]);
    }
    ObjectHighlighter highlighter =
        new ObjectHighlighter(
            known,
            UnifiedHighlighter.builder(searcher, analyzer)
                .withMaxLength(Integer.MAX_VALUE - 1)
                .withFormatter(formatter)
                .withFieldMatcher(matchFields::contains)
                .withMaskedFieldsFunc(f -> f.equals(field) ? masked : Set.of())
                .withHighlightPhrasesStrictly(true)
                .withHandleMultiTermQuery(true)
                .withMaxNoHighlightPassages(1)
                .withBreakIterator(IcuSentences::new)
                .withScorer(new LeanPassageScorer()));
    Query[] perDocument = PageTerms.perDocument(searcher, highlightQuery, docIds);
    if (perDocument == null) {
      return highlighter
          .highlightAsObjects(new String[] {field}, highlightQuery, docIds, new int[] {maxPassages})
          .get(field);
    }
    Object[] passages = new Object[docIds.length];
    for (int i = 0; i < docIds.length; i++) {
      passages[i] =
          highlighter.highlightAsObjects(
                  new String[] {field},
                  perDocument[i],
                  new int[] {docIds[i]},
                  new int[] {maxPassages})
              .get(field)[0];
    }
    return passages;
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

  /** Opens up the formatter-object API, which UnifiedHighlighter keeps protected. */
  private static final class ObjectHighlighter extends UnifiedHighlighter {
    // the texts of the page's documents that were read already, by doc id
    private final Map<Integer, String> known;

    ObjectHighlighter(Map<Integer, String> known, UnifiedHighlighter.Builder builder) {
      super(builder);
      this.known = known;
    }

    /** The texts read already, else as Lucene reads them (one field: see passages). */
    @Override
    protected List<CharSequence[]> loadFieldValues(
        String[] fields, DocIdSetIterator docIter, int cacheCharsThreshold) throws IOException {
      if (known.isEmpty() || fields.length != 1) {
        return super.loadFieldValues(fields, docIter, cacheCharsThreshold);
      }
      List<CharSequence[]> values = new ArrayList<>();
      for (int doc = docIter.nextDoc();
          doc != DocIdSetIterator.NO_MORE_DOCS;
          doc = docIter.nextDoc()) {
        values.add(new CharSequence[] {known.get(doc)});
      }
      return values;
    }

    Map<String, Object[]> highlightAsObjects(
        String[] fields, Query query, int[] docIds, int[] maxPassages) throws IOException {
      return highlightFieldsAsObjects(fields, query, docIds, maxPassages);
    }
  }
}
