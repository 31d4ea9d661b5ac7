/**
 * Recall evaluation as Spark jobs (SPEC E1, E2): {@link
 * dev.lancelot.spark.recall.DistributedRecall} runs a {@link dev.lancelot.spark.recall.RecallSpec}
 * — every grid setting in every scenario as one distributed search timed per query, against a
 * stored and reused exact ground truth — and returns {@link dev.lancelot.spark.recall.RecallResult}
 * rows, written as results.json, results.lance and an HTML report with plots. The rules are the
 * engine's {@code RecallEvaluator}'s. See docs/recall.md.
 */
package dev.lancelot.spark.recall;
