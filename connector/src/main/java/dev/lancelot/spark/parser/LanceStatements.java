package dev.lancelot.spark.parser;

import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.spark.parser.ProcedureCall.Argument;
import dev.lancelot.spark.parser.SqlTokens.Kind;
import dev.lancelot.spark.parser.SqlTokens.Token;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The statements lancelot's parser extension reads itself (D76), each a call of one of the
 * procedures of a lance catalog. Only a statement Spark's own parser refused comes here, so a
 * statement Spark (or another extension) understands keeps its meaning; a statement that starts as
 * one of these but is malformed is refused with its position and what was expected, never run as
 * something else.
 *
 * <p>{@code CALL catalog.system.name(arg, ..., name => arg, ...)}: positional arguments first, then
 * named ones; each argument is a constant expression in Spark SQL, handed to Spark's expression
 * parser as written. Spark 4 parses {@code CALL} itself; the Spark 3.5 line, which has no stored
 * procedures, parses it here.
 *
 * <p>lance-spark's statements, on every line, each translated into one procedure call of the
 * table's lance catalog (docs/sql.md lists them): {@code ALTER TABLE t CREATE INDEX name USING
 * method (column) [WITH (option = value, ...)]} ({@code create_index} for the IVF methods, {@code
 * create_scalar_index} for the others, replacing an index of that name as lance-spark does), {@code
 * ALTER TABLE t DROP INDEX name}, {@code ALTER TABLE t OPTIMIZE INDEX name [WITH (...)]} ({@code
 * optimize_index}), {@code SHOW INDEXES FROM|IN t}, {@code OPTIMIZE t [WITH (...)]} ({@code
 * compact}), {@code VACUUM t [WITH (...)]} ({@code cleanup}), {@code ALTER TABLE t CREATE|DROP
 * TAG|BRANCH name [AS OF VERSION n | AS OF BRANCH b [VERSION n] | AS OF TAG t]} and {@code SHOW
 * TAGS|BRANCHES FROM|IN t}. A {@code WITH} option is a named argument of the procedure, its value
 * the SQL written.
 */
public final class LanceStatements {
  private final SqlTokens tokens;
  private int at;

  private LanceStatements(SqlTokens tokens) {
    this.tokens = tokens;
  }

  /** Whether {@code tokens} is a {@code CALL} statement (its first word is {@code CALL}). */
  public static boolean isCall(SqlTokens tokens) {
    return tokens.get(0).is("CALL");
  }

  /**
   * The procedure call of a {@code CALL} statement; a malformed one is refused with the position
   * and what was expected.
   */
  public static ProcedureCall parseCall(SqlTokens tokens) {
    LanceStatements p = new LanceStatements(tokens);
    p.keyword("CALL");
    List<String> name = p.multipartName("the procedure's name (catalog.system.name)");
    p.symbol("(", "after the procedure's name");
    List<Argument> args = new ArrayList<>();
    boolean sawNamed = false;
    if (!p.peek().isSymbol(")")) {
      do {
        Token first = p.peek();
        Argument a = p.argument();
        if (a.named()) {
          sawNamed = true;
        } else if (sawNamed) {
          throw p.error(first, "a named argument (name => value): positional arguments come first");
        }
        args.add(a);
      } while (p.accept(","));
    }
    p.symbol(")", "at the end of the arguments, or ',' between two");
    p.end();
    return new ProcedureCall(name, args);
  }

  /**
   * Whether {@code tokens} starts as one of lance-spark's statements: {@code ALTER TABLE t
   * CREATE|DROP INDEX|TAG|BRANCH}, {@code ALTER TABLE t OPTIMIZE INDEX}, {@code SHOW
   * INDEXES|TAGS|BRANCHES}, {@code OPTIMIZE} or {@code VACUUM}.
   */
  public static boolean isStatement(SqlTokens tokens) {
    Token first = tokens.get(0);
    if (first.is("OPTIMIZE") || first.is("VACUUM")) {
      return true;
    }
    if (first.is("SHOW")) {
      Token what = tokens.get(1);
      return SHOWN.stream().anyMatch(what::is);
    }
    if (!first.is("ALTER") || !tokens.get(1).is("TABLE")) {
      return false;
    }
    LanceStatements p = new LanceStatements(tokens);
    p.at = 2;
    try {
      p.multipartName("a table name");
    } catch (InvalidInputException notAName) {
      return false;
    }
    Token verb = p.next();
    Token object = p.next();
    return ((verb.is("CREATE") || verb.is("DROP"))
            && (object.is("INDEX") || object.is("TAG") || object.is("BRANCH")))
        || (verb.is("OPTIMIZE") && object.is("INDEX"));
  }

  private static final List<String> SHOWN =
      List.of("INDEXES", "INDEX", "TAGS", "TAG", "BRANCHES", "BRANCH");

  /**
   * The procedure call of one of lance-spark's statements ({@link #isStatement}); {@code tables}
   * resolves the statement's table name into its lance catalog and the procedures' argument naming
   * it. A malformed statement is refused with the position and what was expected.
   */
  public static ProcedureCall parseStatement(
      SqlTokens tokens, Function<List<String>, ResolvedTable> tables) {
    LanceStatements p = new LanceStatements(tokens);
    Token first = p.next();
    String procedure;
    List<Argument> args = new ArrayList<>();
    List<String> table;
    if (first.is("OPTIMIZE") || first.is("VACUUM")) {
      procedure = first.is("OPTIMIZE") ? "compact" : "cleanup";
      table = p.multipartName("a table name");
      if (p.peek().is("WITH")) {
        p.at++;
        args.addAll(p.options());
      }
    } else if (first.is("SHOW")) {
      Token what = p.next();
      procedure =
          what.is("INDEXES") || what.is("INDEX")
              ? "list_indexes"
              : what.is("TAGS") || what.is("TAG") ? "list_tags" : "list_branches";
      if (!p.peek().is("FROM") && !p.peek().is("IN")) {
        throw p.error(p.peek(), "FROM or IN");
      }
      p.at++;
      table = p.multipartName("a table name");
    } else {
      p.at = 2;
      table = p.multipartName("a table name");
      Token verb = p.next();
      boolean create = verb.is("CREATE");
      Token object = p.next();
      if (p.peek().is("IF")) {
        throw p.error(
            p.peek(),
            "the name of the "
                + object.text().toLowerCase(Locale.ROOT)
                + " (IF [NOT] EXISTS is not supported: lancelot's procedures fail when the "
                + object.text().toLowerCase(Locale.ROOT)
                + (create ? " exists" : " does not exist")
                + ")");
      }
      String name = p.name("the name of the " + object.text().toLowerCase(Locale.ROOT));
      if (verb.is("OPTIMIZE")) {
        procedure = "optimize_index";
        args.add(new Argument("name", literal(name)));
        if (p.peek().is("WITH")) {
          args.addAll(p.withOptions());
        }
      } else if (object.is("INDEX")) {
        if (create) {
          procedure = p.createIndex(name, args);
        } else {
          procedure = "drop_index";
          args.add(new Argument("name", literal(name)));
        }
      } else if (object.is("TAG")) {
        procedure = create ? "create_tag" : "delete_tag";
        args.add(new Argument("tag", literal(name)));
        if (create) {
          p.asOf(args, false);
        }
      } else {
        procedure = create ? "create_branch" : "delete_branch";
        args.add(new Argument("branch", literal(name)));
        if (create) {
          p.asOf(args, true);
        }
      }
    }
    p.end();
    ResolvedTable resolved = tables.apply(table);
    args.add(0, new Argument("table", literal(resolved.table())));
    return new ProcedureCall(List.of(resolved.catalog(), "system", procedure), args);
  }

  /**
   * A statement's table, resolved: the name of its lance catalog and the procedures' {@code table}
   * argument naming it in that catalog.
   */
  public record ResolvedTable(String catalog, String table) {}

  /**
   * {@code USING method (column) [WITH (...)]} of {@code CREATE INDEX}; adds the arguments and
   * returns the procedure.
   */
  private String createIndex(String name, List<Argument> args) {
    keyword("USING");
    String type = name("the index method (ivf_pq, btree, ...)").toUpperCase(Locale.ROOT);
    symbol("(", "before the indexed column");
    String column = String.join(".", multipartName("the indexed column"));
    if (peek().isSymbol(",")) {
      throw error(peek(), "')': a lancelot index covers one column");
    }
    symbol(")", "after the indexed column");
    List<Argument> options = peek().is("WITH") ? withOptions() : List.of();
    args.add(new Argument("column", literal(column)));
    args.add(new Argument("index_type", literal(type)));
    args.add(new Argument("name", literal(name)));
    if (options.stream().noneMatch(o -> o.name().equalsIgnoreCase("replace"))) {
      args.add(new Argument("replace", "true"));
    }
    args.addAll(options);
    return type.startsWith("IVF_") ? "create_index" : "create_scalar_index";
  }

  private List<Argument> withOptions() {
    keyword("WITH");
    return options();
  }

  /** {@code (name = value, ...)}: named arguments, each value the SQL written. */
  private List<Argument> options() {
    symbol("(", "after WITH");
    List<Argument> out = new ArrayList<>();
    do {
      String option = name("an option name");
      if (!peek().isSymbol("=") && !peek().isSymbol("=>")) {
        throw error(peek(), "'=' after option " + option);
      }
      at++;
      out.add(
          new Argument(option, value("the value of option " + option, "')' after the options")));
    } while (accept(","));
    symbol(")", "after the options, or ',' between two");
    return out;
  }

  /**
   * {@code [AS OF VERSION n | AS OF BRANCH b [VERSION n] | AS OF TAG t]} of {@code CREATE TAG} and
   * {@code CREATE BRANCH}; a tag's source cannot be a tag (create_tag takes a version).
   */
  private void asOf(List<Argument> args, boolean branch) {
    if (!peek().is("AS")) {
      return;
    }
    at++;
    keyword("OF");
    Token source = peek();
    if (source.is("VERSION")) {
      at++;
      args.add(new Argument("version", version()));
    } else if (source.is("BRANCH")) {
      at++;
      args.add(new Argument(branch ? "from_branch" : "branch", literal(name("a branch name"))));
      if (peek().is("VERSION")) {
        at++;
        args.add(new Argument("version", version()));
      }
    } else if (source.is("TAG") && branch) {
      at++;
      args.add(new Argument("tag", literal(name("a tag name"))));
    } else {
      throw error(
          source,
          branch
              ? "VERSION, BRANCH or TAG after AS OF"
              : "VERSION or BRANCH after AS OF (a tag is made from a version: AS OF VERSION n)");
    }
  }

  private String version() {
    Token t = peek();
    if (t.kind() != Kind.NUMBER || !t.text().matches("\\d+")) {
      throw error(t, "a version number");
    }
    at++;
    return t.text();
  }

  /** An identifier: a word or a back-quoted name. */
  private String name(String what) {
    Token t = peek();
    if (!t.isIdentifier()) {
      throw error(t, what);
    }
    at++;
    return t.text();
  }

  /** The SQL text of a value, up to a comma or closing parenthesis outside parentheses. */
  private String value(String what, String closing) {
    int from = at;
    int depth = 0;
    while (true) {
      Token t = peek();
      if (t.kind() == Kind.END) {
        throw error(t, at > from ? closing : what);
      }
      if (depth == 0 && (t.isSymbol(",") || t.isSymbol(")"))) {
        break;
      }
      if (t.isSymbol("(") || t.isSymbol("[")) {
        depth++;
      } else if (t.isSymbol(")") || t.isSymbol("]")) {
        depth--;
      }
      at++;
    }
    if (at == from) {
      throw error(peek(), what);
    }
    return tokens.text(from, at - 1);
  }

  /**
   * {@code value} as a SQL string literal. Spark reads backslash escapes in string literals (unless
   * spark.sql.parser.escapedStringLiterals is set, which {@link SqlText} checks).
   */
  static String literal(String value) {
    return SqlText.string(value);
  }

  /** One argument: {@code [name =>] expression}, up to a comma or the closing parenthesis. */
  private Argument argument() {
    String name = null;
    if (peek().isIdentifier() && tokens.get(at + 1).isSymbol("=>")) {
      name = next().text();
      at++;
    }
    if (peek().kind() == Kind.END) {
      throw error(peek(), "')' at the end of the arguments");
    }
    return new Argument(
        name,
        value(
            name == null ? "an argument" : "the value of argument " + name,
            "')' at the end of the arguments"));
  }

  private List<String> multipartName(String what) {
    List<String> parts = new ArrayList<>();
    do {
      Token t = peek();
      if (!t.isIdentifier()) {
        throw error(t, what);
      }
      parts.add(next().text());
    } while (accept("."));
    return parts;
  }

  private void keyword(String keyword) {
    Token t = peek();
    if (!t.is(keyword)) {
      throw error(t, keyword);
    }
    at++;
  }

  private void symbol(String symbol, String where) {
    Token t = peek();
    if (!t.isSymbol(symbol)) {
      throw error(t, "'" + symbol + "' " + where);
    }
    at++;
  }

  private boolean accept(String symbol) {
    if (peek().isSymbol(symbol)) {
      at++;
      return true;
    }
    return false;
  }

  /** The statement's end, after optional semicolons. */
  private void end() {
    while (accept(";")) {
      // Spark's statements may end with semicolons
    }
    Token t = peek();
    if (t.kind() != Kind.END) {
      throw error(t, "the end of the statement");
    }
  }

  private Token peek() {
    return tokens.get(at);
  }

  private Token next() {
    return tokens.get(at++);
  }

  private InvalidInputException error(Token found, String expected) {
    String near = found.kind() == Kind.END ? "the end of the statement" : "'" + found.text() + "'";
    return new InvalidInputException(
        "Syntax error at "
            + SqlTokens.position(tokens.sql(), found.start())
            + ": expected "
            + expected
            + ", found "
            + near
            + ". Statement: "
            + tokens.sql());
  }
}
