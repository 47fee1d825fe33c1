package io.github.pylucenemcp.search;

import static org.junit.Assert.assertTrue;

import io.github.pylucenemcp.analysis.Analyzers;
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
        SearchContext context =
            new SearchContext(
                analyzer, config, "content", "content_reversed", "content_translit_de",
                Set.of("content"), Set.of("file_path"), Set.of(), Set.of(),
                Set.of("file_path"), "page_offsets", new String[] {"language"}, 10);
        SearchContext.Parsed parsed = context.parse("*vertrag", true);
        Query base = new BooleanQuery.Builder().add(parsed.query, BooleanClause.Occur.MUST).build();
        DrillDownQuery drill = new DrillDownQuery(config, base);
        drill.add("language", "de");
        String json =
            context.run(
                new IndexSearcher(reader),
                new DefaultSortedSetDocValuesReaderState(reader, config),
                drill, null, 1, 10, new Query[] {parsed.query}, parsed.highlightQuery,
                parsed.units, 3, 200);
        assertTrue(json, json.startsWith("{\"total\":1,"));
        assertTrue(json, json.contains("\"counts\":[2]"));
        assertTrue(json, json.contains("\"language\":[[\"de\",1],[\"en\",1]]"));
        assertTrue(json, json.contains("\"file_path\":\"/a.txt\""));
        assertTrue(json, json.contains("Der <em>Arbeitsvertrag</em>"));
      }
    }
  }
}
