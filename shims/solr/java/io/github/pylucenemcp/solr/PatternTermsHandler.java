package io.github.pylucenemcp.solr;

import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.BoostAttribute;
import org.apache.lucene.search.MultiTermQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.util.BytesRef;
import org.apache.solr.common.SolrException;
import org.apache.solr.handler.RequestHandlerBase;
import org.apache.solr.request.SolrQueryRequest;
import org.apache.solr.response.SolrQueryResponse;
import org.apache.solr.security.AuthorizationContext;
import org.noggit.ObjectBuilder;

/**
 * {@code /pylucene/terms} on one core: the first {@code limit} terms, in index order, that a
 * pattern ({@code q}: a prefix or wildcard node of the portable query) reaches in this core's
 * index, enumerated as Lucene enumerates them for the query (through its automaton). The backend
 * asks every shard and merges the answers: a ranked pattern's best terms over the collection,
 * without the terms component's regular expression over every term. With {@code order=boost} (a
 * fuzzy word), the best terms by similarity instead.
 */
public final class PatternTermsHandler extends RequestHandlerBase {
  @Override
  public void handleRequestBody(SolrQueryRequest req, SolrQueryResponse rsp) throws Exception {
    String json = req.getParams().required().get("q");
    int limit = req.getParams().getInt("limit", 51);
    Query query = PortableQParserPlugin.build(ObjectBuilder.fromJSON(json));
    if (!(query instanceof MultiTermQuery pattern)) {
      throw new SolrException(SolrException.ErrorCode.BAD_REQUEST, "q must be a pattern");
    }
    Terms terms = MultiTerms.getTerms(req.getSearcher().getIndexReader(), pattern.getField());
    if ("boost".equals(req.getParams().get("order"))) {
      rsp.add("terms", best(terms, pattern, limit));
      return;
    }
    List<String> found = new ArrayList<>();
    if (terms != null) {
      TermsEnum each = pattern.getTermsEnum(terms);
      for (BytesRef term = each.next(); term != null && found.size() < limit; term = each.next()) {
        found.add(term.utf8ToString());
      }
    }
    rsp.add("terms", found);
  }

  /**
   * The {@code limit} best terms of a fuzzy word, each {@code [term, boost]}: by its similarity
   * (the boost its enumeration gives), then in index order, as Lucene's top-terms rewrite keeps
   * them.
   */
  private static List<List<Object>> best(Terms terms, MultiTermQuery pattern, int limit)
      throws java.io.IOException {
    java.util.PriorityQueue<Object[]> kept =
        new java.util.PriorityQueue<>(
            (a, b) -> {
              int byBoost = Float.compare((Float) a[1], (Float) b[1]);
              return byBoost != 0 ? byBoost : ((BytesRef) b[0]).compareTo((BytesRef) a[0]);
            });
    if (terms != null) {
      TermsEnum each = pattern.getTermsEnum(terms);
      BoostAttribute boost = each.attributes().addAttribute(BoostAttribute.class);
      for (BytesRef term = each.next(); term != null; term = each.next()) {
        kept.add(new Object[] {BytesRef.deepCopyOf(term), boost.getBoost()});
        if (kept.size() > limit) {
          kept.poll(); // the weakest: lowest boost, then the last in index order
        }
      }
    }
    List<List<Object>> found = new ArrayList<>();
    for (Object[] term : kept) {
      found.add(List.of(((BytesRef) term[0]).utf8ToString(), term[1]));
    }
    return found;
  }

  @Override
  public String getDescription() {
    return "the first terms a pattern of the portable query reaches in this core";
  }

  @Override
  public Name getPermissionName(AuthorizationContext request) {
    return Name.READ_PERM;
  }
}
