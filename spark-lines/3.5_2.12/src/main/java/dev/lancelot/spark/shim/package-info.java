/**
 * What differs between Spark lines and cannot be written once for all of them (D50, D53): the
 * classes here are the Spark 3.5 line's, compiled in place of the Spark 4 lines' classes of the
 * same names (connector/src/main/java/dev/lancelot/spark/shim).
 */
package dev.lancelot.spark.shim;
