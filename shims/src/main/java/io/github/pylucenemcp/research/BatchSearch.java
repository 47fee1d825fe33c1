package io.github.pylucenemcp.research;

import io.github.pylucenemcp.search.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;

/**
 * Many queries in one call, on {@code threads} threads of Java's own (Python's interpreter lock is
 * not held meanwhile): for each query its {@code k} best documents as (stored id, score). The
 * answer is UTF-8 JSON, {@code [[[id, score], ...], ...]}, in the order of the queries.
 */
public final class BatchSearch {
  private BatchSearch() {}

  /**
   * Each text as a bag of words: one SHOULD clause per term that {@code analyzer} makes of it for
   * {@code field} (a term repeated in the text is repeated in the query).
   */
  public static Query[] bagsOfWords(Analyzer analyzer, String field, String[] texts)
      throws IOException {
    Query[] queries = new Query[texts.length];
    for (int t = 0; t < texts.length; t++) {
      BooleanQuery.Builder bag = new BooleanQuery.Builder();
      try (TokenStream stream = analyzer.tokenStream(field, texts[t])) {
        CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
        stream.reset();
        while (stream.incrementToken()) {
          bag.add(new TermQuery(new Term(field, term.toString())), BooleanClause.Occur.SHOULD);
        }
        stream.end();
      }
      queries[t] = bag.build();
    }
    return queries;
  }

  public static byte[] run(
      IndexSearcher searcher, Query[] queries, int k, String idField, int threads)
      throws Exception {
    String[][] ids = new String[queries.length][];
    float[][] scores = new float[queries.length][];
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
    try {
      Future<?>[] done = new Future<?>[queries.length];
      for (int q = 0; q < queries.length; q++) {
        int at = q;
        done[q] =
            pool.submit(
                () -> {
                  try {
                    TopDocs top = searcher.search(queries[at], k);
                    StoredFields stored = searcher.storedFields();
                    ids[at] = new String[top.scoreDocs.length];
                    scores[at] = new float[top.scoreDocs.length];
                    for (int i = 0; i < top.scoreDocs.length; i++) {
                      ScoreDoc hit = top.scoreDocs[i];
                      ids[at][i] = stored.document(hit.doc, Set.of(idField)).get(idField);
                      scores[at][i] = hit.score;
                    }
                  } catch (IOException e) {
                    throw new UncheckedIOException(e);
                  }
                });
      }
      for (Future<?> future : done) {
        future.get();
      }
    } finally {
      pool.shutdown();
    }
    Json json = new Json().array();
    for (int q = 0; q < queries.length; q++) {
      json.array();
      for (int i = 0; i < ids[q].length; i++) {
        json.array().string(ids[q][i]).decimal(scores[q][i]).end();
      }
      json.end();
    }
    return json.end().toString().getBytes(StandardCharsets.UTF_8);
  }
}
