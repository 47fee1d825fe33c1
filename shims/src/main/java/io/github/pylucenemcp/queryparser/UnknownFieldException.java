package io.github.pylucenemcp.queryparser;

import java.util.Collection;
import java.util.TreeSet;
import org.apache.lucene.queryparser.classic.ParseException;

/** A query named a field that the schema does not have. */
public final class UnknownFieldException extends ParseException {
  private static final long serialVersionUID = 1L;

  private final String field;
  private final String[] validFields;

  public UnknownFieldException(String field, Collection<String> validFields) {
    super(
        "unknown field '"
            + field
            + "'; valid fields: "
            + String.join(", ", new TreeSet<>(validFields)));
    this.field = field;
    this.validFields = new TreeSet<>(validFields).toArray(new String[0]);
  }

  public String getField() {
    return field;
  }

  public String[] getValidFields() {
    return validFields.clone();
  }
}
