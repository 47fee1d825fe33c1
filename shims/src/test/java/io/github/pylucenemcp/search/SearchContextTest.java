package io.github.pylucenemcp.search;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.github.pylucenemcp.analysis.Analyzers;
import io.github.pylucenemcp.schema.FieldSchema;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.FieldType;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.facet.DrillDownQuery;
import org.apache.lucene.facet.FacetsConfig;
import org.apache.lucene.facet.sortedset.SortedSetDocValuesFacetField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.Test;

public class SearchContextTest {
  private static SearchContext context(Analyzer analyzer, FacetsConfig config, String... dims) {
    FieldSchema schema =
        FieldSchema.builder()
            .content("content", "content_reversed", "content_translit_de")
            .pageOffsets("page_offsets")
            .text(Set.of("content"))
            .keyword(Set.of("file_path"))
            .dates(Set.of("modified_date"))
            .facets(dims)
            .hitField("file_path", "filePath")
            .hitField("author", "author")
            .hitField("modified_date", "modifiedDate")
            .build();
    return new SearchContext(schema, analyzer, config);
  }

  private static String utf8(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  @Test
  public void runReturnsTotalsFacetsHitsAndPassagesAsJson() throws Exception {
    Analyzer analyzer =
        Analyzers.perField("content_reversed", "content_translit_de", Set.of("file_path"));
    FacetsConfig config = new FacetsConfig();
    FieldType content = new FieldType(TextField.TYPE_STORED);
    content.setIndexOptions(IndexOptions.DOCS_AND_FREQS_AND_POSITIONS_AND_OFFSETS);
    try (ByteBuffersDirectory dir = new ByteBuffersDirectory();
        IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig(analyzer))) {
      String[][] docs = {{"/a.txt", "de", "Der Arbeitsvertrag"}, {"/b.txt", "en", "A Kaufvertrag"}};
      for (String[] d : docs) {
        Document doc = new Document();
        doc.add(new StringField("file_path", d[0], Field.Store.YES));
        doc.add(new Field("content", d[2], content));
        doc.add(new TextField("content_reversed", d[2], Field.Store.NO));
        doc.add(new TextField("content_translit_de", d[2], Field.Store.NO));
        doc.add(new SortedSetDocValuesFacetField("language", d[1]));
        doc.add(new StoredField("author", "Ann"));
        doc.add(new StoredField("author", "Bo"));
        doc.add(new StoredField("modified_date", 1709296205123L)); // 2024-03-01T12:30:05.123Z
        writer.addDocument(config.build(doc));
      }
      writer.commit();
      {
        SearchContext context = context(analyzer, config, "language");
        // the query within language:de, chosen as a facet value, and counted alone
        String json =
            utf8(
                context.run(
                    new SearcherManager(dir, null),
                    new SearchRequest("*vertrag")
                        .filter(
                            new TermQuery(DrillDownQuery.term("$facets", "language", "de")),
                            FilterKind.DRILL_DOWN)
                        .drillDown("language", "de")
                        .timeoutMs(5000L)));
        assertTrue(json, json.startsWith("{\"totalHits\":1,"));
        // the header, then the hits: the caller decodes those when it needs them
        assertTrue(json, json.contains(",\"partial\":false}[{\"filePath\":"));
        assertTrue(json, json.endsWith("]"));
        assertTrue(json, json.contains("\"counts\":[1]"));
        assertTrue(
            json,
            json.contains(
                "\"language\":[{\"value\":\"de\",\"count\":1},{\"value\":\"en\",\"count\":1}]"));
        // the hit as the search tool shows it: JSON keys, authors joined, dates as ISO-8601
        assertTrue(
            json,
            json.contains(
                "{\"filePath\":\"/a.txt\",\"author\":\"Ann; Bo\","
                    + "\"modifiedDate\":\"2024-03-01T12:30:05Z\",\"score\":"));
        assertTrue(json, json.contains("Der <em>Arbeitsvertrag</em>"));
      }
    }
  }

  @Test
  public void aSearchWhoseCollectionRanOutOfTimeSaysItIsPartial() throws Exception {
    Analyzer analyzer =
        Analyzers.perField("content_reversed", "content_translit_de", Set.of("file_path"));
    FacetsConfig config = new FacetsConfig();
    try (ByteBuffersDirectory dir = new ByteBuffersDirectory();
        IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig(analyzer))) {
      for (int i = 0; i < 50; i++) {
        Document doc = new Document();
        doc.add(new StringField("file_path", "/" + i + ".txt", Field.Store.YES));
        doc.add(new TextField("content", "alpha beta", Field.Store.YES));
        writer.addDocument(doc);
      }
      writer.commit();
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        SearchContext context = context(analyzer, config);
        Parsed parsed = context.parse("alpha", true);
        IndexSearcher expired = new IndexSearcher(reader);
        expired.setTimeout(() -> true); // out of time before the first document
        SearchContext.Prepared request =
            context.prepare(parsed, new SearchRequest("alpha").passages(1, 200), new Query[0]);
        String json = context.search(expired, null, request);
        assertTrue(json, json.startsWith("{\"totalHits\":0,"));
        assertTrue(json, json.endsWith(",\"partial\":true}[]"));
        String full = context.search(new IndexSearcher(reader), null, request);
        assertTrue(full, full.startsWith("{\"totalHits\":50,"));
        assertTrue(full, full.contains(",\"partial\":false}[{"));
      }
    }
  }

  @Test
  public void aTextIsParsedOnceForItsOperatorAndWordFormsAndTheLastOnesAreKept() throws Exception {
    Analyzer analyzer =
        Analyzers.perField("content_reversed", "content_translit_de", Set.of("file_path"));
    SearchContext context = context(analyzer, new FacetsConfig());
    Parsed first = context.parse("*vertrag AND sign*", true, true);
    assertSame(first, context.parse("*vertrag AND sign*", true, true));
    assertNotSame(first, context.parse("*vertrag AND sign*", false, true));
    assertNotSame(first, context.parse("*vertrag AND sign*", true, false));
    // the same as a fresh parse: the cached queries are the ones a parse gives
    assertEquals(
        first.query,
        new SearchContext(context.schema(), analyzer, new FacetsConfig())
            .parse("*vertrag AND sign*", true, true)
            .query);
    for (int i = 0; i < QueryParsing.PARSED_KEPT; i++) {
      context.parse("word" + i, true, true);
    }
    assertNotSame(first, context.parse("*vertrag AND sign*", true, true)); // pushed out
  }

  @Test
  public void aQueryThatCannotBeParsedIsAParseExceptionBeforeAnySearch() throws Exception {
    Analyzer analyzer =
        Analyzers.perField("content_reversed", "content_translit_de", Set.of("file_path"));
    SearchContext context = context(analyzer, new FacetsConfig());
    try (ByteBuffersDirectory dir = new ByteBuffersDirectory();
        IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig(analyzer))) {
      writer.commit();
      {
        SearcherManager searchers = new SearcherManager(dir, null);
        for (String bad : new String[] {"\"open phrase", "nosuch:field", "/[a/", "!!!"}) {
          assertThrows(
              bad, ParseException.class, () -> context.run(searchers, new SearchRequest(bad)));
        }
        // a fault of the code (here: no text at all, which no caller sends) is not "bad syntax"
        assertThrows(
            NullPointerException.class, () -> context.run(searchers, new SearchRequest(null)));
        String all = utf8(context.run(searchers, new SearchRequest("*")));
        assertTrue(all, all.startsWith("{\"totalHits\":0,"));
      }
    }
  }
}
