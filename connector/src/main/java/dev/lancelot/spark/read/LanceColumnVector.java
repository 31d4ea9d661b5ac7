package dev.lancelot.spark.read;

import dev.lancelot.spark.SparkTypes;
import java.math.BigDecimal;
import java.math.BigInteger;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float2Vector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A Spark {@link ColumnVector} over an Arrow vector, without copying. Unlike Spark's own {@code
 * ArrowColumnVector} it understands fixed-size lists (Lance vectors), unsigned integers, half
 * floats, and every timestamp unit. The Arrow vector is owned by the caller.
 */
public final class LanceColumnVector extends ColumnVector {
  private final FieldVector vector;
  private final LanceColumnVector[] children;
  private final int listSize;
  private final long timestampToMicros;
  private final long timestampDivisor;

  public LanceColumnVector(FieldVector vector) {
    super(SparkTypes.dataType(vector.getField()));
    this.vector = vector;
    if (vector instanceof FixedSizeListVector fsl) {
      listSize = fsl.getListSize();
      children = new LanceColumnVector[] {new LanceColumnVector(fsl.getDataVector())};
    } else if (vector instanceof ListVector list) {
      listSize = -1;
      children = new LanceColumnVector[] {new LanceColumnVector(list.getDataVector())};
    } else if (vector instanceof LargeListVector list) {
      listSize = -1;
      children = new LanceColumnVector[] {new LanceColumnVector(list.getDataVector())};
    } else if (vector instanceof StructVector struct) {
      listSize = -1;
      children = new LanceColumnVector[struct.size()];
      for (int i = 0; i < children.length; i++) {
        children[i] = new LanceColumnVector((FieldVector) struct.getChildByOrdinal(i));
      }
    } else {
      listSize = -1;
      children = new LanceColumnVector[0];
    }
    long mul = 1;
    long div = 1;
    if (vector.getField().getType() instanceof ArrowType.Timestamp ts) {
      TimeUnit unit = ts.getUnit();
      if (unit == TimeUnit.SECOND) {
        mul = 1_000_000;
      } else if (unit == TimeUnit.MILLISECOND) {
        mul = 1_000;
      } else if (unit == TimeUnit.NANOSECOND) {
        div = 1_000;
      }
    }
    this.timestampToMicros = mul;
    this.timestampDivisor = div;
  }

  @Override
  public void close() {
    // The Arrow vector belongs to the batch that produced it.
  }

  @Override
  public boolean hasNull() {
    return vector.getNullCount() > 0;
  }

  @Override
  public int numNulls() {
    return vector.getNullCount();
  }

  @Override
  public boolean isNullAt(int rowId) {
    return vector.isNull(rowId);
  }

  @Override
  public boolean getBoolean(int rowId) {
    return ((BitVector) vector).get(rowId) != 0;
  }

  @Override
  public byte getByte(int rowId) {
    return ((TinyIntVector) vector).get(rowId);
  }

  @Override
  public short getShort(int rowId) {
    if (vector instanceof UInt1Vector u) {
      return (short) (u.get(rowId) & 0xFF);
    }
    return ((SmallIntVector) vector).get(rowId);
  }

  @Override
  public int getInt(int rowId) {
    if (vector instanceof UInt2Vector u) {
      return u.get(rowId);
    } else if (vector instanceof DateDayVector d) {
      return d.get(rowId);
    } else if (vector instanceof DateMilliVector d) {
      return (int) Math.floorDiv(d.get(rowId), 86_400_000L);
    }
    return ((IntVector) vector).get(rowId);
  }

  @Override
  public long getLong(int rowId) {
    if (vector instanceof BigIntVector v) {
      return v.get(rowId);
    } else if (vector instanceof UInt8Vector v) {
      return v.get(rowId);
    } else if (vector instanceof UInt4Vector v) {
      return Integer.toUnsignedLong(v.get(rowId));
    }
    long raw = ((TimeStampVector) vector).get(rowId);
    return timestampDivisor == 1 ? raw * timestampToMicros : Math.floorDiv(raw, timestampDivisor);
  }

  @Override
  public float getFloat(int rowId) {
    if (vector instanceof Float2Vector half) {
      return half.getValueAsFloat(rowId);
    }
    return ((Float4Vector) vector).get(rowId);
  }

  @Override
  public double getDouble(int rowId) {
    return ((Float8Vector) vector).get(rowId);
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    if (listSize >= 0) {
      return new ColumnarArray(children[0], rowId * listSize, listSize);
    }
    if (vector instanceof ListVector list) {
      ArrowBuf offsets = list.getOffsetBuffer();
      int start = offsets.getInt((long) rowId * ListVector.OFFSET_WIDTH);
      int end = offsets.getInt((long) (rowId + 1) * ListVector.OFFSET_WIDTH);
      return new ColumnarArray(children[0], start, end - start);
    }
    LargeListVector list = (LargeListVector) vector;
    ArrowBuf offsets = list.getOffsetBuffer();
    long start = offsets.getLong((long) rowId * LargeListVector.OFFSET_WIDTH);
    long end = offsets.getLong((long) (rowId + 1) * LargeListVector.OFFSET_WIDTH);
    return new ColumnarArray(children[0], Math.toIntExact(start), Math.toIntExact(end - start));
  }

  /** A map row: its entries, in stored order, as ranges of the entries' key and value columns. */
  @Override
  public ColumnarMap getMap(int rowId) {
    MapVector map = (MapVector) vector;
    ArrowBuf offsets = map.getOffsetBuffer();
    int start = offsets.getInt((long) rowId * MapVector.OFFSET_WIDTH);
    int end = offsets.getInt((long) (rowId + 1) * MapVector.OFFSET_WIDTH);
    LanceColumnVector entries = children[0];
    return new ColumnarMap(entries.getChild(0), entries.getChild(1), start, end - start);
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    if (isNullAt(rowId)) {
      return null;
    }
    if (vector instanceof UInt8Vector v) {
      long raw = v.get(rowId);
      BigInteger unsigned = new BigInteger(Long.toUnsignedString(raw));
      return Decimal.apply(new BigDecimal(unsigned), precision, scale);
    }
    BigDecimal value =
        vector instanceof Decimal256Vector wide
            ? wide.getObject(rowId)
            : ((DecimalVector) vector).getObject(rowId);
    return Decimal.apply(value, precision, scale);
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    if (vector.isNull(rowId)) {
      return null;
    }
    if (vector instanceof VarCharVector v) {
      long start = v.getStartOffset(rowId);
      int len = v.getValueLength(rowId);
      return UTF8String.fromAddress(null, v.getDataBuffer().memoryAddress() + start, len);
    }
    LargeVarCharVector v = (LargeVarCharVector) vector;
    long start = v.getOffsetBuffer().getLong((long) rowId * LargeVarCharVector.OFFSET_WIDTH);
    int len = v.getValueLength(rowId);
    return UTF8String.fromAddress(null, v.getDataBuffer().memoryAddress() + start, len);
  }

  @Override
  public byte[] getBinary(int rowId) {
    if (vector.isNull(rowId)) {
      return null;
    }
    if (vector instanceof VarBinaryVector v) {
      return v.get(rowId);
    } else if (vector instanceof LargeVarBinaryVector v) {
      return v.get(rowId);
    }
    return ((FixedSizeBinaryVector) vector).get(rowId);
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    return children[ordinal];
  }
}
