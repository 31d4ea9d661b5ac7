package dev.lancelot.spark.scalashim;

import dev.lancelot.spark.ScalaCollections;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.AttributeSet;
import org.apache.spark.sql.catalyst.plans.logical.Command;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Statistics;
import org.apache.spark.sql.catalyst.trees.TreePattern;
import org.apache.spark.sql.execution.command.RunnableCommand;
import scala.Enumeration;

/**
 * A command without children that Spark runs when its statement is executed (Spark plans a {@link
 * RunnableCommand} itself, and runs a {@link Command} eagerly), for the Spark 3.5 line's {@code
 * CALL} (D76). Scala 2.13's version: the trait's field setter takes Scala 2.13's {@code Seq}.
 */
public abstract class CommandPlan extends LeafLogicalPlan implements RunnableCommand {
  private static final long serialVersionUID = 1L;

  @Override
  public final scala.collection.immutable.List<LogicalPlan> children() {
    return ScalaCollections.empty();
  }

  @Override
  public scala.collection.immutable.List<Enumeration.Value> nodePatterns() {
    return ScalaCollections.list(List.of(TreePattern.COMMAND()));
  }

  @Override
  public AttributeSet producedAttributes() {
    return RunnableCommand.super.producedAttributes();
  }

  @Override
  public Statistics stats() {
    return RunnableCommand.super.stats();
  }

  @Override
  public final void org$apache$spark$sql$catalyst$plans$logical$Command$_setter_$nodePatterns_$eq(
      scala.collection.immutable.Seq<Enumeration.Value> patterns) {
    // the trait's field is nodePatterns() above
  }
}
