package dev.lancelot.engine.expr.oracle;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** The oracle dataset of the brief: id, skewed tenant_id, name with nulls, score with NaN, flag. */
final class OracleData {
  static final int ROWS = 3000;
  static final String[] NAMES = {
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "eta",
    "theta",
    "a_b",
    "a%c",
    "it's",
    "é",
    "Zed",
    "",
    "back\\slash",
    "multi\nline",
    "ünïcode",
    "alphabet",
    "zz\\"
  };

  private OracleData() {}

  static VectorSchemaRoot build(BufferAllocator allocator, long seed) {
    Random random = new Random(seed);
    Schema schema =
        new Schema(
            List.of(
                Field.nullable("id", new ArrowType.Int(64, true)),
                Field.nullable("tenant_id", new ArrowType.Int(32, true)),
                Field.nullable("name", ArrowType.Utf8.INSTANCE),
                Field.nullable("score", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                Field.nullable("flag", ArrowType.Bool.INSTANCE)));
    VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
    root.allocateNew();
    BigIntVector id = (BigIntVector) root.getVector("id");
    IntVector tenant = (IntVector) root.getVector("tenant_id");
    VarCharVector name = (VarCharVector) root.getVector("name");
    Float8Vector score = (Float8Vector) root.getVector("score");
    BitVector flag = (BitVector) root.getVector("flag");
    double[] special = {
      Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.25, 1e300
    };
    for (int i = 0; i < ROWS; i++) {
      id.setSafe(i, i);
      int t = random.nextInt(100);
      if (t < 8) {
        tenant.setNull(i);
      } else if (t < 58) {
        tenant.setSafe(i, 42); // skew: half the rows belong to tenant 42
      } else {
        tenant.setSafe(i, random.nextInt(21));
      }
      if (random.nextInt(10) == 0) {
        name.setNull(i);
      } else {
        name.setSafe(i, NAMES[random.nextInt(NAMES.length)].getBytes(StandardCharsets.UTF_8));
      }
      int s = random.nextInt(100);
      if (s < 5) {
        score.setNull(i);
      } else if (s < 20) {
        score.setSafe(i, special[random.nextInt(special.length)]);
      } else {
        score.setSafe(i, Math.round(random.nextGaussian() * 100) / 100.0);
      }
      int f = random.nextInt(10);
      if (f == 0) {
        flag.setNull(i);
      } else {
        flag.setSafe(i, f <= 5 ? 1 : 0);
      }
    }
    root.setRowCount(ROWS);
    return root;
  }
}
