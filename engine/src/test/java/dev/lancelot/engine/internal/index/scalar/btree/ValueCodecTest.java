package dev.lancelot.engine.internal.index.scalar.btree;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.internal.expr.eval.ColumnKind;
import dev.lancelot.engine.internal.expr.eval.Keys;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.function.LongSupplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keys written into a page by {@link ValueCodec.VectorBuilder#setKeys} read back as the same keys
 * for every keyed type (every value width, with and without a key transform), and the slots around
 * them stay NULL.
 */
class ValueCodecTest {
  private static BufferAllocator allocator;

  @BeforeAll
  static void open() {
    allocator = new RootAllocator();
  }

  @AfterAll
  static void close() {
    allocator.close();
  }

  @Test
  void setKeysRoundTripsEveryKeyedType() {
    Random r = new Random(42);
    Map<ArrowType, LongSupplier> types = new LinkedHashMap<>();
    types.put(new ArrowType.Int(8, true), () -> (byte) r.nextInt());
    types.put(new ArrowType.Int(8, false), () -> r.nextInt(256));
    types.put(new ArrowType.Int(16, true), () -> (short) r.nextInt());
    types.put(new ArrowType.Int(16, false), () -> r.nextInt(65_536));
    types.put(new ArrowType.Int(32, true), r::nextInt);
    types.put(new ArrowType.Int(32, false), () -> r.nextInt() & 0xFFFFFFFFL);
    types.put(new ArrowType.Int(64, true), r::nextLong);
    types.put(new ArrowType.Int(64, false), () -> Keys.ofUnsigned64(r.nextLong()));
    types.put(
        new ArrowType.FloatingPoint(FloatingPointPrecision.HALF),
        () -> Keys.ofHalf((short) r.nextInt()));
    types.put(
        new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE),
        () -> Keys.ofFloat(r.nextInt(10) == 0 ? Float.NaN : (float) r.nextGaussian()));
    types.put(
        new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE),
        () -> Keys.ofDouble(r.nextInt(10) == 0 ? -0.0 : r.nextGaussian() * 1e6));
    types.put(new ArrowType.Date(DateUnit.DAY), () -> r.nextInt(40_000) - 20_000);
    types.put(new ArrowType.Date(DateUnit.MILLISECOND), r::nextLong);
    types.put(new ArrowType.Timestamp(TimeUnit.MICROSECOND, null), r::nextLong);
    types.put(ArrowType.Bool.INSTANCE, () -> r.nextInt(2));
    for (Map.Entry<ArrowType, LongSupplier> e : types.entrySet()) {
      ColumnKind kind = ColumnKind.of(e.getKey());
      assertThat(ValueCodec.usesKeys(kind)).as("%s", e.getKey()).isTrue();
      long[] keys = new long[40];
      for (int i = 0; i < keys.length; i++) {
        keys[i] = e.getValue().getAsLong();
      }
      int slots = 50;
      try (ValueCodec.VectorBuilder b =
          new ValueCodec.VectorBuilder(Field.nullable("v", e.getKey()), kind, slots, allocator)) {
        b.setKeys(3, keys, 5, 30); // slots 3..32 get keys 5..34
        FieldVector v = b.finish(slots);
        long[] back = ValueCodec.keys(v, kind, slots);
        for (int s = 0; s < slots; s++) {
          if (s >= 3 && s < 33) {
            assertThat(v.isNull(s)).as("%s slot %d", e.getKey(), s).isFalse();
            assertThat(back[s]).as("%s slot %d", e.getKey(), s).isEqualTo(keys[s + 2]);
          } else {
            assertThat(v.isNull(s)).as("%s slot %d", e.getKey(), s).isTrue();
          }
        }
      }
    }
  }
}
