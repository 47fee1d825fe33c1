package io.github.pylucenemcp.checks;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a class, method or field that uses an API forbidden-apis forbids (build.gradle's
 * forbiddenApisCheck), on purpose: {@link #reason} says why.
 */
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD})
public @interface SuppressForbidden {
  String reason();
}
