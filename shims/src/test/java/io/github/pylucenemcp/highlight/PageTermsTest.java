package io.github.pylucenemcp.highlight;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.github.pylucenemcp.index.SchemaWriter;
import io.github.pylucenemcp.index.SchemaWriterTest;
import io.github.pylucenemcp.queryparser.ContentQueryParser;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.junit.Test;

public class PageTermsTest {
  static final List<String> TEXTS =
      List.of(
          "The nation's station: a ration of attention, and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢tion too.",
          "Die Zeitung und die Wohnung, Abteilung, Übung; Ordnung muss sein.",
          "tion alone, then motion and emotion, fraction; nothing else here",
          "No word of the patterns at all.");

  /**
   * The words of each pattern, as each document's highlight query has them: found through the
   * reversed twin (with content_reversed) and in the content itself (without) — the same.
   */
  @Test
  public void aLeadingWildcardFindsTheSameWordsThroughTheReversedTwin() throws Exception {
    try (Directory dir = new ByteBuffersDirectory();
        IndexWriter writer =
            new IndexWriter(dir, new IndexWriterConfig(SchemaWriterTest.ANALYZER))) {
      for (String text : TEXTS) {
        Document doc = new Document();
        SchemaWriter.contentFields(SchemaWriterTest.SCHEMA, text, null).forEach(doc::add);
        writer.addDocument(doc);
        writer.commit(); // a leaf each: words are found leaf by leaf
      }
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        IndexSearcher searcher = new IndexSearcher(reader);
        int[] docs = {3, 0, 2, 1};
        for (String pattern :
            List.of("*tion", "??ung", "*ung", "**ion", "*𝔢tion", "tion*", "*t?on")) {
          Query query =
              new ContentQueryParser(SchemaWriterTest.SCHEMA, SchemaWriterTest.ANALYZER, true)
                  .parse(pattern);
          Query[] twin =
              PageTerms.perDocument(searcher, query, docs, Map.of("content", "content_reversed"));
          Query[] own = PageTerms.perDocument(searcher, query, docs, Map.of());
          assertEquals(pattern, Arrays.toString(own), Arrays.toString(twin));
          // and some document has words of it
          assertTrue(pattern, Arrays.stream(twin).anyMatch(q -> !(q instanceof MatchNoDocsQuery)));
        }
      }
    }
  }
}
