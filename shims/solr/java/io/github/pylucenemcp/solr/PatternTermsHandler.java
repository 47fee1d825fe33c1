package io.github.pylucenemcp.solr;

import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
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
 * without the terms component's regular expression over every term.
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
    List<String> found = new ArrayList<>();
    Terms terms = MultiTerms.getTerms(req.getSearcher().getIndexReader(), pattern.getField());
    if (terms != null) {
      TermsEnum each = pattern.getTermsEnum(terms);
      for (BytesRef term = each.next(); term != null && found.size() < limit; term = each.next()) {
        found.add(term.utf8ToString());
      }
    }
    rsp.add("terms", found);
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
