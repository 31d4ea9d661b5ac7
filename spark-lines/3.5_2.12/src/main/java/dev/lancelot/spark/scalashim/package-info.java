/**
 * What differs between Scala 2.13 and 2.12 in the signatures the connector overrides (D53): the
 * classes here are Scala 2.12's, compiled in place of the Scala 2.13 classes of the same names
 * (connector/src/main/java/dev/lancelot/spark/scalashim). On Scala 2.12, Scala's {@code IndexedSeq}
 * is {@code scala.collection.IndexedSeq}.
 */
package dev.lancelot.spark.scalashim;
