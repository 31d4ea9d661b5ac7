package dev.lancelot.spark.search;

import dev.lancelot.engine.Dataset;
import dev.lancelot.engine.OpenOptions;
import dev.lancelot.engine.arrow.ArrowGather;
import dev.lancelot.engine.expr.BoundPredicate;
import dev.lancelot.engine.expr.RowSelection;
import dev.lancelot.engine.query.VectorSearch;
import dev.lancelot.engine.query.exec.Candidates;
import dev.lancelot.engine.query.exec.UnitResult;
import dev.lancelot.engine.query.plan.AnnUnit;
import dev.lancelot.engine.query.plan.SearchPlan;
import dev.lancelot.engine.query.plan.SearchUnit;
import dev.lancelot.spark.SerializableConfiguration;
import dev.lancelot.spark.read.LanceColumnVector;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one search unit where the data is (SPEC S4: prefilter masks are built inside the
 * partitions that need them) and emits its candidates as one columnar batch: merge fields plus
 * the result columns, taken for the candidates only.
 */
final class VectorSearchReaderFactory implements PartitionReaderFactory {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(VectorSearchReaderFactory.class);
  private final SerializableConfiguration conf;

  VectorSearchReaderFactory(SerializableConfiguration conf) {
    this.conf = conf;
  }

  @Override
  public boolean supportColumnarReads(InputPartition partition) {
    return true;
  }

  @Override
  public PartitionReader<InternalRow> createReader(InputPartition partition) {
    throw new IllegalStateException("Vector search partitions are read as columnar batches");
  }

  @Override
  public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
    VectorSearchPartition p = (VectorSearchPartition) partition;
    return new Reader(p, conf);
  }

  private static final class Reader implements PartitionReader<ColumnarBatch> {
    private final BufferAllocator allocator = new RootAllocator();
    private final VectorSearchPartition partition;
    private final SerializableConfiguration conf;
    private final List<FieldVector> owned = new ArrayList<>();
    private ColumnarBatch batch;
    private boolean done;

    Reader(VectorSearchPartition partition, SerializableConfiguration conf) {
      this.partition = partition;
      this.conf = conf;
    }

    @Override
    public boolean next() {
      if (done) {
        return false;
      }
      done = true;
      SearchPlan plan = partition.plan();
      SearchUnit unit = plan.units().get(partition.unitIndex());
      try (Dataset ds = Dataset.open(plan.location(), OpenOptions.defaults().withVersion(plan.version())
          .withHadoopConf(conf.get()).withAllocator(allocator))) {
        UnitResult result = VectorSearch.runUnit(ds, plan, unit);
        LOG.info("Vector search unit {} on {}@v{}: {}", unit.id(), plan.location(), plan.version(),
            result.stats().describe());
        batch = toBatch(ds, plan, unit, result);
      }
      return true;
    }

    private ColumnarBatch toBatch(Dataset ds, SearchPlan plan, SearchUnit unit, UnitResult result) {
      int kind = unit instanceof AnnUnit ? 0 : 1;
      int total = 0;
      Set<Long> unique = new LinkedHashSet<>();
      for (Candidates c : result.perQuery()) {
        total += c.size();
        for (long a : c.rowAddresses()) {
          unique.add(a);
        }
      }
      long[] sorted = unique.stream().mapToLong(Long::longValue).sorted().toArray();
      List<String> columns = new ArrayList<>(plan.merge().columns());
      BoundPredicate post = plan.merge().postfilterSql() == null ? null : ds.bindFilter(plan.merge().postfilterSql());
      List<String> takeColumns = new ArrayList<>(columns);
      if (post != null) {
        for (String c : post.referencedColumns()) {
          if (!takeColumns.contains(c)) {
            takeColumns.add(c);
          }
        }
      }
      IntVector qi = new IntVector(CandidateSchema.QUERY_INDEX, allocator);
      IntVector kinds = new IntVector(CandidateSchema.KIND, allocator);
      BigIntVector rows = new BigIntVector(CandidateSchema.ROWADDR, allocator);
      Float4Vector approx = new Float4Vector(CandidateSchema.APPROX, allocator);
      Float4Vector exact = new Float4Vector(CandidateSchema.EXACT, allocator);
      BitVector passes = new BitVector(CandidateSchema.PASSES, allocator);
      for (FieldVector v : List.<FieldVector>of(qi, kinds, rows, approx, exact, passes)) {
        v.setInitialCapacity(total);
        v.allocateNew();
        owned.add(v);
      }
      int[] positions = new int[total];
      try (VectorSchemaRoot taken = ds.take(sorted, takeColumns)) {
        RowSelection pass = post == null ? null : post.evaluate(taken);
        int at = 0;
        for (int q = 0; q < result.perQuery().size(); q++) {
          Candidates c = result.perQuery().get(q);
          for (int i = 0; i < c.size(); i++) {
            int pos = Arrays.binarySearch(sorted, c.rowAddresses()[i]);
            positions[at] = pos;
            qi.set(at, q);
            kinds.set(at, kind);
            rows.set(at, c.rowAddresses()[i]);
            approx.set(at, c.approx()[i]);
            exact.set(at, c.exact()[i]);
            passes.set(at, pass == null || pass.isSelected(pos) ? 1 : 0);
            at++;
          }
        }
        for (FieldVector v : owned) {
          v.setValueCount(total);
        }
        for (int c = 0; c < columns.size(); c++) {
          owned.add(ArrowGather.gather(taken.getVector(c), positions, total, allocator));
        }
      }
      ColumnVector[] vectors = new ColumnVector[owned.size()];
      for (int i = 0; i < vectors.length; i++) {
        vectors[i] = new LanceColumnVector(owned.get(i));
      }
      return new ColumnarBatch(vectors, total);
    }

    @Override
    public ColumnarBatch get() {
      return batch;
    }

    @Override
    public void close() {
      owned.forEach(FieldVector::close);
      allocator.close();
    }
  }
}
