/**
 * Spark applications shipped in the runtime jar, run with {@code spark-submit --class
 * dev.lancelot.spark.jobs.<Job> lancelot-spark-runtime.jar …}: {@link
 * dev.lancelot.spark.jobs.RecallJob}.
 */
package dev.lancelot.spark.jobs;
