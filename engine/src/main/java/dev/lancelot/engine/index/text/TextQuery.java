package dev.lancelot.engine.index.text;

import dev.lancelot.engine.InvalidInputException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The query tree of a full-text search (decision D80, SPEC T8–T10): a match of one column, a match
 * of several columns ({@link MultiMatch}), a {@link Bool} of clauses that must, should or must not
 * match, and a {@link Boost} that lowers the scores of rows a negative query also matches. Each
 * node scores rows as Lance 7 scores them; {@link FullTextQuery#of} runs a tree. Serializable, so a
 * distributed plan carries it.
 */
public sealed interface TextQuery extends Serializable {

  /** The columns the query searches, in first-use order. */
  List<String> searchedColumns();

  /** How a clause of a {@link Bool} takes part. */
  enum Occur {
    MUST,
    SHOULD,
    MUST_NOT
  }

  /**
   * Rows of {@code column} holding any or every token of {@code text}, scored by BM25 times {@code
   * boost}.
   */
  record Match(String column, String text, FullTextQuery.Operator operator, float boost)
      implements TextQuery {
    public Match {
      if (column == null || column.isBlank()) {
        throw new InvalidInputException("A full-text query needs a column.");
      }
      if (text == null) {
        throw new InvalidInputException("A full-text query needs query text.");
      }
      Objects.requireNonNull(operator, "operator");
      checkBoost(boost, "A match query's boost");
    }

    @Override
    public List<String> searchedColumns() {
      return List.of(column);
    }
  }

  /**
   * One text matched in several columns, each with its boost: a row's score is the best of its
   * boosted match scores, and only the best {@code k} rows of the search take part (as in Lance).
   */
  record MultiMatch(
      String text, List<String> columns, List<Float> boosts, FullTextQuery.Operator operator)
      implements TextQuery {
    public MultiMatch {
      if (text == null) {
        throw new InvalidInputException("A full-text query needs query text.");
      }
      if (columns == null || columns.isEmpty()) {
        throw new InvalidInputException("A multi-match query needs at least one column.");
      }
      columns = List.copyOf(columns);
      if (boosts == null) {
        boosts = columns.stream().map(c -> 1.0f).toList();
      }
      boosts = List.copyOf(boosts);
      if (boosts.size() != columns.size()) {
        throw new InvalidInputException(
            "A multi-match query needs one boost per column: "
                + columns.size()
                + " columns, "
                + boosts.size()
                + " boosts.");
      }
      boosts.forEach(b -> checkBoost(b, "A multi-match query's boost"));
      Objects.requireNonNull(operator, "operator");
    }

    @Override
    public List<String> searchedColumns() {
      return columns.stream().distinct().toList();
    }
  }

  /** One clause of a {@link Bool}. */
  record Clause(Occur occur, TextQuery query) implements Serializable {
    public Clause {
      Objects.requireNonNull(occur, "occur");
      Objects.requireNonNull(query, "query");
    }
  }

  /**
   * Rows every MUST clause matches (scored by the first), or, without MUST clauses, rows any SHOULD
   * clause matches; SHOULD clauses add their scores; rows a MUST_NOT clause matches are left out.
   */
  record Bool(List<Clause> clauses) implements TextQuery {
    public Bool {
      clauses = List.copyOf(clauses);
      if (clauses.stream().noneMatch(c -> c.occur() != Occur.MUST_NOT)) {
        throw new InvalidInputException(
            "A boolean full-text query needs at least one MUST or SHOULD clause.");
      }
    }

    @Override
    public List<String> searchedColumns() {
      List<String> out = new ArrayList<>();
      for (Clause c : clauses) {
        c.query().searchedColumns().stream().filter(x -> !out.contains(x)).forEach(out::add);
      }
      return List.copyOf(out);
    }
  }

  /**
   * Rows {@code positive} matches; the score of one {@code negative} also matches is lowered as
   * Lance lowers it ({@code negativeBoost}).
   */
  record Boost(TextQuery positive, TextQuery negative, float negativeBoost) implements TextQuery {
    public static final float DEFAULT_NEGATIVE_BOOST = 0.5f;

    public Boost {
      Objects.requireNonNull(positive, "positive");
      Objects.requireNonNull(negative, "negative");
      checkBoost(negativeBoost, "A boost query's negative_boost");
    }

    @Override
    public List<String> searchedColumns() {
      List<String> out = new ArrayList<>(positive.searchedColumns());
      negative.searchedColumns().stream().filter(x -> !out.contains(x)).forEach(out::add);
      return List.copyOf(out);
    }
  }

  /**
   * The query tree of Lance's JSON form of a full-text query, e.g. {@code {"boolean": {"must":
   * [{"match": {"column": "text", "terms": "license"}}], "must_not": [...]}}} (see {@link
   * dev.lancelot.engine.internal.index.text.TextQueryJson} for the forms read).
   */
  static TextQuery fromJson(String json) {
    return dev.lancelot.engine.internal.index.text.TextQueryJson.parse(json);
  }

  /** A match of {@code text} in {@code column} (OR, boost 1). */
  static Match match(String column, String text) {
    return new Match(column, text, FullTextQuery.Operator.OR, 1.0f);
  }

  private static void checkBoost(float boost, String what) {
    if (!Float.isFinite(boost)) {
      throw new InvalidInputException(what + " must be a finite number, not " + boost + ".");
    }
  }
}
