/**
 * What differs between Scala 2.13 and 2.12 in the signatures the connector overrides (D53): the
 * classes here are Scala 2.12's, compiled in place of the Scala 2.13 classes of the same names
 * (connector/src/main/java/dev/lancelot/spark/scalashim). On Scala 2.12, Scala's {@code IndexedSeq}
 * is {@code scala.collection.IndexedSeq}. Compiled by the Scala 2.12 lines alone (3.5_2.12); the
 * 3.5_2.13 line compiles the connector's.
 */
package dev.lancelot.spark.scalashim;
