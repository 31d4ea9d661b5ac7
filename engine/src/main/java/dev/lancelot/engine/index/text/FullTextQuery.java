package dev.lancelot.engine.index.text;

import dev.lancelot.engine.InvalidInputException;
import java.io.Serializable;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A match query over one string column with an inverted index (decision D66, SPEC T1–T4): the query
 * text is tokenized as the index was, and rows holding any ({@link Operator#OR}) or every ({@link
 * Operator#AND}) token are scored by BM25 as Lance scores them; the best {@code k} are returned
 * with {@code _score}. Serializable, so a distributed search's plan carries it (D71).
 */
public final class FullTextQuery implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Whether a row must hold any or every query token. */
  public enum Operator {
    OR,
    AND
  }

  public static final int DEFAULT_K = 10;

  private final String column;
  private final String text;
  private final Operator operator;
  private final int k;
  private final String filter;
  private final boolean prefilter;
  private final boolean fastSearch;
  private final List<String> columns;
  private final boolean withRowId;
  private final TextQuery query;

  private FullTextQuery(Builder b) {
    this.column = b.column;
    this.text = b.text;
    this.operator = b.operator;
    this.k = b.k;
    this.filter = b.filter;
    this.prefilter = b.prefilter;
    this.fastSearch = b.fastSearch;
    this.columns = b.columns;
    this.withRowId = b.withRowId;
    this.query = b.tree != null ? b.tree : new TextQuery.Match(b.column, b.text, b.operator, 1.0f);
  }

  /** A match query for {@code text} over {@code column}. */
  public static Builder match(String column, String text) {
    return new Builder(column, text);
  }

  /** A search for the rows of a query tree (match, multi-match, boolean, boost; decision D80). */
  public static Builder of(TextQuery query) {
    Objects.requireNonNull(query, "query");
    Builder b;
    if (query instanceof TextQuery.Match m) {
      b = new Builder(m.column(), m.text());
      b.operator = m.operator();
    } else {
      b = new Builder(query.searchedColumns().get(0), "");
    }
    b.tree = query;
    return b;
  }

  /** The query tree; a plain {@link TextQuery.Match} for {@link #match}. */
  public TextQuery query() {
    return query;
  }

  /** Whether the query is a single match of one column (as {@link #match} makes). */
  public boolean isSimpleMatch() {
    return query instanceof TextQuery.Match m && m.boost() == 1.0f;
  }

  /** The (first) column searched. */
  public String column() {
    return column;
  }

  /** The match text ({@code ""} for a query tree made by {@link #of}). */
  public String text() {
    return text;
  }

  public Operator operator() {
    return operator;
  }

  public int k() {
    return k;
  }

  public Optional<String> filter() {
    return Optional.ofNullable(filter);
  }

  /** Whether the filter is applied before the top {@code k} are chosen (else after). */
  public boolean prefilter() {
    return prefilter;
  }

  /** Whether fragments the index does not cover are left out (not scanned). */
  public boolean fastSearch() {
    return fastSearch;
  }

  /** The result columns; empty for every column of the dataset. */
  public Optional<List<String>> columns() {
    return Optional.ofNullable(columns);
  }

  public boolean withRowId() {
    return withRowId;
  }

  @Override
  public String toString() {
    return (isSimpleMatch()
            ? "match(" + column + ", \"" + text + "\", " + operator
            : "query(" + query)
        + ", k="
        + k
        + (filter == null ? "" : ", filter=" + filter + (prefilter ? " (prefilter)" : ""))
        + (fastSearch ? ", fast_search" : "")
        + ")";
  }

  /** Builds a {@link FullTextQuery}; bad values are refused when set. */
  public static final class Builder {
    private final String column;
    private final String text;
    private Operator operator = Operator.OR;
    private int k = DEFAULT_K;
    private String filter;
    private boolean prefilter;
    private boolean fastSearch;
    private List<String> columns;
    private boolean withRowId;
    private TextQuery tree;

    private Builder(String column, String text) {
      if (column == null || column.isBlank()) {
        throw new InvalidInputException("A full-text query needs a column.");
      }
      if (text == null) {
        throw new InvalidInputException("A full-text query needs query text.");
      }
      this.column = column;
      this.text = text;
    }

    public Builder operator(Operator operator) {
      if (tree != null) {
        throw new InvalidInputException(
            "A query tree's operators are set on its matches (TextQuery.Match,"
                + " TextQuery.MultiMatch), not on the search.");
      }
      this.operator = Objects.requireNonNull(operator, "operator");
      return this;
    }

    public Builder k(int k) {
      if (k <= 0) {
        throw new InvalidInputException("A full-text query's k must be positive, not " + k + ".");
      }
      this.k = k;
      return this;
    }

    public Builder filter(String sql) {
      this.filter = sql;
      return this;
    }

    public Builder prefilter(boolean on) {
      this.prefilter = on;
      return this;
    }

    public Builder fastSearch(boolean on) {
      this.fastSearch = on;
      return this;
    }

    public Builder columns(List<String> names) {
      this.columns = names == null ? null : List.copyOf(names);
      return this;
    }

    public Builder withRowId(boolean on) {
      this.withRowId = on;
      return this;
    }

    public FullTextQuery build() {
      return new FullTextQuery(this);
    }
  }
}
