package dev.lancelot.engine;

/**
 * What one kind of a {@link Session}'s cache did since the session was created, and what it holds
 * now.
 *
 * @param hits lookups answered from memory (including lookups that waited for another thread's load
 *     of the same entry)
 * @param misses lookups that loaded the entry (from storage, or by parsing what was read)
 * @param evictions entries dropped to keep the session within its byte budget
 * @param entries entries held now
 * @param bytes estimated heap bytes the entries hold now
 */
public record CacheStats(long hits, long misses, long evictions, long entries, long bytes) {}
