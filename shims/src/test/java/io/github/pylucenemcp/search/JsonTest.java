package io.github.pylucenemcp.search;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import java.util.List;
import org.junit.Test;

public class JsonTest {
  @Test
  public void stringsAreEscaped() {
    assertEquals(
        "\"a\\\"b\\\\c\\nd\\te\\u0001\"", new Json().string("a\"b\\c\nd\te\u0001").toString());
  }

  @Test
  public void loneSurrogatesAreEscapedAndPairsKept() {
    assertEquals("\"\\ud800x\"", new Json().string("\ud800x").toString());
    assertEquals("\"\ud83d\ude00\"", new Json().string("\ud83d\ude00").toString());
  }

  @Test
  public void aWriterThatReplacesLoneSurrogatesKeepsPairs() {
    String text = "a\ud800b\udc00c\ud83d\ude00";
    assertEquals(
        "\"a\ufffdb\ufffdc\ud83d\ude00\"", Json.replacingLoneSurrogates().string(text).toString());
    assertEquals("\"a\\ud800b\\udc00c\ud83d\ude00\"", new Json().string(text).toString());
  }

  @Test
  public void decimalsStayFloatsAndAreNeverNaN() {
    assertEquals("3.0", new Json().decimal(3.0).toString());
    assertEquals("0.5", new Json().decimal(0.5).toString());
    assertEquals("0.0", new Json().decimal(Double.NaN).toString());
  }

  @Test
  public void scoresRoundLikePythonOnTheExactBinaryValue() {
    // 2.675 is 2.67499999... in binary: Python's round(2.675, 2) gives 2.67, not 2.68
    assertEquals(2.67, PageResults.round(2.675, 2), 0.0);
    assertEquals(0.1235, PageResults.round(0.12345, 4), 0.0);
    assertEquals(0.0, PageResults.round(Float.NaN, 4), 0.0);
  }

  @Test
  public void facetsWithoutAnIndexedDimensionAreEmptyLists() throws Exception {
    Json json = new Json();
    PageResults.facets(json, null, List.of("a", "b"), 10);
    assertEquals("{\"a\":[],\"b\":[]}", json.toString());
  }

  @Test
  public void theWriterPlacesCommasAndColons() {
    Json json = new Json().object().name("a").number(1).name("b").array();
    json.string("x").array().decimal(0.5).bool(true).end().object().end().end();
    json.name("c").object().name("d").string(null).end();
    assertEquals("{\"a\":1,\"b\":[\"x\",[0.5,true],{}],\"c\":{\"d\":null}}", json.end().toString());
    Json deep = new Json();
    for (int i = 0; i < 20; i++) {
      deep.array();
    }
    for (int i = 0; i < 20; i++) {
      deep.end();
    }
    assertEquals("[".repeat(20) + "]".repeat(20), deep.toString());
  }

  @Test
  public void misplacedPartsAreRefusedInsteadOfWrittenAsBrokenJson() {
    assertThrows(IllegalStateException.class, () -> new Json().object().number(1));
    assertThrows(IllegalStateException.class, () -> new Json().array().name("a"));
    assertThrows(IllegalStateException.class, () -> new Json().object().name("a").name("b"));
    assertThrows(IllegalStateException.class, () -> new Json().object().name("a").end());
    assertThrows(IllegalStateException.class, () -> new Json().number(1).number(2));
    assertThrows(IllegalStateException.class, () -> new Json().end());
    assertThrows(IllegalStateException.class, () -> new Json().array().toString());
  }
}
