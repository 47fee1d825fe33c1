package io.github.pylucenemcp.search;

import static org.junit.Assert.assertEquals;

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
  public void numbersAreIntegersWhenWholeAndNeverNaN() {
    assertEquals("3", new Json().number(3.0).toString());
    assertEquals("0.5", new Json().number(0.5).toString());
    assertEquals("0", new Json().number(Double.NaN).toString());
  }

  @Test
  public void facetsWithoutAnIndexedDimensionAreEmptyLists() throws Exception {
    assertEquals("{\"a\":[],\"b\":[]}", PageResults.facets(null, new String[] {"a", "b"}, 10));
  }
}
