package dev.lancelot.engine;

import java.time.Instant;

/** Summary of one committed version. */
public record VersionInfo(
    long version, Instant timestamp, long rows, int fragments, String operation) {}
