package io.github.pylucenemcp.search;

import static org.junit.Assert.assertTrue;

import io.github.pylucenemcp.analysis.Analyzers;
import java.util.List;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.FieldType;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.facet.DrillDownQuery;
import org.apache.lucene.facet.FacetsConfig;
import org.apache.lucene.facet.sortedset.DefaultSortedSetDocValuesReaderState;
import org.apache.lucene.facet.sortedset.SortedSetDocValuesFacetField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.Test;

public class SearchContextTest {
  private static SearchContext context(Analyzer analyzer, FacetsConfig config, String... dims) {
    return new SearchContext(
        analyzer, config, "content", "content_reversed", "content_translit_de",
        Set.of("content"), Set.of("file_path"), Set.of(), Set.of(), Set.of("file_path"),
        "page_offsets", dims, 10);
  }

  @Test
  public void runReturnsTotalsFacetsHitsAndPassagesAsJson() throws Exception {
    Analyzer analyzer = Analyzers.perField("content_reversed", "content_translit_de", Set.of("file_path"));
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
        writer.addDocument(config.build(doc));
      }
      writer.commit();
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        SearchContext context = context(analyzer, config, "language");
        SearchContext.Parsed parsed = context.parse("*vertrag", true);
        Query base = new BooleanQuery.Builder().add(parsed.query, BooleanClause.Occur.MUST).build();
        DrillDownQuery drill = new DrillDownQuery(config, base);
        drill.add("language", "de");
        IndexSearcher searcher = new IndexSearcher(reader);
        IndexReader limited = SearchContext.limitedReader(searcher);
        String json =
            context.run(
                searcher,
                limited,
                new DefaultSortedSetDocValuesReaderState(limited, config),
                drill, null, 1, 10, new Query[] {parsed.query}, parsed.highlightQuery,
                parsed.units, 3, 200, 5000L);
        assertTrue(json, json.startsWith("{\"total\":1,"));
        assertTrue(json, json.endsWith(",\"partial\":false}"));
        assertTrue(json, json.contains("\"counts\":[2]"));
        assertTrue(json, json.contains("\"language\":[[\"de\",1],[\"en\",1]]"));
        assertTrue(json, json.contains("\"file_path\":\"/a.txt\""));
        assertTrue(json, json.contains("Der <em>Arbeitsvertrag</em>"));
      }
    }
  }

  @Test
  public void aSearchWhoseCollectionRanOutOfTimeSaysItIsPartial() throws Exception {
    Analyzer analyzer = Analyzers.perField("content_reversed", "content_translit_de", Set.of("file_path"));
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
        SearchContext.Parsed parsed = context.parse("alpha", true);
        DrillDownQuery drill = new DrillDownQuery(config, parsed.query);
        IndexSearcher expired = new IndexSearcher(reader);
        expired.setTimeout(() -> true); // out of time before the first document
        String json =
            context.search(
                expired, null, drill, null, 1, 10, new Query[0], null, List.of(), 1, 200);
        assertTrue(json, json.startsWith("{\"total\":0,"));
        assertTrue(json, json.endsWith(",\"partial\":true}"));
        String full =
            context.search(
                new IndexSearcher(reader), null, drill, null, 1, 10, new Query[0], null,
                List.of(), 1, 200);
        assertTrue(full, full.startsWith("{\"total\":50,"));
        assertTrue(full, full.endsWith(",\"partial\":false}"));
      }
    }
  }
}
