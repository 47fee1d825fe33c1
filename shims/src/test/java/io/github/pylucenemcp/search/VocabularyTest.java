package io.github.pylucenemcp.search;

import static org.junit.Assert.assertEquals;

import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.Test;

public class VocabularyTest {
  @Test
  public void termsByPrefixTopTermsAndDuplicateGroups() throws Exception {
    try (ByteBuffersDirectory dir = new ByteBuffersDirectory();
        IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig(new StandardAnalyzer()))) {
      String[][] docs = {
        {"/a.txt", "h1", "contract contracts", "10"},
        {"/b.txt", "h1", "contract", "20"},
        {"/c.txt", "h2", "context", "30"}
      };
      for (String[] d : docs) {
        Document doc = new Document();
        doc.add(new StringField("file_path", d[0], Field.Store.YES));
        doc.add(new StringField("content_hash", d[1], Field.Store.YES));
        doc.add(new TextField("content", d[2], Field.Store.NO));
        doc.add(new StoredField("file_size", Long.parseLong(d[3])));
        doc.add(new StoredField("modified_date", 1709296205123L));
        writer.addDocument(doc);
      }
      writer.commit();
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        assertEquals(
            "{\"terms\":[[\"contract\",2],[\"contracts\",1]],\"scanned\":2,\"complete\":true}",
            Vocabulary.suggest(reader, "content", "contra", 10, 1000));
        assertEquals(
            "{\"terms\":[[\"contract\",2]],\"scanned\":1,\"complete\":false}",
            Vocabulary.suggest(reader, "content", "contra", 10, 1));
        assertEquals(
            "{\"terms\":[[\"contract\",2,2]],\"scanned\":3,\"complete\":true}",
            Vocabulary.top(reader, "content", 1, 1000));
        assertEquals(
            "{\"total\":1,\"apart\":0,\"groups\":[{\"contentHash\":\"h1\",\"size\":2,\"documents\":["
                + "{\"filePath\":\"/a.txt\",\"fileSize\":10,\"modifiedDate\":\"2024-03-01T12:30:05Z\"},"
                + "{\"filePath\":\"/b.txt\",\"fileSize\":20,\"modifiedDate\":\"2024-03-01T12:30:05Z\"}]}]}",
            Vocabulary.duplicates(
                reader,
                "content_hash",
                "file_path",
                "file_size",
                "modified_date",
                2,
                "",
                0,
                10,
                20,
                "h0"));
        // a group lists its first documents by path and counts them all
        assertEquals(
            "{\"total\":1,\"apart\":0,\"groups\":[{\"contentHash\":\"h1\",\"size\":2,\"documents\":["
                + "{\"filePath\":\"/a.txt\",\"fileSize\":10,\"modifiedDate\":\"2024-03-01T12:30:05Z\"}]}]}",
            Vocabulary.duplicates(
                reader,
                "content_hash",
                "file_path",
                "file_size",
                "modified_date",
                2,
                "",
                0,
                10,
                1,
                "h0"));
      }
    }
  }
}
