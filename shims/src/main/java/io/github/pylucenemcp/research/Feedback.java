package io.github.pylucenemcp.research;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.util.BytesRef;

/**
 * Anserini's query expansion from a search's first hits, over the term vectors of the searched
 * field: RM3's relevance model ({@code Rm3Reranker}) and Rocchio's ({@code RocchioReranker}).
 */
final class Feedback {
  /** RM3's settings: expansion terms, feedback documents, the original query's weight. */
  record Rm3(int fbTerms, int fbDocs, float originalQueryWeight, boolean filterTerms) {}

  /** Rocchio's settings, as Anserini's {@code RocchioReranker} takes them. */
  record Rocchio(
      int topFbTerms,
      int topFbDocs,
      int bottomFbTerms,
      int bottomFbDocs,
      float alpha,
      float beta,
      float gamma,
      boolean useNegative) {}

  private final IndexSearcher searcher;
  private final String field;

  Feedback(IndexSearcher searcher, String field) {
    this.searcher = searcher;
    this.field = field;
  }

  /**
   * The relevance model interpolated with the query (Anserini's {@code Rm3Reranker}): each feedback
   * document's term vector (terms of 2–20 characters, [a-z0-9] only with {@code filterTerms}, in at
   * most a tenth of the documents) kept to its {@code fbTerms} most frequent terms; each term
   * weighted by its share of each document times the document's score, summed; the model kept to
   * its {@code fbTerms} best terms, scaled to sum 1, and mixed with the query's terms (also summing
   * to 1) by {@code originalQueryWeight}.
   */
  Map<String, Float> model(Rm3 feedback, List<String> tokens, Retrieval.Hits first)
      throws IOException {
    int n = Math.min(first.docs().length, feedback.fbDocs);
    List<Map<String, Float>> vectors = new ArrayList<>();
    List<Float> scores = new ArrayList<>();
    Set<String> vocabulary = new HashSet<>();
    for (int i = 0; i < n; i++) {
      Map<String, Float> vector = documentVector(first.docs()[i], feedback.filterTerms, "RM3");
      vector = pruned(vector, feedback.fbTerms);
      vocabulary.addAll(vector.keySet());
      vectors.add(vector);
      scores.add(first.scores()[i]);
    }
    float[] norms = new float[vectors.size()];
    for (int i = 0; i < norms.length; i++) {
      norms[i] = (float) l1(vectors.get(i));
    }
    Map<String, Float> model = new HashMap<>();
    for (String term : vocabulary) {
      float weight = 0f;
      for (int i = 0; i < vectors.size(); i++) {
        if (norms[i] > 0.001f) {
          weight += (vectors.get(i).getOrDefault(term, 0f) / norms[i]) * scores.get(i);
        }
      }
      model.merge(term, weight, Float::sum);
    }
    model = scaled(pruned(model, feedback.fbTerms));
    Map<String, Float> query = scaled(counts(tokens));
    Set<String> all = new HashSet<>(); // filled as Anserini fills it: the same clause order
    all.addAll(query.keySet());
    all.addAll(model.keySet());
    Map<String, Float> mixed = new HashMap<>();
    float w = feedback.originalQueryWeight;
    for (String term : all) {
      float weight =
          (float) (w * query.getOrDefault(term, 0f) + (1.0 - w) * model.getOrDefault(term, 0f));
      mixed.merge(term, weight, Float::sum);
    }
    return mixed;
  }

  /**
   * Rocchio's new query (Anserini's {@code RocchioReranker}): the query's terms scaled to unit L2
   * norm times {@code alpha}, plus {@code beta} times the mean of the first hits' term vectors
   * (terms of 2–20 characters in at most a tenth of the documents, each vector scaled to unit L2
   * norm; the mean kept to its best terms and scaled again), minus {@code gamma} times that of the
   * last hits with {@code useNegative}; terms whose weight is not above 0 are left out.
   */
  Map<String, Float> model(Rocchio feedback, List<String> tokens, Retrieval.Hits first)
      throws IOException {
    Map<String, Float> query = scaledL2(counts(tokens));
    Map<String, Float> relevant = mean(first, true, feedback.topFbTerms, feedback.topFbDocs);
    Map<String, Float> other =
        feedback.useNegative
            ? mean(first, false, feedback.bottomFbTerms, feedback.bottomFbDocs)
            : new HashMap<>();
    Set<String> all = new HashSet<>();
    all.addAll(query.keySet());
    all.addAll(relevant.keySet());
    all.addAll(other.keySet());
    Map<String, Float> weighted = new HashMap<>();
    for (String term : all) {
      float weight =
          feedback.alpha * query.getOrDefault(term, 0f)
              + feedback.beta * relevant.getOrDefault(term, 0f)
              - feedback.gamma * other.getOrDefault(term, 0f);
      if (weight > 0) {
        weighted.merge(term, weight, Float::sum);
      }
    }
    return weighted;
  }

  /** The mean term vector of the first ({@code top}) or last {@code fbDocs} hits. */
  private Map<String, Float> mean(Retrieval.Hits hits, boolean top, int fbTerms, int fbDocs)
      throws IOException {
    int n = Math.min(hits.docs().length, fbDocs);
    List<Map<String, Float>> vectors = new ArrayList<>();
    Set<String> vocabulary = new HashSet<>();
    for (int i = 0; i < n; i++) {
      int doc = top ? hits.docs()[i] : hits.docs()[hits.docs().length - i - 1];
      Map<String, Float> vector = documentVector(doc, false, "Rocchio");
      vocabulary.addAll(vector.keySet());
      vectors.add(vector);
    }
    float[] norms = new float[vectors.size()];
    for (int i = 0; i < norms.length; i++) {
      norms[i] = (float) l2(vectors.get(i));
    }
    Map<String, Float> mean = new HashMap<>();
    for (String term : vocabulary) {
      float weight = 0f;
      for (int i = 0; i < vectors.size(); i++) {
        if (norms[i] > 0.001f) {
          weight += vectors.get(i).getOrDefault(term, 0f) / norms[i];
        }
      }
      mean.merge(term, weight / vectors.size(), Float::sum);
    }
    return scaledL2(pruned(mean, fbTerms));
  }

  private static double l2(Map<String, Float> vector) {
    double norm = 0;
    for (float value : vector.values()) {
      norm += Math.pow(value, 2.0);
    }
    return Math.sqrt(norm);
  }

  private static Map<String, Float> scaledL2(Map<String, Float> vector) {
    double norm = l2(vector);
    vector.replaceAll((term, value) -> (float) (value / norm));
    return vector;
  }

  /**
   * Document {@code doc}'s term vector of the searched field as feedback reads it (Anserini's
   * heuristics): terms of 2–20 characters, only [a-z0-9] with {@code alphanumeric}, in at most a
   * tenth of the documents; each with its frequency in the document.
   */
  private Map<String, Float> documentVector(int doc, boolean alphanumeric, String method)
      throws IOException {
    IndexReader reader = searcher.getIndexReader();
    Terms terms = reader.termVectors().get(doc, field);
    if (terms == null) {
      throw new IllegalArgumentException(
          method
              + " needs the term vectors of field "
              + field
              + ": index it with FieldSpec.text(..., term_vectors=True)");
    }
    int numDocs = reader.numDocs();
    Map<String, Float> vector = new HashMap<>();
    TermsEnum each = terms.iterator();
    for (BytesRef bytes = each.next(); bytes != null; bytes = each.next()) {
      String term = bytes.utf8ToString();
      if (term.length() < 2 || term.length() > 20) {
        continue;
      }
      if (alphanumeric && !term.matches("[a-z0-9]+")) {
        continue;
      }
      if ((float) reader.docFreq(new Term(field, term)) / numDocs > 0.1f) {
        continue;
      }
      vector.merge(term, (float) each.totalTermFreq(), Float::sum);
    }
    return vector;
  }

  /** How often each token occurs in {@code tokens}. */
  private static Map<String, Float> counts(List<String> tokens) {
    Map<String, Float> counts = new HashMap<>();
    for (String token : tokens) {
      counts.merge(token, 1f, Float::sum);
    }
    return counts;
  }

  /** The {@code k} highest values (equal ones by term), as Anserini's {@code pruneToSize}. */
  private static Map<String, Float> pruned(Map<String, Float> vector, int k) {
    List<Map.Entry<String, Float>> pairs = new ArrayList<>(vector.entrySet());
    Collections.sort(
        pairs,
        (x, y) -> {
          if (x.getValue().floatValue() == y.getValue().floatValue()) {
            return x.getKey().compareTo(y.getKey());
          }
          return x.getValue() > y.getValue() ? -1 : 1;
        });
    Map<String, Float> kept = new HashMap<>();
    for (Map.Entry<String, Float> pair : pairs) {
      kept.put(pair.getKey(), pair.getValue());
      if (kept.size() >= k) {
        break;
      }
    }
    return kept;
  }

  private static double l1(Map<String, Float> vector) {
    double norm = 0;
    for (float value : vector.values()) {
      norm += Math.abs(value);
    }
    return norm;
  }

  private static Map<String, Float> scaled(Map<String, Float> vector) {
    double norm = l1(vector);
    vector.replaceAll((term, value) -> (float) (value / norm));
    return vector;
  }
}
