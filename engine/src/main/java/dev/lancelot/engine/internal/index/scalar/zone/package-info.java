/**
 * Readers of lance-core 7's zone indexes: zone maps ({@code zonemap.lance}: per zone the minimum,
 * maximum and NULL count of a column) and bloom filters ({@code bloomfilter.lance}: per zone a
 * split-block bloom filter of the column's values). A zone is a run of physical row offsets of one
 * fragment; a search returns every row of each zone that may hold a match, a superset of the
 * matching rows that the scan rechecks (decision D59). Also the reader of n-gram indexes ({@code
 * ngram_postings.lance}), which narrow {@code contains()} the same way, by rows rather than zones.
 */
package dev.lancelot.engine.internal.index.scalar.zone;
