/**
 * The engine's public API for distributed work: the seam a Spark, Flink or Ray integration uses to
 * split an operation into tasks, run each task where its data is, and finish on one node.
 *
 * <p>Every operation has the same three steps — plan on a coordinator, run tasks anywhere, finish
 * on the coordinator — and every piece that crosses a process boundary is an opaque, immutable
 * value with {@code toBytes()} and {@code fromBytes(byte[])} (it is also {@link
 * java.io.Serializable}), so it travels through any serializer:
 *
 * <table>
 *   <caption>Distributed operations</caption>
 *   <tr><th>Operation</th><th>Plan</th><th>Task</th><th>Task result</th><th>Finish</th></tr>
 *   <tr><td>Vector search</td><td>{@link VectorSearchPlan#plan}</td><td>{@link SearchTask}</td>
 *       <td>{@link TaskResult} / {@link QueryCandidates}</td>
 *       <td>{@link VectorSearchPlan#finish}, {@link VectorSearchPlan#mergeQueries}</td></tr>
 *   <tr><td>Full-text search</td><td>{@link FullTextSearchPlan#plan}</td>
 *       <td>{@link FullTextSearchTask}</td><td>{@link FullTextTaskResult}</td>
 *       <td>{@link FullTextSearchPlan#finish}</td></tr>
 *   <tr><td>Scan</td><td>{@link ScanPlan#plan} ({@link dev.lancelot.engine.ScanSettings},
 *       {@link DatasetStatistics})</td><td>{@link dev.lancelot.engine.ScanTask}, run by {@link
 *       ScanPlan#execute}</td><td>Arrow batches</td><td>—</td></tr>
 *   <tr><td>Write</td><td>{@link DistributedWrite#newFragmentWriter}</td>
 *       <td>{@link FragmentWriter}</td><td>{@link dev.lancelot.engine.FragmentMetadata}</td>
 *       <td>{@link DistributedWrite#commit}</td></tr>
 *   <tr><td>Vector index build</td><td>{@link IndexBuild}</td><td>{@link IndexBuildTask}</td>
 *       <td>{@link WrittenSegment}</td><td>the engine commits what the executor returns</td></tr>
 *   <tr><td>BTree index build</td><td>{@link ScalarIndexBuild}</td>
 *       <td>{@link ScalarIndexBuildTask}</td><td>{@link WrittenSegment}</td>
 *       <td>the engine commits what the executor returns</td></tr>
 *   <tr><td>Compaction</td><td>{@link CompactionPlan#plan}</td><td>{@link CompactionTask}</td>
 *       <td>{@link RewrittenGroup}</td><td>{@link CompactionPlan#commit}</td></tr>
 * </table>
 *
 * <p>Tasks open the dataset version they were planned on with {@link
 * dev.lancelot.engine.Dataset#openCached}, so the tasks of one JVM share one opened version and its
 * caches. See docs/architecture.md §8 for a walk through each operation.
 */
package dev.lancelot.engine.distributed;
