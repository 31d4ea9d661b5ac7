package dev.lancelot.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import org.apache.spark.sql.connector.catalog.StagedTable;
import org.junit.jupiter.api.Test;

class LanceStagedTableTest {
  /**
   * Every default method of {@code StagedTable} is declared by the staged table itself, so that a
   * Spark line where another interface of the table (Spark 4.2: {@code TruncatableTable}) gains a
   * default of the same method cannot make the call ambiguous ({@code AbstractMethodError} at the
   * end of a CTAS).
   */
  @Test
  void declaresEveryDefaultOfStagedTable() throws Exception {
    for (Method m : StagedTable.class.getDeclaredMethods()) {
      if (m.isDefault()) {
        Method own = LanceStagedTable.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
        assertThat(Modifier.isPublic(own.getModifiers())).isTrue();
      }
    }
    assertThat(Arrays.stream(StagedTable.class.getDeclaredMethods()).filter(Method::isDefault))
        .extracting(Method::getName)
        .contains("reportDriverMetrics");
  }
}
