package dev.lancelot.spark.parser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.spark.parser.ProcedureCall.Argument;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The tokens and the {@code CALL} statement of lancelot's parser extension, without Spark. */
class LanceStatementsTest {
  private static ProcedureCall call(String sql) {
    SqlTokens tokens = SqlTokens.of(sql);
    assertThat(LanceStatements.isCall(tokens)).isTrue();
    return LanceStatements.parseCall(tokens);
  }

  @Test
  void readsPositionalThenNamedArgumentsAsTheirSqlText() {
    ProcedureCall c =
        call(
            "CALL lance.system.create_tag('db.items', 'v1', version => 2 + 1,"
                + " branch => concat('a', ',', ')'))");
    assertThat(c.nameParts()).containsExactly("lance", "system", "create_tag");
    assertThat(c.arguments())
        .containsExactly(
            new Argument(null, "'db.items'"),
            new Argument(null, "'v1'"),
            new Argument("version", "2 + 1"),
            new Argument("branch", "concat('a', ',', ')')"));
  }

  @Test
  void skipsCommentsAndSemicolonsAndUnquotesNames() {
    ProcedureCall c =
        call("/* a /* nested */ comment */ -- and a line\n call `my cat`.system.`compact` ( ) ;;");
    assertThat(c.nameParts()).containsExactly("my cat", "system", "compact");
    assertThat(c.arguments()).isEmpty();
    assertThat(call("CALL system.list_tags(table => array(1, 2)[0])").arguments())
        .containsExactly(new Argument("table", "array(1, 2)[0]"));
    assertThat(call("call x.y(t => 'it''s', u => \"a\\\"b\")").arguments())
        .extracting(Argument::sql)
        .containsExactly("'it''s'", "\"a\\\"b\"");
  }

  @Test
  void onlyAStatementStartingWithCallIsACall() {
    assertThat(LanceStatements.isCall(SqlTokens.of("CALLS lance.system.compact()"))).isFalse();
    assertThat(LanceStatements.isCall(SqlTokens.of("SELECT 1"))).isFalse();
    assertThat(LanceStatements.isCall(SqlTokens.of("`CALL` x"))).isFalse();
  }

  @Test
  void malformedCallsAreRefusedWithTheirPositionAndWhatWasExpected() {
    for (List<String> c :
        List.of(
            List.of("CALL lance.system.compact", "line 1, column 26: expected '(' after the"),
            List.of("CALL (table => 'x')", "line 1, column 6: expected the procedure's name"),
            List.of("CALL a.b(table => )", "line 1, column 19: expected the value of argument"),
            List.of("CALL a.b('x',)", "line 1, column 14: expected an argument, found ')'"),
            List.of(
                "CALL a.b(t => 'x', 'y')",
                "line 1, column 20: expected a named argument (name => value): positional"),
            List.of("CALL a.b('x'", "expected ')' at the end of the arguments, found the end"),
            List.of("CALL a.b('x') extra", "line 1, column 15: expected the end of the statement"),
            List.of("CALL a.b(f(1)\n", "line 2, column 1: expected ')' at the end"),
            List.of("CALL a.b('x)", "line 1, column 10: unterminated string literal"),
            List.of("CALL a.`b", "line 1, column 8: unterminated back-quoted identifier"),
            List.of("CALL a.b() /* x", "line 1, column 12: unterminated comment"))) {
      assertThatThrownBy(() -> call(c.get(0)))
          .as(c.get(0))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageStartingWith("Syntax error at ")
          .hasMessageContaining(c.get(1))
          .hasMessageEndingWith("Statement: " + c.get(0));
    }
  }

  @Test
  void tokensKeepTheirOffsets() {
    SqlTokens t = SqlTokens.of("a.`b``c` => 1.5e3 'x'");
    assertThat(t.get(0)).isEqualTo(new SqlTokens.Token(SqlTokens.Kind.WORD, "a", 0, 1));
    assertThat(t.get(2))
        .isEqualTo(new SqlTokens.Token(SqlTokens.Kind.QUOTED_IDENTIFIER, "b`c", 2, 8));
    assertThat(t.get(3).isSymbol("=>")).isTrue();
    assertThat(t.get(4)).isEqualTo(new SqlTokens.Token(SqlTokens.Kind.NUMBER, "1.5e3", 12, 17));
    assertThat(t.get(5)).isEqualTo(new SqlTokens.Token(SqlTokens.Kind.STRING, "x", 18, 21));
    assertThat(t.get(6).kind()).isEqualTo(SqlTokens.Kind.END);
    assertThat(t.text(0, 2)).isEqualTo("a.`b``c`");
  }
}
