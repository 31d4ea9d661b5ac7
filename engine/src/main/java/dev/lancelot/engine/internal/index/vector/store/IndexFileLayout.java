package dev.lancelot.engine.internal.index.vector.store;

import dev.lancelot.engine.index.IndexType;

/**
 * Names and keys of Lance 7's vector index layout (index format V3), as lance-core 7.0.0 writes it.
 * Every fact below was checked by dumping files lance-core 7.0.0 wrote (see {@code
 * LanceLayoutFactsTest}); readers refuse files that do not follow it.
 *
 * <p>A segment lives in {@code _indices/<uuid>/} and has two Lance 2.1 files:
 *
 * <p><b>{@code index.idx}</b> (the sub-index):
 *
 * <ul>
 *   <li>schema metadata {@code lance:index} = {@code {"type":"IVF_PQ","distance_type":"l2"}} (type
 *       one of IVF_FLAT, IVF_PQ, IVF_SQ, IVF_HNSW_FLAT, IVF_HNSW_SQ, IVF_HNSW_PQ; distance one of
 *       l2, cosine, dot, hamming);
 *   <li>{@code lance:ivf} = decimal index of the global buffer holding the {@code IVF} proto ("1";
 *       buffer 0 is the file descriptor). That proto has {@code centroids_tensor} ({@code [P, dim]}
 *       float32), {@code loss}, and {@code offsets}/{@code lengths} slicing this file's rows by
 *       partition (all 0 for the FLAT sub-index, whose file has no rows);
 *   <li>FLAT sub-index (IVF_FLAT/PQ/SQ): one column {@code [uint64 not null] __flat_marker}, zero
 *       rows, and {@code lance:flat} = a JSON array of P empty strings;
 *   <li>HNSW sub-index: columns {@code [uint32] __vector_id}, {@code [list<uint32>] __neighbors},
 *       {@code [list<float32>] _distance}, one row per (level, node), partition after partition;
 *       {@code lance:hnsw} = a JSON array with one JSON-encoded string per partition, {@code
 *       {"entry_point":0,"params":{"max_level":L,"m":M,"ef_construction":E,
 *       "prefetch_distance":2},"level_offsets":[...]}} ("" for an empty partition).
 * </ul>
 *
 * <p><b>{@code auxiliary.idx}</b> (the storage):
 *
 * <ul>
 *   <li>columns {@code [uint64] _rowid} (row addresses) and the codes: {@code
 *       [fixed_size_list<float32, dim> not null] flat}, {@code [fixed_size_list<uint8, m>]
 *       __pq_code} or {@code [fixed_size_list<uint8, dim>] __sq_code}; rows grouped by partition in
 *       partition order;
 *   <li>{@code lance:ivf} = "1": an {@code IVF} proto without centroids whose {@code
 *       offsets}/{@code lengths} slice this file's rows by partition (no {@code loss});
 *   <li>{@code distance_type} = the index metric ({@code l2}, {@code cosine}, {@code dot});
 *   <li>{@code storage_metadata} = a JSON array with one JSON-encoded string: flat {@code
 *       {"dim":16}}; SQ {@code {"dim":16,"num_bits":8,"bounds":{"start":s,"end":e}}}; PQ {@code
 *       {"codebook_position":2,"nbits":8,"num_sub_vectors":m,"dimension":d,
 *       "codebook_tensor":[],"transposed":true}} with the codebook as a {@code Tensor} ({@code
 *       [256, dim]} float32) in global buffer {@code codebook_position};
 *   <li>PQ codes of a partition are transposed: the partition's {@code __pq_code} values read back
 *       to back are {@code codes[s * rows + row]}.
 *   <li>IVF_RQ: {@code auxiliary.idx} has {@code _rowid}, {@code _rabit_codes} ({@code
 *       fixed_size_list<uint8, ceil(code_dim/8)>}, one bit per rotated coordinate, packed per
 *       partition as {@code RqCodes} describes), {@code __add_factors} and {@code __scale_factors}
 *       (float32); {@code storage_metadata} {@code {"rotate_mat_position":null,
 *       "fast_rotation_signs":[…],"rotation_type":"fast","code_dim":D,"num_bits":b,"packed":true}}
 *       ({@code D = dim × b}, {@code 4 × ceil(D/8)} sign bytes); {@code index.idx} is flat's (a
 *       {@code __flat_marker} column and an empty {@code lance:flat} entry per partition); the
 *       manifest records {@code index_version} 2 and {@code index_details} {@code rq {num_bits}}.
 * </ul>
 *
 * <p>Lance reads the file version from the footer of {@code index.idx}; 2.x selects this layout.
 */
public final class IndexFileLayout {
  public static final String INDEX_FILE = "index.idx";
  public static final String AUXILIARY_FILE = "auxiliary.idx";

  public static final String INDEX_METADATA_KEY = "lance:index";
  public static final String IVF_METADATA_KEY = "lance:ivf";
  public static final String FLAT_METADATA_KEY = "lance:flat";
  public static final String HNSW_METADATA_KEY = "lance:hnsw";
  public static final String DISTANCE_TYPE_KEY = "distance_type";
  public static final String STORAGE_METADATA_KEY = "storage_metadata";

  public static final String ROW_ID_COLUMN = "_rowid";
  public static final String FLAT_COLUMN = "flat";
  public static final String PQ_CODE_COLUMN = "__pq_code";
  public static final String SQ_CODE_COLUMN = "__sq_code";
  public static final String RQ_CODE_COLUMN = "_rabit_codes";
  public static final String RQ_ADD_FACTORS_COLUMN = "__add_factors";
  public static final String RQ_SCALE_FACTORS_COLUMN = "__scale_factors";
  public static final String FLAT_MARKER_COLUMN = "__flat_marker";
  public static final String VECTOR_ID_COLUMN = "__vector_id";
  public static final String NEIGHBORS_COLUMN = "__neighbors";
  public static final String DISTANCE_COLUMN = "_distance";

  /** Manifest {@code index_version} of vector indexes, as Lance 7 records it. */
  public static final int VECTOR_INDEX_VERSION = 1;

  /** Manifest {@code index_version} of IVF_RQ indexes, as lance-core 7.0.0 records it. */
  public static final int RQ_INDEX_VERSION = 2;

  /**
   * The manifest {@code index_version} lance-core 7.0.0 records for a vector index of {@code type}.
   */
  public static int indexVersion(IndexType type) {
    return type == IndexType.IVF_RQ ? RQ_INDEX_VERSION : VECTOR_INDEX_VERSION;
  }

  private IndexFileLayout() {}
}
