package dev.lancelot.spark.write;

import dev.lancelot.engine.FragmentMetadata;
import java.util.List;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/** What one write task produced: uncommitted fragments. */
public record LanceCommitMessage(List<FragmentMetadata> fragments) implements WriterCommitMessage {
  public LanceCommitMessage {
    fragments = List.copyOf(fragments);
  }
}
