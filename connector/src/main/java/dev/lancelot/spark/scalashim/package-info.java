/**
 * What differs between Scala 2.13 and 2.12 in the signatures the connector overrides (D53): the
 * classes here are Scala 2.13's; a Scala 2.12 line leaves this package out and compiles its own
 * classes of the same names. Scala's {@code Seq} and {@code IndexedSeq} are {@code
 * scala.collection.immutable} types on 2.13 and {@code scala.collection} types on 2.12, and a Java
 * method overriding a Scala one must name the parameter types exactly.
 */
package dev.lancelot.spark.scalashim;
