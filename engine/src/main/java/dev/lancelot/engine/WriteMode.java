package dev.lancelot.engine;

/** How a write treats an existing dataset. */
public enum WriteMode {
  /** Create a new dataset; fail if one exists at the location. */
  CREATE,
  /** Add rows to an existing dataset (or create it when absent); the schema must match. */
  APPEND,
  /** Replace all rows and the schema as a new version (or create the dataset when absent). */
  OVERWRITE
}
