package io.github.pylucenemcp.highlight;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.github.pylucenemcp.analysis.Analyzers;
import io.github.pylucenemcp.queryparser.ContentQueryParser;
import io.github.pylucenemcp.schema.FieldSchema;
import io.github.pylucenemcp.util.Parallel;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Function;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.FieldType;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.BytesRef;
import org.junit.Test;

public class HighlightingTest {
  static final Set<String> KEYWORDS = Set.of("file_path");
  static final Analyzer ANALYZER =
      Analyzers.perField(
          "content_reversed",
          "content_translit_de",
          KEYWORDS,
          Set.of(),
          java.util.Map.of("content_lemma_en", "en"));

  static Object[] highlight(List<String> texts, String query, int maxChars) throws Exception {
    return highlight(texts, query, maxChars, null);
  }

  /** {@code sentences}: each text's kept sentence boundaries (null: none kept). */
  static Object[] highlight(
      List<String> texts, String query, int maxChars, Function<String, BytesRef> sentences)
      throws Exception {
    FieldType content = new FieldType(TextField.TYPE_STORED);
    content.setIndexOptions(IndexOptions.DOCS_AND_FREQS_AND_POSITIONS_AND_OFFSETS);
    try (Directory dir = new ByteBuffersDirectory();
        IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig(ANALYZER))) {
      for (String text : texts) {
        Document doc = new Document();
        doc.add(new Field("content", text, content));
        doc.add(new TextField("content_reversed", text, Field.Store.NO));
        doc.add(new TextField("content_translit_de", text, Field.Store.NO));
        FieldType lemma = new FieldType(TextField.TYPE_NOT_STORED);
        lemma.setIndexOptions(IndexOptions.DOCS_AND_FREQS_AND_POSITIONS_AND_OFFSETS);
        doc.add(new Field("content_lemma_en", text, lemma));
        if (sentences != null) {
          doc.add(new BinaryDocValuesField("content_sentences", sentences.apply(text)));
        }
        writer.addDocument(doc);
      }
      writer.commit();
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        FieldSchema schema =
            FieldSchema.builder()
                .content("content", "content_reversed", "content_translit_de")
                .text(Set.of("content"))
                .keyword(KEYWORDS)
                .lemma("content_lemma_en", "en", 0.5f)
                .sentences(sentences == null ? null : "content_sentences")
                .build();
        ContentQueryParser parser = new ContentQueryParser(schema, ANALYZER, true);
        int[] ids = new int[texts.size()];
        for (int i = 0; i < ids.length; i++) {
          ids[i] = i;
        }
        IndexSearcher searcher = new IndexSearcher(reader);
        String[] stored = new String[ids.length];
        for (int i = 0; i < ids.length; i++) {
          stored[i] = searcher.storedFields().document(i).get("content");
        }
        Highlighting page =
            new Highlighting(
                searcher,
                ANALYZER,
                schema,
                Set.of("content", "content_translit_de", "content_lemma_en"),
                parser.parse(query),
                parser.getUnits(),
                ids,
                3,
                maxChars);
        Object[] passages = new Object[ids.length];
        // on two threads, as a search's page
        new Parallel(ForkJoinPool.commonPool(), 2)
            .each(
                ids.length,
                i -> passages[i] = page.passages(i, sentences == null ? null : stored[i]));
        return passages;
      }
    }
  }

  @Test
  public void onlyMaskedFieldsWithOffsetsInTheIndexAreMasked() throws Exception {
    try (Directory dir = new ByteBuffersDirectory();
        IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig(ANALYZER))) {
      FieldType lemma = new FieldType(TextField.TYPE_NOT_STORED);
      lemma.setIndexOptions(IndexOptions.DOCS_AND_FREQS_AND_POSITIONS_AND_OFFSETS);
      Document doc = new Document();
      doc.add(new Field("content_lemma_en", "locks", lemma));
      doc.add(new TextField("content_reversed", "locks", Field.Store.NO));
      writer.addDocument(doc);
      writer.commit();
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        assertEquals(
            Set.of("content_lemma_en"),
            Highlighting.withOffsets(
                new IndexSearcher(reader),
                Set.of("content_lemma_en", "content_lemma_de", "content_reversed")));
      }
    }
  }

  @SuppressWarnings("unchecked")
  static List<PassageInfo> first(Object[] result) {
    return (List<PassageInfo>) result[0];
  }

  @Test
  public void theSentencesKeptInTheIndexAreThePassagesBoundaries() throws Exception {
    String text = "First words here. Then the needle. And more.";
    assertEquals(
        "Then the <em>needle</em>.", first(highlight(List.of(text), "needle", 200)).get(0).text);
    // ICU's own boundaries, kept: the same passage
    assertEquals(
        "Then the <em>needle</em>.",
        first(highlight(List.of(text), "needle", 200, SentenceIndex::encode)).get(0).text);
    // kept boundaries that make the text one sentence (those of the text with commas for its
    // periods): the passage is the whole text, so they were read, not found again
    assertEquals(
        "First words here. Then the <em>needle</em>. And more.",
        first(
                highlight(
                    List.of(text), "needle", 200, t -> SentenceIndex.encode(t.replace('.', ','))))
            .get(0)
            .text);
  }

  @Test
  public void leadingWildcardHighlightsTheWholeWord() throws Exception {
    List<PassageInfo> passages =
        first(highlight(List.of("Der Arbeitsvertrag gilt."), "*vertrag", 200));
    assertEquals("Der <em>Arbeitsvertrag</em> gilt.", passages.get(0).text);
    assertEquals("Arbeitsvertrag", passages.get(0).matchedTerms[0]);
    assertEquals(1.0f, passages.get(0).score, 0f);
  }

  @Test
  public void translitMatchesAreHighlightedOnTheOriginalWord() throws Exception {
    List<PassageInfo> passages = first(highlight(List.of("Herr Müller kommt."), "Mueller", 200));
    assertEquals("Herr <em>Müller</em> kommt.", passages.get(0).text);
  }

  @Test
  public void longSentencesAreWindowedAroundTheMatch() throws Exception {
    String filler = "word ".repeat(200);
    String text = filler + "needle " + filler + ".";
    PassageInfo passage = first(highlight(List.of(text), "needle", 100)).get(0);
    String visible = passage.text.replace("<em>", "").replace("</em>", "");
    assertTrue(visible, visible.length() <= 100);
    assertTrue(passage.text, passage.text.contains("<em>needle</em>"));
    assertTrue(passage.text.startsWith("…") && passage.text.endsWith("…"));
    assertTrue(passage.position < 0.01f); // the sentence starts the document
  }

  @Test
  public void coverageIsTheShareOfQueryUnitsInThePassage() throws Exception {
    String text = "Alpha beta gamma. Nothing here at all. Only alpha again.";
    List<PassageInfo> passages = first(highlight(List.of(text), "alpha OR beta", 200));
    assertEquals(1.0f, passages.get(0).termCoverage, 0f);
    assertEquals(0.5f, passages.get(passages.size() - 1).termCoverage, 0f);
  }

  @Test
  public void aDocumentWithoutContentMatchesGetsOneLeadingPassageWithoutHighlights()
      throws Exception {
    List<PassageInfo> passages =
        first(highlight(List.of("Nothing to see. More text."), "absent", 200));
    assertEquals(1, passages.size());
    assertEquals("Nothing to see.", passages.get(0).text);
    assertEquals(0, passages.get(0).matchedTerms.length);
    assertEquals(0f, passages.get(0).termCoverage, 0f);
  }

  @Test
  public void otherFormsOfAWordAreHighlightedAndCovered() throws Exception {
    List<PassageInfo> passages =
        first(highlight(List.of("Regular expressions are compiled once."), "expression", 200));
    assertEquals("Regular <em>expressions</em> are compiled once.", passages.get(0).text);
    assertEquals(1.0f, passages.get(0).termCoverage, 0f);
    passages =
        first(
            highlight(
                List.of("Regular expressions are compiled once."), "\"regular expression\"", 200));
    assertTrue(passages.get(0).text, passages.get(0).text.contains("expressions</em>"));
    assertEquals(1.0f, passages.get(0).termCoverage, 0f);
  }
}
