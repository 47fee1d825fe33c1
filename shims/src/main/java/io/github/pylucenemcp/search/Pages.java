package io.github.pylucenemcp.search;

import io.github.pylucenemcp.highlight.Highlighting;
import io.github.pylucenemcp.index.SchemaWriter;
import io.github.pylucenemcp.schema.FieldSchema;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.facet.FacetsConfig;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.store.ByteBuffersDirectory;

/**
 * A page of hits as the search tool shows them, with their passages, for one index's schema and
 * analyzer: of a search of this index ({@link #hits}), of documents another engine found ({@link
 * #storedPage}), and the matches of a parsed query in one document's text ({@link #matchesIn}).
 */
public final class Pages {
  private final FieldSchema schema;
  private final Analyzer analyzer;
  private final FacetsConfig facetsConfig;
  private final Set<String> matchFields;

  Pages(FieldSchema schema, Analyzer analyzer, FacetsConfig facetsConfig, Set<String> matchFields) {
    this.schema = schema;
    this.analyzer = analyzer;
    this.facetsConfig = facetsConfig;
    this.matchFields = matchFields;
  }

  /** The hits' JSON (see {@link PageResults#hits}) with passages of {@code highlight}. */
  String hits(
      IndexSearcher searcher,
      int[] docIds,
      float[] scores,
      Query highlight,
      List<Query> units,
      int maxPassages,
      int maxChars)
      throws IOException {
    Json hits = new Json();
    PageResults.hits(
        hits,
        searcher,
        docIds,
        scores,
        schema,
        analyzer,
        matchFields,
        highlight,
        units,
        maxPassages,
        maxChars);
    return hits.toString();
  }

  /**
   * The hits' JSON (see {@link PageResults#hits}) of documents that another engine found (the
   * SolrCloud backend), from their stored fields: {@code strings} and {@code numbers} are rows as
   * {@link SchemaWriter} takes them, written into an index in memory with the schema's own fields,
   * so that the hit fields read as the embedded index's do and the passages of {@code parsed} (none
   * when null, or for {@code maxPassages} 0) come from the same highlighter. The passages'
   * statistics are those of the page's documents, not of the whole collection.
   */
  public String storedPage(
      Parsed parsed,
      String keyField,
      String[] stringFields,
      String[] longFields,
      String[] strings,
      long[] numbers,
      float[] scores,
      int maxPassages,
      int maxChars)
      throws IOException {
    try (ByteBuffersDirectory directory = new ByteBuffersDirectory()) {
      IndexWriterConfig config =
          new IndexWriterConfig(analyzer).setRAMBufferSizeMB(256).setUseCompoundFile(false);
      config.setMergePolicy(NoMergePolicy.INSTANCE);
      boolean passages = parsed != null && !parsed.matchAll && maxPassages > 0;
      try (IndexWriter writer = new IndexWriter(directory, config)) {
        new SchemaWriter(writer, schema, facetsConfig, keyField, stringFields, longFields, null, 1)
            .forPassages(passages ? fieldsOf(parsed.highlightQuery) : Set.of())
            .add(strings, numbers);
      }
      try (DirectoryReader reader = DirectoryReader.open(directory)) {
        if (reader.leaves().size() != 1 || reader.maxDoc() != scores.length) {
          throw new IllegalStateException("a page's documents must be one segment in order");
        }
        int[] docIds = new int[scores.length];
        Arrays.setAll(docIds, i -> i);
        Json hits = new Json();
        PageResults.hits(
            hits,
            new IndexSearcher(reader),
            docIds,
            scores,
            schema,
            analyzer,
            matchFields,
            passages ? parsed.highlightQuery : null,
            passages ? parsed.units : List.of(),
            maxPassages,
            maxChars);
        return hits.toString();
      }
    }
  }

  /**
   * The matches of {@code parsed} in {@code text}, a document's stored content whose lemma fields
   * are {@code lemmaFields} (comma-separated), as its passages mark them: {@code [start, end …]},
   * at most {@code max} (see {@link Highlighting#matchesIn}); none for a query of every document.
   */
  public int[] matchesIn(Parsed parsed, String text, String lemmaFields, int max)
      throws IOException {
    if (parsed.matchAll || text.isEmpty()) {
      return new int[0];
    }
    return Highlighting.matchesIn(
        schema, analyzer, matchFields, parsed.highlightQuery, parsed.units, text, lemmaFields, max);
  }

  /** The fields that {@code query}'s terms and patterns are on. */
  private static Set<String> fieldsOf(Query query) {
    Set<String> fields = new HashSet<>();
    query.visit(
        new QueryVisitor() {
          @Override
          public boolean acceptField(String field) {
            fields.add(field);
            return true;
          }

          @Override
          public QueryVisitor getSubVisitor(Occur occur, Query parent) {
            return this;
          }
        });
    return fields;
  }
}
