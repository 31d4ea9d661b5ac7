package dev.lancelot.spark.procedures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.LancelotException;
import dev.lancelot.spark.LanceCatalog;
import java.util.Arrays;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/**
 * Binding a {@code CALL}'s arguments (names and types, before anything runs) and finding procedures
 * by name, without a Spark session: the catalog is only asked for its name.
 */
class LanceProcedureBindTest {
  private static final LanceCatalog CATALOG =
      new LanceCatalog() {
        @Override
        public String name() {
          return "lance";
        }
      };
  private static final String USAGE =
      "Usage: CALL lance.system.compact(table => <string> [, "
          + "target_rows_per_fragment => <bigint>, materialize_deletions => <boolean>, "
          + "target_base => <string>])";

  private static final Metadata BY_NAME =
      new MetadataBuilder().putBoolean(ProcedureParameter.BY_NAME_METADATA_KEY, true).build();

  private static LanceProcedure compact() {
    return Procedures.load(CATALOG, Identifier.of(new String[] {"system"}, "COMPACT"));
  }

  private static StructType named(Object... namesAndTypes) {
    StructType t = new StructType();
    for (int i = 0; i < namesAndTypes.length; i += 2) {
      t = t.add((String) namesAndTypes[i], (DataType) namesAndTypes[i + 1], true, BY_NAME);
    }
    return t;
  }

  @Test
  void theNamedArgumentMarkerIsSparksOwn() {
    // Spark 4's input type reaches bind unchanged; the 3.5 line's CALL marks named arguments alike
    assertThat(LanceProcedure.BY_NAME_METADATA_KEY)
        .isEqualTo(ProcedureParameter.BY_NAME_METADATA_KEY);
  }

  @Test
  void usageListsRequiredThenOptionalParameters() {
    LanceProcedure p = compact();
    assertThat(p.name()).isEqualTo("compact");
    assertThat(p.qualifiedName()).isEqualTo("lance.system.compact");
    assertThat("Usage: " + p.usage()).isEqualTo(USAGE);
    assertThat(p.description()).endsWith(USAGE);
  }

  @Test
  void namedPositionalAndNullArgumentsOfCastableTypesBind() {
    LanceProcedure p = compact();
    assertThat(
            p.bind(
                named(
                    "table",
                    DataTypes.StringType,
                    "TARGET_ROWS_PER_FRAGMENT",
                    DataTypes.IntegerType)))
        .isSameAs(p);
    assertThat(
            p.bind(
                new StructType()
                    .add("col1", DataTypes.StringType)
                    .add("col2", DataTypes.LongType)
                    .add("col3", DataTypes.BooleanType)))
        .isSameAs(p);
    assertThat(
            p.bind(
                named("table", DataTypes.StringType, "materialize_deletions", DataTypes.NullType)))
        .isSameAs(p);
  }

  @Test
  void anUnknownParameterIsRefusedNamingTheClosestOne() {
    assertThatThrownBy(
            () ->
                compact()
                    .bind(
                        named(
                            "table",
                            DataTypes.StringType,
                            "target_rows_per_fragmnt",
                            DataTypes.LongType)))
        .isInstanceOf(LancelotException.class)
        .hasMessage(
            "Cannot run lance.system.compact: unknown parameter \"target_rows_per_fragmnt\". Did you mean "
                + "\"target_rows_per_fragment\"? "
                + USAGE);
    assertThatThrownBy(
            () ->
                compact()
                    .bind(
                        named(
                            "table",
                            DataTypes.StringType,
                            "MATERIALISE_DELETIONS",
                            DataTypes.BooleanType)))
        .hasMessageContaining(
            "unknown parameter \"MATERIALISE_DELETIONS\". Did you mean \"materialize_deletions\"?");
    assertThatThrownBy(() -> compact().bind(named("tabel", DataTypes.StringType)))
        .hasMessageStartingWith(
            "Cannot run lance.system.compact: unknown parameter \"tabel\". Did you mean "
                + "\"table\"? Usage: ");
  }

  @Test
  void missingTooManyAndMistypedArgumentsAreRefusedWithTheUsage() {
    assertThatThrownBy(() -> compact().bind(named("materialize_deletions", DataTypes.BooleanType)))
        .isInstanceOf(LancelotException.class)
        .hasMessage("Cannot run lance.system.compact: parameter table is required. " + USAGE);
    StructType five =
        new StructType()
            .add("a", DataTypes.StringType)
            .add("b", DataTypes.LongType)
            .add("c", DataTypes.BooleanType)
            .add("d", DataTypes.StringType)
            .add("e", DataTypes.BooleanType);
    assertThatThrownBy(() -> compact().bind(five))
        .hasMessage(
            "Cannot run lance.system.compact: too many arguments (5; it takes at most 4). "
                + USAGE);
    assertThatThrownBy(
            () ->
                compact()
                    .bind(
                        named(
                            "table",
                            DataTypes.StringType,
                            "target_rows_per_fragment",
                            DataTypes.StringType)))
        .hasMessage(
            "Cannot run lance.system.compact: parameter target_rows_per_fragment takes a BIGINT, got a "
                + "STRING. "
                + USAGE);
    assertThatThrownBy(
            () ->
                compact()
                    .bind(
                        named(
                            "table",
                            DataTypes.StringType,
                            "target_rows_per_fragment",
                            DataTypes.DoubleType)))
        .hasMessageContaining("takes a BIGINT, got a DOUBLE");
    assertThatThrownBy(() -> compact().bind(named("table", DataTypes.IntegerType)))
        .hasMessageContaining("parameter table takes a STRING, got a INT");
  }

  @Test
  void proceduresAreFoundInTheSystemNamespaceOnly() {
    assertThat(Arrays.stream(Procedures.list(new String[] {"system"})).map(Identifier::name))
        .containsExactly(
            "add_columns",
            "cleanup",
            "compact",
            "create_branch",
            "create_index",
            "create_scalar_index",
            "create_tag",
            "delete_branch",
            "delete_tag",
            "drop_index",
            "list_branches",
            "list_indexes",
            "list_tags",
            "optimize_index",
            "recall",
            "restore",
            "update_tag");
    assertThat(Procedures.list(new String[] {"db"})).isEmpty();
    assertThatThrownBy(
            () -> Procedures.load(CATALOG, Identifier.of(new String[] {"db"}, "compact")))
        .isInstanceOf(LancelotException.class)
        .hasMessage(
            "Cannot find procedure lance.db.compact: the procedures of catalog lance are lance.system.{add_columns, cleanup, compact, create_branch, create_index, create_scalar_index, create_tag, delete_branch, delete_tag, drop_index, list_branches, list_indexes, list_tags, optimize_index, recall, restore, update_tag}.");
    assertThatThrownBy(
            () -> Procedures.load(CATALOG, Identifier.of(new String[] {"system"}, "vacuum")))
        .hasMessageStartingWith("Cannot find procedure lance.system.vacuum:");
  }
}
