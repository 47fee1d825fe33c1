package io.github.pylucenemcp.queryparser;

import io.github.pylucenemcp.schema.FieldSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.Term;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.FuzzyQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.PhraseQuery;
import org.apache.lucene.search.PrefixQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.WildcardQuery;
import org.apache.lucene.util.BytesRef;

/**
 * Lucene's classic syntax over the schema, with three rewrites on the {@code content} field.
 *
 * <ul>
 *   <li>A word or phrase also searches {@code content_translit_de} when German normalization
 *       changes it, so {@code Mueller} finds "Müller"; and the lemma fields, weighted lower, so
 *       {@code lock} finds "locks" and "locked" ({@link #setWordForms}).
 *   <li>A leading wildcard ({@code *vertrag}) becomes a wildcard with a fixed prefix on {@code
 *       content_reversed} ({@code gartrev*}), which is as cheap as a prefix query. An infix
 *       wildcard ({@code *vertrag*}) stays on {@code content}.
 *   <li>Ranges and values of numeric and date fields become {@link LongPoint} queries; {@code
 *       modified_date:2024-01-01} is that whole day.
 * </ul>
 *
 * <p>Precedence is as written: with the default operator AND, words side by side bind tighter than
 * {@code OR}, so {@code a b OR c d} means {@code (a AND b) OR (c AND d)} ({@link
 * #getBooleanQuery}); {@code NOT} and {@code -} bind to the next clause. Patterns and fuzzy words
 * match every term they expand to; the best of those terms rank ({@link
 * RankedPatterns#ALL_TERMS_RANKED}).
 *
 * <p>In highlight mode every content query stays on {@code content} (leading wildcards too), so
 * that a highlighter over {@code content} marks the words the user typed. Every content term,
 * phrase or pattern the parser builds is recorded as a "unit" ({@link #getUnits()}): the passages'
 * term coverage is the share of units they contain. Not thread-safe: one per parse.
 */
public final class ContentQueryParser extends QueryParser {
  /**
   * The default field of a parser whose unfielded words are searched in every field (see {@link
   * #ContentQueryParser(FieldSchema, Analyzer, boolean, boolean)}): a name no schema field has.
   */
  public static final String EVERY_FIELD = "_every_field_";

  private final FieldSchema schema;
  private final String contentField;
  private final boolean highlight;
  // the fields an unfielded word is also searched in, with their weights (empty: content only)
  private final Map<String, Float> others;
  private final List<Query> units = new ArrayList<>();
  private boolean wordForms = true;

  /** A parser whose unfielded words are searched in the content alone. */
  public ContentQueryParser(FieldSchema schema, Analyzer analyzer, boolean highlight) {
    this(schema, analyzer, highlight, false);
  }

  /**
   * A parser; with {@code everyField}, each unfielded word, phrase or pattern is searched in the
   * content (with its twins) and in each field the schema also searches ({@link
   * FieldSchema#alsoSearched}, with its weight), clause by clause as edismax's {@code qf}: a clause
   * matches a document that has it in any of them, and a negated clause ({@code -draft}) excludes
   * every document that has it in any of them. A fielded clause ({@code content:x}, {@code
   * title:x}) stays on its field. In highlight mode unfielded words stay on the content, which the
   * highlighter marks.
   */
  public ContentQueryParser(
      FieldSchema schema, Analyzer analyzer, boolean highlight, boolean everyField) {
    super(everyField ? EVERY_FIELD : schema.content, analyzer);
    // one clause per word, so that the words of a group are clauses of their own (see
    // getBooleanQuery) and each word has its own twins
    setSplitOnWhitespace(true);
    this.schema = schema;
    this.contentField = schema.content;
    this.highlight = highlight;
    this.others = everyField && !highlight ? schema.alsoSearched : Map.of();
    setAllowLeadingWildcard(true);
  }

  private static boolean unfielded(String field) {
    return EVERY_FIELD.equals(field);
  }

  /**
   * {@code content} (an unfielded clause on the content, with its twins) or the same clause on each
   * other field searched, each weighted: one clause of the query, whichever field has it. A clause
   * with no searchable word in the text ({@code "(("}) is none in the other fields either.
   */
  private Query inEveryField(Query content, Build other) throws ParseException {
    if (others.isEmpty() || content == null) {
      return content;
    }
    BooleanQuery.Builder any = new BooleanQuery.Builder().add(content, BooleanClause.Occur.SHOULD);
    boolean added = false;
    for (Map.Entry<String, Float> field : others.entrySet()) {
      Query q = other.on(field.getKey());
      if (q != null) {
        any.add(new BoostQuery(q, field.getValue()), BooleanClause.Occur.SHOULD);
        added = true;
      }
    }
    return added ? any.build() : content;
  }

  /**
   * Whether words and phrases also match their other forms on the schema's lemma fields (on by
   * default; off for an exact-only search).
   */
  public void setWordForms(boolean wordForms) {
    this.wordForms = wordForms;
  }

  // QueryParserBase's package-private constants of conjunctions and modifiers
  private static final int CONJ_OR = 2;
  private static final int MOD_NOT = 10;

  /** One clause as written: the conjunction before it, its modifier, its query (may be null). */
  private record Written(int conj, int mods, Query query) {}

  /** The clauses of each (parenthesised) level being parsed, as written, by identity. */
  private final Map<List<BooleanClause>, List<Written>> written = new IdentityHashMap<>();

  @Override
  protected void addClause(List<BooleanClause> clauses, int conj, int mods, Query q) {
    written.computeIfAbsent(clauses, key -> new ArrayList<>()).add(new Written(conj, mods, q));
    super.addClause(clauses, conj, mods, q);
  }

  /**
   * One level's clauses with the precedence of boolean logic when the default operator is AND: the
   * level splits at each {@code OR} into groups, each group's clauses are all required (those with
   * {@code NOT} or {@code -} excluded), and the groups are alternatives. The classic parser instead
   * makes every clause beside an {@code OR} optional and the rest required, so {@code machine
   * learning OR deep learning} would require "machine" and "learning" and ignore the other side. A
   * group of exclusions alone ({@code a OR NOT b}, or {@code -draft}) excludes from every document.
   * Without an {@code OR}, or with OR as the default, the classic query stands.
   */
  @Override
  protected Query getBooleanQuery(List<BooleanClause> clauses) throws ParseException {
    List<Written> level = written.remove(clauses);
    if (level == null
        || getDefaultOperator() != Operator.AND
        || level.stream().skip(1).noneMatch(w -> w.conj == CONJ_OR)) {
      return allExcluded(clauses) ? group(clauses) : super.getBooleanQuery(clauses);
    }
    List<List<BooleanClause>> groups = new ArrayList<>();
    List<BooleanClause> group = new ArrayList<>();
    for (Written clause : level) {
      if (clause.conj == CONJ_OR && !group.isEmpty()) {
        groups.add(group);
        group = new ArrayList<>();
      }
      if (clause.query != null) {
        BooleanClause.Occur occur =
            clause.mods == MOD_NOT ? BooleanClause.Occur.MUST_NOT : BooleanClause.Occur.MUST;
        group.add(newBooleanClause(clause.query, occur));
      }
    }
    if (!group.isEmpty()) {
      groups.add(group);
    }
    List<Query> alternatives = new ArrayList<>();
    for (List<BooleanClause> alternative : groups) {
      Query one = group(alternative);
      if (one != null) {
        alternatives.add(one);
      }
    }
    if (alternatives.size() <= 1) {
      return alternatives.isEmpty() ? null : alternatives.get(0);
    }
    BooleanQuery.Builder any = new BooleanQuery.Builder();
    alternatives.forEach(one -> any.add(one, BooleanClause.Occur.SHOULD));
    return any.build();
  }

  /**
   * The clauses of one group, all required. Exclusions alone exclude from every document, on the
   * content; a parser for a field also searched gives no such group (null): its "every document
   * without b in the title" would let in the documents that have b in their text.
   */
  private Query group(List<BooleanClause> clauses) throws ParseException {
    if (clauses.size() == 1 && clauses.get(0).occur() == BooleanClause.Occur.MUST) {
      return clauses.get(0).query();
    }
    if (allExcluded(clauses)) {
      if (!getField().equals(contentField) && !unfielded(getField())) {
        return null;
      }
      List<BooleanClause> all = new ArrayList<>(clauses);
      all.add(0, newBooleanClause(MatchAllDocsQuery.INSTANCE, BooleanClause.Occur.MUST));
      return super.getBooleanQuery(all);
    }
    return super.getBooleanQuery(clauses);
  }

  private static boolean allExcluded(List<BooleanClause> clauses) {
    return !clauses.isEmpty()
        && clauses.stream().allMatch(c -> c.occur() == BooleanClause.Occur.MUST_NOT);
  }

  /** The content queries built for each term, phrase or pattern, in query order. */
  public List<Query> getUnits() {
    return Collections.unmodifiableList(units);
  }

  /** Every field a query may name. */
  public Set<String> getQueryableFields() {
    return schema.queryable;
  }

  private void checkField(String field) throws ParseException {
    if (!unfielded(field) && !getQueryableFields().contains(field)) {
      throw new UnknownFieldException(field, getQueryableFields());
    }
  }

  private boolean isNumeric(String field) {
    return schema.isNumeric(field);
  }

  private interface Build {
    Query on(String field) throws ParseException;
  }

  /**
   * The content query, OR its translit twin when German normalization changes the text, OR (for
   * words and phrases, {@code forms}) the same text on each lemma field, weighted lower. In
   * highlight mode the twins stay too: the highlighter matches the translit terms against content's
   * postings, and the lemma fields' matches through their own offsets (masked fields).
   */
  private Query withTwins(String text, boolean forms, Build build) throws ParseException {
    Query content = build.on(contentField);
    if (content == null) {
      return null;
    }
    List<Query> twins = new ArrayList<>();
    if (translitDiffers(text)) {
      Query translit = build.on(schema.translit);
      if (translit != null) {
        twins.add(translit);
      }
    }
    if (forms && wordForms) {
      for (String field : schema.lemmaFields.keySet()) {
        Query lemma = build.on(field);
        if (lemma != null) {
          twins.add(highlight ? lemma : new BoostQuery(lemma, schema.lemmaWeight));
        }
      }
    }
    Query unit = content;
    if (!twins.isEmpty()) {
      BooleanQuery.Builder any =
          new BooleanQuery.Builder().add(content, BooleanClause.Occur.SHOULD);
      twins.forEach(twin -> any.add(twin, BooleanClause.Occur.SHOULD));
      unit = any.build();
    }
    units.add(unit);
    return unit;
  }

  /**
   * An exact phrase of two words or more as a {@link NamePhraseQuery} (its words may also be the
   * parts of one name); any other query as it is.
   */
  @Override
  protected Query newFieldQuery(Analyzer analyzer, String field, String queryText, boolean quoted)
      throws ParseException {
    Query query = super.newFieldQuery(analyzer, field, queryText, quoted);
    return query instanceof PhraseQuery phrase && NamePhraseQuery.applies(phrase)
        ? new NamePhraseQuery(phrase)
        : query;
  }

  /**
   * Whether the translit twin can match more than content does: when German normalization changes
   * the query ("Mueller" → "muller"), or when the query has an umlaut, whose documents may spell it
   * as a digraph ("Käse" must find "Kaese").
   */
  private boolean translitDiffers(String text) {
    if (UMLAUT.matcher(Normalizer.normalize(text, Normalizer.Form.NFC)).find()) {
      return true;
    }
    return !analyze(contentField, text).equals(analyze(schema.translit, text));
  }

  private static final Pattern UMLAUT = Pattern.compile("[äöüÄÖÜ]");

  private List<String> analyze(String field, String text) {
    List<String> out = new ArrayList<>();
    try (TokenStream ts = getAnalyzer().tokenStream(field, text)) {
      CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
      ts.reset();
      while (ts.incrementToken()) {
        out.add(term.toString());
      }
      ts.end();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private String normalize(String field, String text) {
    BytesRef normalized = getAnalyzer().normalize(field, text);
    return normalized.utf8ToString();
  }

  @Override
  protected Query getFieldQuery(String field, String queryText, boolean quoted)
      throws ParseException {
    checkField(field);
    if (unfielded(field)) {
      return inEveryField(
          getFieldQuery(contentField, queryText, quoted),
          f -> super.getFieldQuery(f, queryText, quoted));
    }
    if (isNumeric(field)) {
      return LongRanges.range(
          field, schema.dates.contains(field), queryText, queryText, true, true);
    }
    if (field.equals(contentField)) {
      return withTwins(queryText, true, f -> newFieldQuery(getAnalyzer(), f, queryText, quoted));
    }
    return super.getFieldQuery(field, queryText, quoted);
  }

  @Override
  protected Query getFieldQuery(String field, String queryText, int slop) throws ParseException {
    checkField(field);
    if (unfielded(field)) {
      return inEveryField(
          getFieldQuery(contentField, queryText, slop),
          f -> NamePhraseQuery.withSlop(super.getFieldQuery(f, queryText, slop), slop));
    }
    if (field.equals(contentField)) {
      return withTwins(
          queryText,
          true,
          f -> NamePhraseQuery.withSlop(newFieldQuery(getAnalyzer(), f, queryText, true), slop));
    }
    return NamePhraseQuery.withSlop(super.getFieldQuery(field, queryText, slop), slop);
  }

  @Override
  protected Query getRangeQuery(
      String field, String part1, String part2, boolean startInclusive, boolean endInclusive)
      throws ParseException {
    checkField(field);
    if (unfielded(field)) {
      return getRangeQuery(contentField, part1, part2, startInclusive, endInclusive);
    }
    if (isNumeric(field)) {
      return LongRanges.range(
          field, schema.dates.contains(field), part1, part2, startInclusive, endInclusive);
    }
    return super.getRangeQuery(field, part1, part2, startInclusive, endInclusive);
  }

  @Override
  protected Query getWildcardQuery(String field, String termStr) throws ParseException {
    if ("*".equals(field) && "*".equals(termStr)) { // *:* (every document), inside a query too
      return newMatchAllDocsQuery();
    }
    checkField(field);
    if (unfielded(field)) {
      if (termStr.equals("*")) {
        return newMatchAllDocsQuery();
      }
      return inEveryField(
          getWildcardQuery(contentField, termStr), f -> super.getWildcardQuery(f, termStr));
    }
    if (!field.equals(contentField)) {
      return super.getWildcardQuery(field, termStr);
    }
    if (termStr.equals("*")) {
      return newMatchAllDocsQuery();
    }
    String rest = termStr.replaceFirst("^[*?]+", "");
    boolean leadingOnly =
        !rest.equals(termStr) && !rest.isEmpty() && rest.indexOf('*') < 0 && rest.indexOf('?') < 0;
    if (leadingOnly && !highlight) {
      String lead = termStr.substring(0, termStr.length() - rest.length());
      String reversed =
          new StringBuilder(normalize(contentField, rest)).reverse().toString()
              + new StringBuilder(lead).reverse();
      Query q = newWildcardQuery(new Term(schema.reversed, reversed));
      units.add(q);
      return q;
    }
    return withTwins(rest, false, f -> super.getWildcardQuery(f, termStr));
  }

  private boolean ranked(String pattern) {
    return !highlight
        && pattern.replace("*", "").replace("?", "").length() >= RankedPatterns.LETTERS;
  }

  /**
   * A prefix of four letters or more ({@code sign*}) matches every term it expands to and ranks by
   * the statistics of its best terms ({@link RankedPatterns#ALL_TERMS_RANKED}); a shorter one keeps
   * Lucene's constant score, which ranks CACM's title queries far worse (bench/relevance.py;
   * docs/query.md).
   */
  @Override
  protected Query newPrefixQuery(Term prefix) {
    return ranked(prefix.text())
        ? new PrefixQuery(prefix, RankedPatterns.ALL_TERMS_RANKED)
        : super.newPrefixQuery(prefix);
  }

  /** A wildcard with four letters or more ({@code *vertrag*}) ranks as a prefix does. */
  @Override
  protected Query newWildcardQuery(Term pattern) {
    return ranked(pattern.text())
        ? new WildcardQuery(pattern, getDeterminizeWorkLimit(), RankedPatterns.ALL_TERMS_RANKED)
        : super.newWildcardQuery(pattern);
  }

  /**
   * A fuzzy word ({@code Mayer~1}) matches every term within its edits, ranked by the most similar
   * ({@link RankedPatterns#ALL_TERMS_RANKED}); Lucene's default keeps only its 50 best terms.
   */
  @Override
  protected Query newFuzzyQuery(Term term, float minimumSimilarity, int prefixLength) {
    String text = term.text();
    int edits = FuzzyQuery.floatToEdits(minimumSimilarity, text.codePointCount(0, text.length()));
    return new FuzzyQuery(
        term,
        edits,
        prefixLength,
        FuzzyQuery.defaultMaxExpansions,
        FuzzyQuery.defaultTranspositions,
        highlight
            ? FuzzyQuery.defaultRewriteMethod(FuzzyQuery.defaultMaxExpansions)
            : RankedPatterns.ALL_TERMS_RANKED);
  }

  @Override
  protected Query getPrefixQuery(String field, String termStr) throws ParseException {
    checkField(field);
    if (unfielded(field)) {
      return inEveryField(
          getPrefixQuery(contentField, termStr), f -> super.getPrefixQuery(f, termStr));
    }
    if (!field.equals(contentField)) {
      return super.getPrefixQuery(field, termStr);
    }
    return withTwins(termStr, false, f -> super.getPrefixQuery(f, termStr));
  }

  @Override
  protected Query getFuzzyQuery(String field, String termStr, float minSimilarity)
      throws ParseException {
    checkField(field);
    if (unfielded(field)) {
      return inEveryField(
          getFuzzyQuery(contentField, termStr, minSimilarity),
          f -> super.getFuzzyQuery(f, termStr, minSimilarity));
    }
    if (!field.equals(contentField)) {
      return super.getFuzzyQuery(field, termStr, minSimilarity);
    }
    Query q = super.getFuzzyQuery(field, termStr, minSimilarity);
    units.add(q);
    return q;
  }

  @Override
  protected Query getRegexpQuery(String field, String termStr) throws ParseException {
    checkField(field);
    RegexRepeats.check(termStr);
    if (unfielded(field)) {
      return inEveryField(
          getRegexpQuery(contentField, termStr), f -> super.getRegexpQuery(f, termStr));
    }
    Query q = super.getRegexpQuery(field, termStr);
    if (field.equals(contentField)) {
      units.add(q);
    }
    return q;
  }
}
