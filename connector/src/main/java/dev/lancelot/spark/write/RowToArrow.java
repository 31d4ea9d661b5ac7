package dev.lancelot.spark.write;

import dev.lancelot.engine.DatasetTypes;
import dev.lancelot.engine.InvalidInputException;
import dev.lancelot.engine.LancelotException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
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
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Appends Spark rows to an Arrow batch in the batch schema's own types. Array columns whose Arrow
 * type is a fixed-size list are Lance vectors: a row whose array length differs from the dimension
 * is refused with an error naming the row and column (S2). Columns of types Spark has no exact type
 * for (unsigned integers, half floats, large strings/binaries/lists, fixed-size binaries, date64,
 * timestamps in s/ms/ns, decimal256) take the Spark type they are read as and are converted by
 * {@link DatasetTypes}; a value the column cannot hold fails the row with an error naming the
 * column and the value (docs/sql.md "Writing into a dataset's own types").
 */
public final class RowToArrow implements AutoCloseable {
  /** Writes one value of a Spark row/array/struct into one Arrow vector. */
  private interface ValueWriter {
    void write(SpecializedGetters source, int ordinal, int index);
  }

  private final VectorSchemaRoot root;
  private final ValueWriter[] writers;
  private final String taskLabel;
  private long rowsSeen;
  private int rows;

  public RowToArrow(Schema schema, BufferAllocator allocator, String taskLabel) {
    this.root = VectorSchemaRoot.create(schema, allocator);
    this.taskLabel = taskLabel;
    List<FieldVector> vectors = root.getFieldVectors();
    writers = new ValueWriter[vectors.size()];
    try {
      root.allocateNew();
      for (int i = 0; i < writers.length; i++) {
        writers[i] = writerFor(vectors.get(i), vectors.get(i).getName(), (DecimalType) null);
      }
    } catch (RuntimeException e) {
      root.close(); // nobody else holds the batch yet
      throw e;
    }
  }

  VectorSchemaRoot root() {
    return root;
  }

  int rows() {
    return rows;
  }

  public void append(InternalRow row) {
    try {
      for (int i = 0; i < writers.length; i++) {
        writers[i].write(row, i, rows);
      }
    } catch (DatasetTypes.ValueOutOfRangeException e) {
      throw new InvalidInputException(
          "Cannot write " + taskLabel + " row " + rowsSeen + ": " + e.getMessage(), e);
    }
    rows++;
    rowsSeen++;
  }

  /** Sets the value counts and returns the batch; {@link #reset()} before appending again. */
  public VectorSchemaRoot finishBatch() {
    for (FieldVector v : root.getFieldVectors()) {
      v.setValueCount(rows);
    }
    root.setRowCount(rows);
    return root;
  }

  void reset() {
    root.allocateNew();
    rows = 0;
  }

  @Override
  public void close() {
    root.close();
  }

  private ValueWriter writerFor(FieldVector vector, String column, DecimalType unused) {
    ValueWriter value = valueWriter(vector, column);
    return (src, ord, idx) -> {
      if (src.isNullAt(ord)) {
        if (!vector.getField().isNullable()) {
          throw new InvalidInputException(
              "Cannot write "
                  + taskLabel
                  + " row "
                  + rowsSeen
                  + ": column \""
                  + column
                  + "\" is null but the dataset declares it not nullable.");
        }
        vector.setNull(idx);
      } else {
        value.write(src, ord, idx);
      }
    };
  }

  private ValueWriter valueWriter(FieldVector vector, String column) {
    if (vector instanceof BitVector v) {
      return (s, o, i) -> v.setSafe(i, s.getBoolean(o) ? 1 : 0);
    } else if (vector instanceof TinyIntVector v) {
      return (s, o, i) -> v.setSafe(i, s.getByte(o));
    } else if (vector instanceof SmallIntVector v) {
      return (s, o, i) -> v.setSafe(i, s.getShort(o));
    } else if (vector instanceof IntVector v) {
      return (s, o, i) -> v.setSafe(i, s.getInt(o));
    } else if (vector instanceof BigIntVector v) {
      return (s, o, i) -> v.setSafe(i, s.getLong(o));
    } else if (vector instanceof Float4Vector v) {
      return (s, o, i) -> v.setSafe(i, s.getFloat(o));
    } else if (vector instanceof Float8Vector v) {
      return (s, o, i) -> v.setSafe(i, s.getDouble(o));
    } else if (vector instanceof UInt1Vector v) {
      return (s, o, i) -> v.setSafe(i, DatasetTypes.toUInt8(column, s.getShort(o)));
    } else if (vector instanceof UInt2Vector v) {
      return (s, o, i) -> v.setSafe(i, DatasetTypes.toUInt16(column, s.getInt(o)));
    } else if (vector instanceof UInt4Vector v) {
      return (s, o, i) -> v.setSafe(i, DatasetTypes.toUInt32(column, s.getLong(o)));
    } else if (vector instanceof UInt8Vector v) {
      return (s, o, i) ->
          v.setSafe(i, DatasetTypes.toUInt64(column, s.getDecimal(o, 20, 0).toJavaBigDecimal()));
    } else if (vector instanceof Float2Vector v) {
      return (s, o, i) -> v.setSafe(i, DatasetTypes.toFloat16(column, s.getFloat(o)));
    } else if (vector instanceof DateDayVector v) {
      return (s, o, i) -> v.setSafe(i, s.getInt(o));
    } else if (vector instanceof DateMilliVector v) {
      return (s, o, i) -> v.setSafe(i, DatasetTypes.daysToMillis(s.getInt(o)));
    } else if (vector instanceof TimeStampVector v) {
      TimeUnit unit = ((ArrowType.Timestamp) v.getField().getType()).getUnit();
      return (s, o, i) -> v.setSafe(i, DatasetTypes.fromMicros(column, s.getLong(o), unit));
    } else if (vector instanceof VarCharVector v) {
      return (s, o, i) -> {
        UTF8String str = s.getUTF8String(o);
        v.setSafe(i, str.getBytes());
      };
    } else if (vector instanceof LargeVarCharVector v) {
      return (s, o, i) -> v.setSafe(i, s.getUTF8String(o).getBytes());
    } else if (vector instanceof VarBinaryVector v) {
      return (s, o, i) -> v.setSafe(i, s.getBinary(o));
    } else if (vector instanceof LargeVarBinaryVector v) {
      return (s, o, i) -> v.setSafe(i, s.getBinary(o));
    } else if (vector instanceof FixedSizeBinaryVector v) {
      int width = v.getByteWidth();
      return (s, o, i) -> v.setSafe(i, DatasetTypes.checkFixedSize(column, s.getBinary(o), width));
    } else if (vector instanceof DecimalVector v) {
      ArrowType.Decimal type = (ArrowType.Decimal) v.getField().getType();
      return (s, o, i) -> {
        BigDecimal d = s.getDecimal(o, type.getPrecision(), type.getScale()).toJavaBigDecimal();
        v.setSafe(i, DatasetTypes.checkDecimal(column, d, type));
      };
    } else if (vector instanceof Decimal256Vector v) {
      ArrowType.Decimal type = (ArrowType.Decimal) v.getField().getType();
      return (s, o, i) -> {
        BigDecimal d = s.getDecimal(o, type.getPrecision(), type.getScale()).toJavaBigDecimal();
        v.setSafe(i, DatasetTypes.checkDecimal(column, d, type));
      };
    } else if (vector instanceof FixedSizeListVector v) {
      int dim = v.getListSize();
      FieldVector child = v.getDataVector();
      ValueWriter element = writerFor(child, column + ".item", null);
      return (s, o, i) -> {
        ArrayData array = s.getArray(o);
        if (array.numElements() != dim) {
          throw new InvalidInputException(
              "Cannot write "
                  + taskLabel
                  + " row "
                  + rowsSeen
                  + ": column \""
                  + column
                  + "\" is a vector of dimension "
                  + dim
                  + " but the row's array has "
                  + array.numElements()
                  + " elements. Every vector must have exactly "
                  + dim
                  + " elements.");
        }
        v.setNotNull(i);
        int base = i * dim;
        for (int e = 0; e < dim; e++) {
          element.write(array, e, base + e);
        }
        child.setValueCount(Math.max(child.getValueCount(), base + dim));
      };
    } else if (vector instanceof ListVector v) {
      FieldVector child = v.getDataVector();
      ValueWriter element = writerFor(child, column + ".item", null);
      return (s, o, i) -> {
        ArrayData array = s.getArray(o);
        int start = v.startNewValue(i);
        for (int e = 0; e < array.numElements(); e++) {
          element.write(array, e, start + e);
        }
        v.endValue(i, array.numElements());
      };
    } else if (vector instanceof LargeListVector v) {
      FieldVector child = v.getDataVector();
      ValueWriter element = writerFor(child, column + ".item", null);
      return (s, o, i) -> {
        ArrayData array = s.getArray(o);
        int start = Math.toIntExact(v.startNewValue(i));
        for (int e = 0; e < array.numElements(); e++) {
          element.write(array, e, start + e);
        }
        v.endValue(i, array.numElements());
      };
    } else if (vector instanceof StructVector v) {
      List<ValueWriter> children = new ArrayList<>();
      List<Field> fields = v.getField().getChildren();
      for (int c = 0; c < fields.size(); c++) {
        FieldVector cv = (FieldVector) v.getChildByOrdinal(c);
        children.add(writerFor(cv, column + "." + fields.get(c).getName(), null));
      }
      return (s, o, i) -> {
        InternalRow struct = s.getStruct(o, children.size());
        v.setIndexDefined(i);
        for (int c = 0; c < children.size(); c++) {
          children.get(c).write(struct, c, i);
        }
      };
    }
    throw new LancelotException(
        "Cannot write column \""
            + column
            + "\": Arrow vector type "
            + vector.getClass().getSimpleName()
            + " is not supported by the connector's writer.");
  }
}
