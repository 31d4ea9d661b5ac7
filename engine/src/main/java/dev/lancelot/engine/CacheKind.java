package dev.lancelot.engine;

/** What a {@link Session} caches; its statistics are kept per kind ({@link Session#stats}). */
public enum CacheKind {
  /**
   * The storage of a dataset location under given Hadoop file-system settings (behind {@link
   * Dataset#openCached}): file systems, paths and the allocator its versions share.
   */
  DATASET_CONTEXTS,

  /** Opened versions of datasets (behind {@link Dataset#openCached}): manifests and schemas. */
  DATASET_VERSIONS,

  /** Parsed metadata of data files (footer, schema, column and page metadata) of open datasets. */
  FILE_METADATA,

  /** Vector index segments: IVF model, quantizer, and the partitions queries have loaded. */
  VECTOR_INDEX,

  /** Scalar (BTree) index segments: the page lookup and recently decoded pages. */
  SCALAR_INDEX
}
