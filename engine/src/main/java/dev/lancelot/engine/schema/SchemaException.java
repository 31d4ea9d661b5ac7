package dev.lancelot.engine.schema;

import dev.lancelot.engine.LancelotException;

/** A schema that cannot be represented, parsed or projected as asked. */
public class SchemaException extends LancelotException {
  public SchemaException(String message) {
    super(message);
  }

  public SchemaException(String message, Throwable cause) {
    super(message, cause);
  }
}
