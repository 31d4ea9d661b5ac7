/**
 * lancelot's parser extension (D76): the statements it reads itself when Spark's parser refuses
 * them, each a call of a procedure of a lance catalog. The classes here are the same on every Spark
 * line; each line's {@code dev.lancelot.spark.shim} classes put them in front of that line's parser
 * and turn a {@link dev.lancelot.spark.parser.ProcedureCall} into that line's plan.
 */
package dev.lancelot.spark.parser;
