package dev.lancelot.engine.vector;

/**
 * Element types of vector columns ({@code fixed_size_list<T, dim>}) the kernels understand, and how
 * each is held in memory: float32 in {@code float[]}, float16 as its IEEE-754 half-precision bits
 * in {@code short[]} (see {@link Float16}), uint8 in {@code byte[]} (read unsigned).
 */
public enum ElementType {
  FLOAT32("float32", 4),
  FLOAT16("float16", 2),
  UINT8("uint8", 1);

  private final String arrowName;
  private final int byteWidth;

  ElementType(String arrowName, int byteWidth) {
    this.arrowName = arrowName;
    this.byteWidth = byteWidth;
  }

  /** The name Arrow and Lance use for the type, e.g. {@code float16}. */
  public String arrowName() {
    return arrowName;
  }

  public int byteWidth() {
    return byteWidth;
  }
}
