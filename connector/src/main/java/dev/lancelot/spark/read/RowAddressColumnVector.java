package dev.lancelot.spark.read;

import org.apache.arrow.vector.UInt8Vector;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A metadata column ({@link MetadataColumns}) over the engine's {@code _rowaddr} vector (uint64,
 * never null): the address itself as a bigint, or its fragment id (the high 32 bits) as an int.
 */
final class RowAddressColumnVector extends ColumnVector {
  private final UInt8Vector addresses;
  private final boolean fragmentId;

  private RowAddressColumnVector(UInt8Vector addresses, boolean fragmentId) {
    super(fragmentId ? DataTypes.IntegerType : DataTypes.LongType);
    this.addresses = addresses;
    this.fragmentId = fragmentId;
  }

  static RowAddressColumnVector address(UInt8Vector addresses) {
    return new RowAddressColumnVector(addresses, false);
  }

  static RowAddressColumnVector fragmentId(UInt8Vector addresses) {
    return new RowAddressColumnVector(addresses, true);
  }

  @Override
  public long getLong(int rowId) {
    return addresses.get(rowId);
  }

  @Override
  public int getInt(int rowId) {
    if (!fragmentId) {
      throw new UnsupportedOperationException("_rowaddr is a bigint");
    }
    return (int) (addresses.get(rowId) >>> 32);
  }

  @Override
  public void close() {
    // The Arrow vector belongs to the batch that produced it.
  }

  @Override
  public boolean hasNull() {
    return false;
  }

  @Override
  public int numNulls() {
    return 0;
  }

  @Override
  public boolean isNullAt(int rowId) {
    return false;
  }

  @Override
  public boolean getBoolean(int rowId) {
    throw unsupported();
  }

  @Override
  public byte getByte(int rowId) {
    throw unsupported();
  }

  @Override
  public short getShort(int rowId) {
    throw unsupported();
  }

  @Override
  public float getFloat(int rowId) {
    throw unsupported();
  }

  @Override
  public double getDouble(int rowId) {
    throw unsupported();
  }

  @Override
  public ColumnarArray getArray(int rowId) {
    throw unsupported();
  }

  @Override
  public ColumnarMap getMap(int ordinal) {
    throw unsupported();
  }

  @Override
  public Decimal getDecimal(int rowId, int precision, int scale) {
    throw unsupported();
  }

  @Override
  public UTF8String getUTF8String(int rowId) {
    throw unsupported();
  }

  @Override
  public byte[] getBinary(int rowId) {
    throw unsupported();
  }

  @Override
  public ColumnVector getChild(int ordinal) {
    throw unsupported();
  }

  private UnsupportedOperationException unsupported() {
    return new UnsupportedOperationException(
        "A row address column is " + dataType().simpleString());
  }
}
