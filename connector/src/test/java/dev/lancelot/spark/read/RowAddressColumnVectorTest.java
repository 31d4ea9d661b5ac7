package dev.lancelot.spark.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code _rowaddr}/{@code _rowid} and {@code _fragid} computed from the engine's row addresses
 * (F5).
 */
class RowAddressColumnVectorTest {
  private BufferAllocator allocator;
  private UInt8Vector addresses;

  @BeforeEach
  void fill() {
    allocator = new RootAllocator();
    addresses = new UInt8Vector("_rowaddr", allocator);
    addresses.allocateNew(3);
    addresses.set(0, 0L);
    addresses.set(1, (7L << 32) | 12);
    addresses.set(2, (0xFFFF_FFFEL << 32) | 0xFFFF_FFFFL); // the largest fragment id Lance assigns
    addresses.setValueCount(3);
  }

  @AfterEach
  void close() {
    addresses.close();
    allocator.close();
  }

  @Test
  void theAddressColumnIsTheAddressAsABigint() {
    RowAddressColumnVector v = RowAddressColumnVector.address(addresses);
    assertThat(v.dataType()).isEqualTo(DataTypes.LongType);
    assertThat(v.getLong(0)).isZero();
    assertThat(v.getLong(1)).isEqualTo(30_064_771_084L);
    assertThat(v.getLong(2)).isEqualTo(0xFFFF_FFFE_FFFF_FFFFL);
    assertThat(v.hasNull()).isFalse();
    assertThat(v.numNulls()).isZero();
    assertThat(v.isNullAt(1)).isFalse();
    assertThatThrownBy(() -> v.getInt(0))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessage("_rowaddr is a bigint");
  }

  @Test
  void theFragmentIdColumnIsTheHigh32Bits() {
    RowAddressColumnVector v = RowAddressColumnVector.fragmentId(addresses);
    assertThat(v.dataType()).isEqualTo(DataTypes.IntegerType);
    assertThat(v.getInt(0)).isZero();
    assertThat(v.getInt(1)).isEqualTo(7);
    assertThat(Integer.toUnsignedLong(v.getInt(2))).isEqualTo(0xFFFF_FFFEL);
  }

  @Test
  void otherAccessorsAreRefusedNamingTheType() {
    RowAddressColumnVector address = RowAddressColumnVector.address(addresses);
    RowAddressColumnVector fragment = RowAddressColumnVector.fragmentId(addresses);
    assertThatThrownBy(() -> address.getUTF8String(0))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessage("A row address column is bigint");
    assertThatThrownBy(() -> fragment.getDouble(0))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessage("A row address column is int");
    assertThatThrownBy(() -> address.getArray(0)).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> address.getChild(0)).isInstanceOf(UnsupportedOperationException.class);
  }
}
