package dev.lancelot.engine;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * A tag of a dataset: a name for one version of one branch, stored as Lance 7 stores it ({@code
 * _refs/tags/<name>.json} at the dataset root), so Lance and lancelot see the same tags.
 *
 * @param name the tag's name
 * @param branch the branch the version belongs to; empty for the main branch
 * @param version the version the tag names
 * @param createdAt when the tag was created (absent in tags older Lance releases wrote)
 * @param updatedAt when the tag was last moved (absent in tags older Lance releases wrote)
 * @param metadata the tag's free-form metadata (Lance's {@code replace_metadata})
 */
public record Tag(
    String name,
    Optional<String> branch,
    long version,
    Optional<Instant> createdAt,
    Optional<Instant> updatedAt,
    Map<String, String> metadata) {}
