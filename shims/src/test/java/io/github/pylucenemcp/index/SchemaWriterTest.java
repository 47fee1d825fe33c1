package io.github.pylucenemcp.index;

import static org.junit.Assert.assertEquals;

import io.github.pylucenemcp.analysis.Analyzers;
import io.github.pylucenemcp.schema.FieldSchema;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.OffsetAttribute;
import org.apache.lucene.analysis.tokenattributes.PositionIncrementAttribute;
import org.apache.lucene.index.IndexableField;
import org.junit.Test;

public class SchemaWriterTest {
  public static final FieldSchema SCHEMA =
      FieldSchema.builder()
          .content("content", "content_reversed", "content_translit_de")
          .lemma("content_lemma_en", "en", 0.7f)
          .lemma("content_lemma_de", "de", 0.7f)
          .build();
  public static final Analyzer ANALYZER =
      Analyzers.perField(
          "content_reversed",
          "content_translit_de",
          Set.of(),
          Set.of(),
          Map.of("content_lemma_en", "en", "content_lemma_de", "de"));
  static final String TEXT =
      "Die Häuser der Müller-GmbH: ﬁnance, Straße 12; The children went home. ΟΔΟΣ οδός "
          + "Exceptions were raised (saw it), ＦＵＬＬ width, Mueller's café, e-mail a@b.de, 3.14";

  /** term/start/end/increment of each token. */
  static List<String> tokens(TokenStream stream) throws IOException {
    List<String> out = new ArrayList<>();
    CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
    OffsetAttribute offset = stream.addAttribute(OffsetAttribute.class);
    PositionIncrementAttribute increment = stream.addAttribute(PositionIncrementAttribute.class);
    stream.reset();
    while (stream.incrementToken()) {
      out.add(
          term
              + "/"
              + offset.startOffset()
              + "/"
              + offset.endOffset()
              + "/"
              + increment.getPositionIncrement());
    }
    stream.end();
    stream.close();
    return out;
  }

  @Test
  public void eachTwinGetsTheTokensItsAnalyzerMakes() throws IOException {
    List<IndexableField> fields =
        SchemaWriter.contentFields(SCHEMA, TEXT, "content_lemma_en,content_lemma_de");
    int indexed = 0;
    for (IndexableField field : fields) {
      TokenStream stream = field.tokenStream(null, null);
      if (stream == null) {
        assertEquals(TEXT, field.stringValue()); // the stored content
        continue;
      }
      indexed++;
      assertEquals(field.name(), tokens(ANALYZER.tokenStream(field.name(), TEXT)), tokens(stream));
    }
    assertEquals(5, indexed);
  }
}
