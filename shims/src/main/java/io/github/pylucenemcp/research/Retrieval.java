package io.github.pylucenemcp.research;

import io.github.pylucenemcp.search.Json;
import io.github.pylucenemcp.util.Parallel;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DocValuesType;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.Similarity;

/**
 * Retrieval as Anserini does it, so that a pyserini script gives the same run: a text is a bag of
 * words (each analysed term once, boosted by how often it occurs), hits with equal scores are
 * ordered by their collection id, scores are rounded to four decimals with ties lowered by 1e-6
 * each (so that no evaluation tool orders them otherwise), and RM3 or Rocchio feedback re-searches
 * with a query of the best terms of the first hits. Thread-safe once configured.
 */
public final class Retrieval {
  /** RM3 looks at this many first hits, as Anserini's {@code -rerankCutoff} default. */
  static final int RERANK_CUTOFF = 50;

  private final IndexSearcher searcher;
  private final Analyzer analyzer;
  private final String field;
  private final String idField;
  private final Sort sort;
  // the ids as binary doc values (Anserini's), not sorted ones
  private final boolean binaryIds;
  private volatile Feedback.Rm3 rm3;
  private volatile Feedback.Rocchio rocchio;
  private final Feedback feedback;

  /**
   * Searches {@code field} of {@code reader} with {@code similarity}; {@code idField} holds the
   * collection's ids (ties are ordered by it when it has sorted doc values, or binary ones as
   * Anserini's indexes have, else by Lucene id).
   */
  public Retrieval(
      IndexReader reader, Similarity similarity, Analyzer analyzer, String field, String idField) {
    this.searcher = new IndexSearcher(reader);
    this.searcher.setSimilarity(similarity);
    this.analyzer = analyzer;
    this.field = field;
    this.feedback = new Feedback(searcher, field);
    this.idField = idField;
    FieldInfo id = FieldInfos.getMergedFieldInfos(reader).fieldInfo(idField);
    DocValuesType kind = id == null ? DocValuesType.NONE : id.getDocValuesType();
    this.sort =
        switch (kind) {
          case SORTED ->
              new Sort(SortField.FIELD_SCORE, new SortField(idField, SortField.Type.STRING));
          case BINARY ->
              new Sort(SortField.FIELD_SCORE, new SortField(idField, SortField.Type.STRING_VAL));
          default -> null;
        };
    this.binaryIds = kind == DocValuesType.BINARY;
  }

  /** The reader searched. */
  IndexReader reader() {
    return searcher.getIndexReader();
  }

  /** Whether equal scores are ordered by the collection's id. */
  public boolean tiesByCollectionId() {
    return sort != null;
  }

  /** Feedback with RM3 from now on. */
  public void setRm3(int fbTerms, int fbDocs, float originalQueryWeight, boolean filterTerms) {
    if (fbTerms < 1 || fbDocs < 1 || !(originalQueryWeight >= 0 && originalQueryWeight <= 1)) {
      throw new IllegalArgumentException(
          "RM3 needs fb_terms and fb_docs of at least 1 and original_query_weight in [0, 1], got "
              + fbTerms
              + ", "
              + fbDocs
              + ", "
              + originalQueryWeight);
    }
    rocchio = null;
    rm3 = new Feedback.Rm3(fbTerms, fbDocs, originalQueryWeight, filterTerms);
  }

  /** No RM3 feedback from now on. */
  public void unsetRm3() {
    rm3 = null;
  }

  /**
   * Feedback with Rocchio from now on (instead of RM3): the query's terms, plus {@code beta} times
   * the mean vector of the first {@code topFbDocs} hits (its {@code topFbTerms} best terms), minus
   * {@code gamma} times that of the last {@code bottomFbDocs} with {@code useNegative}.
   */
  public void setRocchio(
      int topFbTerms,
      int topFbDocs,
      int bottomFbTerms,
      int bottomFbDocs,
      float alpha,
      float beta,
      float gamma,
      boolean useNegative) {
    if (topFbTerms < 1 || topFbDocs < 1 || bottomFbTerms < 0 || bottomFbDocs < 0) {
      throw new IllegalArgumentException(
          "Rocchio needs top_fb_terms and top_fb_docs of at least 1 and bottom ones of at least 0");
    }
    rm3 = null;
    rocchio =
        new Feedback.Rocchio(
            topFbTerms, topFbDocs, bottomFbTerms, bottomFbDocs, alpha, beta, gamma, useNegative);
  }

  /** No Rocchio feedback from now on. */
  public void unsetRocchio() {
    rocchio = null;
  }

  public boolean usesRocchio() {
    return rocchio != null;
  }

  public boolean usesRm3() {
    return rm3 != null;
  }

  /** The terms {@code analyzer} makes of {@code text} for {@code field}, in order. */
  public static List<String> tokens(Analyzer analyzer, String field, String text)
      throws IOException {
    List<String> out = new ArrayList<>();
    try (TokenStream stream = analyzer.tokenStream(field, text)) {
      CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
      stream.reset();
      while (stream.incrementToken()) {
        out.add(term.toString());
      }
      stream.end();
    }
    return out;
  }

  /** Each distinct term of {@code tokens} once, boosted by how often it occurs (SHOULD). */
  static Query bagOfWords(String field, List<String> tokens) {
    Map<String, Long> counts =
        tokens.stream().collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
    BooleanQuery.Builder bag = new BooleanQuery.Builder();
    for (String term : counts.keySet()) {
      bag.add(
          new BoostQuery(new TermQuery(new Term(field, term)), (float) counts.get(term)),
          BooleanClause.Occur.SHOULD);
    }
    return bag.build();
  }

  /**
   * Each field's bag of words of {@code text} (analysed as that field is), boosted by the field's
   * weight, ORed: Anserini's {@code BagOfWordsQueryGenerator} over several fields.
   */
  Query bagOfWords(Map<String, Float> fields, String text) throws IOException {
    BooleanQuery.Builder any = new BooleanQuery.Builder();
    for (Map.Entry<String, Float> one : fields.entrySet()) {
      Query bag = bagOfWords(one.getKey(), tokens(analyzer, one.getKey(), text));
      any.add(new BoostQuery(bag, one.getValue()), BooleanClause.Occur.SHOULD);
    }
    return any.build();
  }

  /** One search's hits: Lucene ids and scores, best first. */
  record Hits(int[] docs, float[] scores) {}

  Hits search(String text, int k, Map<String, Float> fields) throws IOException {
    List<String> tokens = tokens(analyzer, field, text);
    Query query = fields.isEmpty() ? bagOfWords(field, tokens) : bagOfWords(fields, text);
    Feedback.Rm3 relevance = rm3;
    Feedback.Rocchio other = rocchio;
    Hits hits = top(query, relevance == null ? k : RERANK_CUTOFF);
    if (relevance != null) {
      hits = top(expanded(relevance, tokens, hits), k);
    } else if (other != null) {
      hits = top(boosted(feedback.model(other, tokens, hits)), k);
    }
    adjustTies(hits.scores);
    return hits;
  }

  /**
   * The expansion terms of {@code text} and their weights (before the final search): Rocchio's when
   * it is set, else RM3's (with RM3's defaults when it is not set either).
   */
  public Map<String, Float> feedbackTerms(String text) throws IOException {
    List<String> tokens = tokens(analyzer, field, text);
    Hits first = top(bagOfWords(field, tokens), RERANK_CUTOFF);
    Feedback.Rocchio other = rocchio;
    if (rm3 == null && other != null) {
      return feedback.model(other, tokens, first);
    }
    Feedback.Rm3 relevance = rm3 == null ? new Feedback.Rm3(10, 10, 0.5f, true) : rm3;
    return feedback.model(relevance, tokens, first);
  }

  /**
   * The score that Lucene document {@code doc} gets for the bag of words of {@code text}, as a
   * search of it scores the document before the ties are adjusted (0 when it does not match).
   */
  public float score(String text, int doc) throws IOException {
    Explanation explained = searcher.explain(bagOfWords(field, tokens(analyzer, field, text)), doc);
    return explained.isMatch() ? explained.getValue().floatValue() : 0f;
  }

  Hits top(Query query, int k) throws IOException {
    // sorted by score then id, the score is the sort's first value: asking Lucene for the
    // scores too would score the top hits again (a quarter of a search at k=10)
    TopDocs top = sort == null ? searcher.search(query, k) : searcher.search(query, k, sort, false);
    int[] docs = new int[top.scoreDocs.length];
    float[] scores = new float[docs.length];
    for (int i = 0; i < docs.length; i++) {
      ScoreDoc hit = top.scoreDocs[i];
      docs[i] = hit.doc;
      scores[i] = sort == null ? hit.score : (Float) ((FieldDoc) hit).fields[0];
    }
    return new Hits(docs, scores);
  }

  /**
   * Anserini's score ties adjustment: each score rounded to 1e-4, and each score within 1e-4 of the
   * one before lowered by 1e-6 for each such score in a row.
   */
  static void adjustTies(float[] scores) {
    int dup = 0;
    for (int i = 0; i < scores.length; i++) {
      scores[i] = (float) (Math.round(scores[i] * 1e4d) / 1e4d);
      if (i == 0 || scores[i - 1] - scores[i] > 1e-4f) {
        dup = 0;
      } else {
        dup++;
        scores[i] -= 1e-6f * dup;
      }
    }
  }

  private Query expanded(Feedback.Rm3 settings, List<String> tokens, Hits first)
      throws IOException {
    return boosted(feedback.model(settings, tokens, first));
  }

  /** The terms, each boosted by its weight, ORed (in the map's order, as Anserini's). */
  private Query boosted(Map<String, Float> terms) {
    BooleanQuery.Builder query = new BooleanQuery.Builder();
    for (Map.Entry<String, Float> term : terms.entrySet()) {
      query.add(
          new BoostQuery(new TermQuery(new Term(field, term.getKey())), term.getValue()),
          BooleanClause.Occur.SHOULD);
    }
    return query.build();
  }

  /**
   * The hits of a Lucene query as {@link #batch} gives a text's (ties by id, scores adjusted; no
   * feedback: it needs the query's text): UTF-8 JSON, {@code [[collection id, Lucene id, score],
   * ...]}.
   */
  public byte[] query(Query query, int k) throws IOException {
    Hits hits = top(query, k);
    adjustTies(hits.scores);
    String[] ids = ids(hits.docs);
    Json json = new Json().array();
    for (int i = 0; i < hits.docs.length; i++) {
      json.array().string(ids[i]).number(hits.docs[i]).decimal(hits.scores[i]).end();
    }
    return json.end().toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Each text's hits (see the class), {@code k} a text, on {@code threads} threads: UTF-8 JSON,
   * {@code [[[collection id, Lucene id, score], ...], ...]} in the order of the texts.
   */
  public byte[] batch(String[] texts, int k, int threads, Map<String, Float> fields)
      throws IOException {
    return each(texts.length, threads, i -> search(texts[i], k, fields));
  }

  /**
   * Each query given as its terms' integer weights (learned sparse retrieval: an impact index
   * searched with {@link ImpactSimilarity}) ORed, each term boosted by its weight in the order of a
   * {@link HashMap} of them (as Anserini's impact searcher adds the clauses, so that the scores are
   * summed in its order), as {@link #batch} answers texts: the best {@code k} a query, ties by id,
   * scores adjusted.
   */
  public byte[] weighted(List<Map<String, Integer>> queries, int k, int threads)
      throws IOException {
    return each(
        queries.size(),
        threads,
        i -> {
          Map<String, Float> weights = new HashMap<>();
          for (Map.Entry<String, Integer> term : queries.get(i).entrySet()) {
            weights.put(term.getKey(), term.getValue().floatValue());
          }
          Hits hits = top(boosted(weights), k);
          adjustTies(hits.scores);
          return hits;
        });
  }

  /**
   * The hits of {@code count} searches run on {@code threads} threads, as {@link #batch} writes.
   */
  byte[] each(int count, int threads, Search search) throws IOException {
    Hits[] found = new Hits[count];
    String[][] ids = new String[count][];
    ExecutorService pool = threads > 1 ? Executors.newFixedThreadPool(threads - 1) : null;
    try {
      new Parallel(pool, threads)
          .each(
              count,
              i -> {
                found[i] = search.run(i);
                ids[i] = ids(found[i].docs);
              });
    } finally {
      if (pool != null) {
        pool.shutdown();
      }
    }
    Json json = new Json().array();
    for (int q = 0; q < found.length; q++) {
      json.array();
      for (int i = 0; i < found[q].docs.length; i++) {
        json.array().string(ids[q][i]).number(found[q].docs[i]).decimal(found[q].scores[i]).end();
      }
      json.end();
    }
    return json.end().toString().getBytes(StandardCharsets.UTF_8);
  }

  /** One search of a batch. */
  @FunctionalInterface
  interface Search {
    Hits run(int i) throws IOException;
  }

  /**
   * The collection ids of {@code docs}: from the id field's sorted or binary doc values when it has
   * them (a lookup each), else from the stored fields (a block decompressed each: most of a
   * search's time at 1,000 hits).
   */
  String[] ids(int[] docs) throws IOException {
    String[] ids = new String[docs.length];
    // in Lucene id order: one doc values iterator a segment, each moved forward only
    Integer[] order = new Integer[docs.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(order, Comparator.comparingInt(i -> docs[i]));
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    StoredFields stored = null;
    LeafReaderContext leaf = null;
    SortedDocValues values = null;
    BinaryDocValues binary = null;
    for (int i : order) {
      int doc = docs[i];
      if (leaf == null || doc >= leaf.docBase + leaf.reader().maxDoc()) {
        leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
        values = sort == null || binaryIds ? null : leaf.reader().getSortedDocValues(idField);
        binary = binaryIds ? leaf.reader().getBinaryDocValues(idField) : null;
      }
      if (values != null && values.advanceExact(doc - leaf.docBase)) {
        ids[i] = values.lookupOrd(values.ordValue()).utf8ToString();
      } else if (binary != null && binary.advanceExact(doc - leaf.docBase)) {
        ids[i] = binary.binaryValue().utf8ToString();
      } else {
        stored = stored == null ? searcher.storedFields() : stored;
        ids[i] = stored.document(doc, Set.of(idField)).get(idField);
      }
    }
    return ids;
  }
}
