package dev.lancelot.engine.expr;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.*;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.*;
import org.apache.arrow.vector.types.pojo.*;
import org.junit.jupiter.api.Test;
import org.lance.Dataset;
import org.lance.ipc.ScanOptions;

class LanceProbeTest {
  @Test
  void probe() throws Exception {
    try (BufferAllocator a = new RootAllocator()) {
      List<Field> fields = List.of(
          Field.nullable("id", new ArrowType.Int(64, true)),
          Field.nullable("score", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
          Field.nullable("name", ArrowType.Utf8.INSTANCE),
          Field.nullable("i8", new ArrowType.Int(8, true)),
          Field.nullable("f32", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
          Field.nullable("d", new ArrowType.Date(DateUnit.DAY)),
          Field.nullable("ts", new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)),
          Field.nullable("tstz", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "America/New_York")),
          Field.nullable("bin", ArrowType.Binary.INSTANCE),
          Field.nullable("u64", new ArrowType.Int(64, false)),
          Field.nullable("flag", ArrowType.Bool.INSTANCE),
          Field.nullable("ts_s", new ArrowType.Timestamp(TimeUnit.SECOND, null)),
          Field.nullable("ts_ns", new ArrowType.Timestamp(TimeUnit.NANOSECOND, null)),
          Field.nullable("ts_ms", new ArrowType.Timestamp(TimeUnit.MILLISECOND, null)));
      long[] tsS = {-2, -1, 0, 1, 2, 3, 4, 5, 6, 7};
      long[] tsNs = {-1001, -1000, -999, -1, 0, 1, 999, 1000, 1001, 1500};
      long[] tsMs = {-1501, -1500, -1499, -1, 0, 1, 999, 1000, 1001, 1500};
      Schema schema = new Schema(fields);
      double[] scores = {Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1.5, -2, 1e300, Double.longBitsToDouble(0xfff8000000000000L), 0};
      String[] names = {"apple", "Apple", "a_b", "a%b", "ab", "", "é", "zz\\", null, "a\\b"};
      int n = scores.length;
      byte[] bytes;
      try (VectorSchemaRoot root = VectorSchemaRoot.create(schema, a)) {
        root.allocateNew();
        for (int i = 0; i < n; i++) {
          ((BigIntVector) root.getVector("id")).setSafe(i, i);
          if (i == 9) ((Float8Vector) root.getVector("score")).setNull(i);
          else ((Float8Vector) root.getVector("score")).setSafe(i, scores[i]);
          if (names[i] == null) ((VarCharVector) root.getVector("name")).setNull(i);
          else ((VarCharVector) root.getVector("name")).setSafe(i, names[i].getBytes(StandardCharsets.UTF_8));
          ((TinyIntVector) root.getVector("i8")).setSafe(i, (byte) (i * 30 - 128));
          ((Float4Vector) root.getVector("f32")).setSafe(i, i * 0.1f);
          ((DateDayVector) root.getVector("d")).setSafe(i, 19700 + i);
          ((TimeStampMicroVector) root.getVector("ts")).setSafe(i, 1_700_000_000_000_000L + i * 3_600_000_000L);
          ((TimeStampMicroTZVector) root.getVector("tstz")).setSafe(i, 1_700_000_000_000_000L + i * 3_600_000_000L);
          ((VarBinaryVector) root.getVector("bin")).setSafe(i, new byte[] {(byte) i, (byte) 0xff});
          ((UInt8Vector) root.getVector("u64")).setSafe(i, i == 0 ? -1L : i);
          ((TimeStampSecVector) root.getVector("ts_s")).setSafe(i, tsS[i]);
          ((TimeStampNanoVector) root.getVector("ts_ns")).setSafe(i, tsNs[i]);
          ((TimeStampMilliVector) root.getVector("ts_ms")).setSafe(i, tsMs[i]);
          if (i % 3 == 2) ((BitVector) root.getVector("flag")).setNull(i);
          else ((BitVector) root.getVector("flag")).setSafe(i, i % 2);
        }
        root.setRowCount(n);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ArrowStreamWriter w = new ArrowStreamWriter(root, null, out)) {
          w.start(); w.writeBatch(); w.end();
        }
        bytes = out.toByteArray();
      }
      Path dir = Files.createTempDirectory("probe");
      String uri = dir.resolve("ds").toString();
      try (ArrowStreamReader reader = new ArrowStreamReader(new ByteArrayInputStream(bytes), a);
          Dataset ds = Dataset.write().allocator(a).reader(reader).uri(uri).execute()) {
        System.out.println("SCHEMA " + ds.getSchema());
      }
      String[] filters = Files.readString(Path.of(System.getProperty("probe.file"))).trim().split(";;");
      try (Dataset ds = Dataset.open(uri, a)) {
        for (String f : filters) {
          String res;
          try {
            List<Long> ids = new ArrayList<>();
            try (var scanner = ds.newScan(new ScanOptions.Builder().filter(f).columns(List.of("id")).build());
                ArrowReader r = scanner.scanBatches()) {
              while (r.loadNextBatch()) {
                BigIntVector v = (BigIntVector) r.getVectorSchemaRoot().getVector("id");
                for (int i = 0; i < v.getValueCount(); i++) ids.add(v.get(i));
              }
            }
            Collections.sort(ids);
            res = ids.toString();
          } catch (Throwable t) {
            res = "ERROR " + t.getClass().getSimpleName() + ": " + t.getMessage();
          }
          System.out.println("PROBE [" + f + "] => " + res);
        }
      }
    }
  }
}
