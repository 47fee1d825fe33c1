package io.github.pylucenemcp.portable;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import io.github.pylucenemcp.queryparser.RankedPatterns;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.MultiPhraseQuery;
import org.apache.lucene.search.PhraseQuery;
import org.apache.lucene.search.PrefixQuery;
import org.apache.lucene.search.SynonymQuery;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.WildcardQuery;
import org.apache.lucene.util.BytesRef;
import org.junit.Test;

public class PortableQueryTest {
  @Test
  public void aBooleanOfTermsBoostsAndPointsIsWrittenNodeByNode() {
    BooleanQuery query =
        new BooleanQuery.Builder()
            .add(new TermQuery(new Term("content", "vertrag")), Occur.MUST)
            .add(new BoostQuery(new TermQuery(new Term("title", "b\"c")), 0.5f), Occur.SHOULD)
            .add(LongPoint.newRangeQuery("file_size", -3L, 7L), Occur.FILTER)
            .add(MatchAllDocsQuery.INSTANCE, Occur.MUST_NOT)
            .build();
    assertEquals(
        "{\"t\":\"bool\",\"msm\":0,\"c\":["
            + "{\"o\":\"MUST\",\"q\":{\"t\":\"term\",\"f\":\"content\",\"v\":\"vertrag\"}},"
            + "{\"o\":\"SHOULD\",\"q\":{\"t\":\"boost\",\"b\":0.5,"
            + "\"q\":{\"t\":\"term\",\"f\":\"title\",\"v\":\"b\\\"c\"}}},"
            + "{\"o\":\"FILTER\",\"q\":{\"t\":\"longRange\",\"f\":\"file_size\",\"lo\":-3,\"hi\":7}},"
            + "{\"o\":\"MUST_NOT\",\"q\":{\"t\":\"all\"}}]}",
        PortableQuery.toJson(query));
  }

  @Test
  public void phrasesKeepTheirPositionsAndSlop() {
    PhraseQuery phrase =
        new PhraseQuery.Builder()
            .add(new Term("content", "signed"), 0)
            .add(new Term("content", "contract"), 2)
            .setSlop(1)
            .build();
    assertEquals(
        "{\"t\":\"phrase\",\"f\":\"content\",\"slop\":1,\"v\":[\"signed\",\"contract\"],"
            + "\"pos\":[0,2]}",
        PortableQuery.toJson(phrase));
    MultiPhraseQuery multi =
        new MultiPhraseQuery.Builder()
            .add(new Term[] {new Term("lemma", "signed"), new Term("lemma", "sign")})
            .add(new Term("lemma", "contract"))
            .build();
    assertEquals(
        "{\"t\":\"multiPhrase\",\"slop\":0,\"f\":\"lemma\",\"v\":[[\"signed\",\"sign\"],"
            + "[\"contract\"]],\"pos\":[0,1]}",
        PortableQuery.toJson(multi));
    SynonymQuery synonyms =
        new SynonymQuery.Builder("lemma")
            .addTerm(new Term("lemma", "haus"))
            .addTerm(new Term("lemma", "hausen"))
            .build();
    assertEquals(
        "{\"t\":\"syn\",\"f\":\"lemma\",\"v\":[\"haus\",\"hausen\"]}",
        PortableQuery.toJson(synonyms));
  }

  @Test
  public void aPatternSaysWhetherItIsRanked() {
    assertEquals(
        "{\"t\":\"prefix\",\"f\":\"content\",\"v\":\"sig\",\"ranked\":false}",
        PortableQuery.toJson(new PrefixQuery(new Term("content", "sig"))));
    WildcardQuery ranked =
        new WildcardQuery(
            new Term("content", "*vertrag*"), 10_000, RankedPatterns.ALL_TERMS_RANKED);
    assertEquals(
        "{\"t\":\"wildcard\",\"f\":\"content\",\"v\":\"*vertrag*\",\"ranked\":true}",
        PortableQuery.toJson(ranked));
  }

  @Test
  public void aQueryOfAnotherKindIsRefusedNotApproximated() {
    TermInSetQuery terms = new TermInSetQuery("content", java.util.List.of(new BytesRef("a")));
    IllegalArgumentException refused =
        assertThrows(IllegalArgumentException.class, () -> PortableQuery.toJson(terms));
    assertEquals(true, refused.getMessage().contains("TermInSetQuery"));
  }
}
