package dev.lancelot.spark.procedures;

import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.spark.LanceCatalog;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.spark.sql.connector.catalog.Identifier;

/**
 * The procedures of {@link LanceCatalog}, all in namespace {@value #NAMESPACE}. Adding one is a new
 * {@link LanceProcedure} subclass and one line in {@link #REGISTRY}.
 */
public final class Procedures {
  /** The namespace of every procedure: {@code CALL lance.system.<name>(...)}. */
  public static final String NAMESPACE = "system";

  private static final Map<String, Function<LanceCatalog, LanceProcedure>> REGISTRY =
      new TreeMap<>(
          Map.ofEntries(
              Map.entry(AddColumnsProcedure.NAME, AddColumnsProcedure::new),
              Map.entry(BranchProcedures.Create.NAME, BranchProcedures.Create::new),
              Map.entry(BranchProcedures.Delete.NAME, BranchProcedures.Delete::new),
              Map.entry(BranchProcedures.ListBranches.NAME, BranchProcedures.ListBranches::new),
              Map.entry(CleanupProcedure.NAME, CleanupProcedure::new),
              Map.entry(CompactProcedure.NAME, CompactProcedure::new),
              Map.entry(CreateIndexProcedure.NAME, CreateIndexProcedure::new),
              Map.entry(CreateScalarIndexProcedure.NAME, CreateScalarIndexProcedure::new),
              Map.entry(IndexProcedures.DropIndex.NAME, IndexProcedures.DropIndex::new),
              Map.entry(IndexProcedures.ListIndexes.NAME, IndexProcedures.ListIndexes::new),
              Map.entry(OptimizeIndexProcedure.NAME, OptimizeIndexProcedure::new),
              Map.entry(RecallProcedure.NAME, RecallProcedure::new),
              Map.entry(RestoreProcedure.NAME, RestoreProcedure::new),
              Map.entry(TagProcedures.Create.NAME, TagProcedures.Create::new),
              Map.entry(TagProcedures.Update.NAME, TagProcedures.Update::new),
              Map.entry(TagProcedures.Delete.NAME, TagProcedures.Delete::new),
              Map.entry(TagProcedures.ListTags.NAME, TagProcedures.ListTags::new)));

  private Procedures() {}

  /**
   * Procedure {@code ident} of {@code catalog}, or a clear refusal listing the procedures there
   * are.
   */
  public static LanceProcedure load(LanceCatalog catalog, Identifier ident) {
    Function<LanceCatalog, LanceProcedure> factory =
        isSystem(ident.namespace()) ? REGISTRY.get(ident.name().toLowerCase(Locale.ROOT)) : null;
    if (factory == null) {
      throw new InvalidInputException(
          "Cannot find procedure "
              + catalog.name()
              + "."
              + String.join(".", ident.namespace())
              + (ident.namespace().length == 0 ? "" : ".")
              + ident.name()
              + ": the procedures of catalog "
              + catalog.name()
              + " are "
              + catalog.name()
              + "."
              + NAMESPACE
              + ".{"
              + String.join(", ", REGISTRY.keySet())
              + "}.");
    }
    return factory.apply(catalog);
  }

  /** The procedures in {@code namespace}: all of them in {@value #NAMESPACE}, none elsewhere. */
  public static Identifier[] list(String[] namespace) {
    if (!isSystem(namespace)) {
      return new Identifier[0];
    }
    return REGISTRY.keySet().stream()
        .map(name -> Identifier.of(new String[] {NAMESPACE}, name))
        .toArray(Identifier[]::new);
  }

  private static boolean isSystem(String[] namespace) {
    return Arrays.equals(namespace, new String[] {NAMESPACE});
  }
}
