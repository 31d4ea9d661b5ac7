/**
 * What differs between Spark lines and cannot be written once for all of them (D50, D53): the
 * classes here are the Spark 4 lines' (4.0, 4.1, 4.2); the Spark 3.5 line leaves this package out
 * and compiles its own classes of the same names (spark-lines/3.5_2.12/src/main/java).
 *
 * <p>Every class here stays small: it holds the line-dependent call or declaration alone, and the
 * connector's code calls it instead of the line's API.
 */
package dev.lancelot.spark.shim;
