/**
 * Stored procedures of {@link dev.lancelot.spark.LanceCatalog}: commands that change a dataset
 * (index builds) and evaluations (recall) that return rows saying what they did, run with {@code
 * CALL lance.system.<name>(param => value, ...)}.
 *
 * <p>Why procedures: Spark runs a {@code CALL} only when the statement itself runs. It is never
 * part of a query or a view, and {@code EXPLAIN CALL} binds it (checking argument names and types)
 * without running it. Table functions, which lancelot used before, run while a query is analysed,
 * so {@code EXPLAIN} or a view over them would have built an index.
 *
 * <p>How to add a procedure:
 *
 * <ol>
 *   <li>one class extending {@link dev.lancelot.spark.procedures.LanceProcedure} that passes its
 *       name, a one-sentence summary, its parameters (required ones first, built with {@code
 *       required(name, type)} / {@code optional(name, type)}; integers are {@code BIGINT}) and its
 *       output type to the base constructor, and implements {@code run(spark, args)}, which reads
 *       the arguments by name from {@link dev.lancelot.spark.procedures.ProcedureArguments},
 *       resolves {@code table} with {@code tableLocation(args)} and throws {@link
 *       dev.lancelot.engine.LancelotException} for anything the user can fix (the base class adds
 *       the procedure's name and usage);
 *   <li>one line in {@link dev.lancelot.spark.procedures.Procedures}' registry, e.g. {@code
 *       RecallProcedure.NAME, RecallProcedure::new}.
 * </ol>
 *
 * The base class does the rest: argument checks at bind time, the usage string, the description
 * shown by {@code DESCRIBE PROCEDURE}, and turning the rows into the statement's result.
 */
package dev.lancelot.spark.procedures;
