package dev.lancelot.engine.expr;

import java.util.Arrays;
import java.util.HexFormat;

/** A byte string, {@code X'00FF'} in SQL. The array is copied in and out. */
public record BinaryLiteral(byte[] value) implements Literal {
  public BinaryLiteral {
    value = value.clone();
  }

  @Override
  public byte[] value() {
    return value.clone();
  }

  @Override
  public String toSql() {
    return "X'" + HexFormat.of().withUpperCase().formatHex(value) + "'";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BinaryLiteral other && Arrays.equals(value, other.value);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(value);
  }

  @Override
  public String toString() {
    return toSql();
  }
}
