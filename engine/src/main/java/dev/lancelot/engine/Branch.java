package dev.lancelot.engine;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * A branch of a dataset, as Lance 7 records it in {@code _refs/branches/}: its own line of versions
 * under {@code <dataset>/tree/<name>/}, created from a version of another branch. Open it with
 * {@link OpenOptions#withBranch}.
 *
 * @param name the branch's name ({@code /} separates segments)
 * @param parentBranch the branch it was created from; empty for the main branch
 * @param parentVersion the version of the parent it was created from
 * @param createdAt when it was created (whole seconds)
 * @param metadata the branch's free-form metadata
 */
public record Branch(
    String name,
    Optional<String> parentBranch,
    long parentVersion,
    Instant createdAt,
    Map<String, String> metadata) {}
